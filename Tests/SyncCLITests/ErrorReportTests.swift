@testable import DiaryArchive
@testable import DiaryCLI
@testable import DiaryKit
@testable import SyncSession
import Testing

/// The glue turns every capability's errors into its own words and status, knowing none of them.
@Suite struct ErrorReportTests {
    @Test func everyCapabilitySaysItsOwnErrors() {
        let unsafe = ErrorReport.describe(ArchiveError.unsafeMember(path: "../x", reason: .parentReference))
        #expect(unsafe == (.archiveUnsafe(path: "../x", reason: .parentReference), 65))
        #expect(unsafe.0.text(.en).contains("climbs out") && unsafe.0.text(.zhHant).contains("含有 .. 的路徑"))
        #expect(ErrorReport.describe(ArchiveError.writeFailed("disk full")) == (.archiveNotWritten, 74))
        #expect(ErrorReport.describe(ArchiveError.cannotOpen(path: "a.tar")).1 == 66)
        #expect(ErrorReport.describe(SyncError.offline) == (.syncFailedKept, 75))
        #expect(ErrorReport.describe(SyncError.notLoggedIn).1 == 77)
        #expect(ErrorReport.describe(SyncError.userExists("a")).1 == 73)
        #expect(ErrorReport.describe(SyncError.serverTooNew(9)).1 == 78)
        #expect(ErrorReport.describe(SearchError.badDate("x")) == (.badDate(text: "x"), 64))
        #expect(ErrorReport.describe(CompanionError.cancelled).1 == 130)
        struct Unexplained: Error {}
        #expect(ErrorReport.describe(Unexplained()) == (.ioFailure, 74), "what no capability explains is an I/O error")
    }
}
