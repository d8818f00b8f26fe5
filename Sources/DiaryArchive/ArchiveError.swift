import DiaryKit
/// Why reading or writing an archive failed.
package enum ArchiveError: Error, Equatable, Sendable {
    /// The archive file could not be opened for reading.
    case cannotOpen(path: String)
    /// The archive file could not be created for writing.
    case cannotCreate(path: String)
    /// The input is not an archive, or its structure or compression is damaged or cut short (libarchive's message).
    case corrupt(String)
    /// The output could not be written (disk full, closed pipe, …) or a member's bytes did not match its size.
    case writeFailed(String)
    /// A source file to be added could not be read.
    case cannotRead(path: String)
    /// libarchive refused a setting it should support (the library was built without gzip, zstd, xz or zip support).
    case unsupported(String)
    /// A member that must not be unpacked: why is in `reason`.
    case unsafeMember(path: String, reason: UnsafeReason)
    /// A member is missing, unlisted, or its size or SHA-256 differs from the manifest or its name.
    case manifestMismatch(path: String)
    /// Over the limits: too big a member or archive, too many members, or a suspicious expansion ratio.
    case tooLarge(path: String)
    /// A line of a records member that is not valid (`field` names what is wrong; nil: not JSON).
    case invalidRecord(member: String, line: Int, field: String?)
    /// Written by a newer version of the format.
    case newerFormat(version: Int)
    /// Neither a diary archive (no manifest first) nor a Day One export.
    case notDiaryArchive
    /// A stored media file whose bytes no longer match its name (found while writing a backup).
    case mediaCorrupt(path: String)

    /// Why a member is refused.
    package enum UnsafeReason: String, Sendable {
        case absolutePath, parentReference, link, device, duplicate, strangeName, misplacedManifest
    }
}
