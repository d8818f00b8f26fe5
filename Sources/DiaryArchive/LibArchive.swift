import CArchive
import DiaryKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Plumbing shared by `ArchiveReader` and `ArchiveWriter`.
enum LibArchive {
    /// A UTF-8 character set for this thread only; nil if the C library has none (then names stay as libarchive makes them).
    // libarchive converts member names between the archive's character set and the C library's current
    // locale. A Swift program runs in the "C" locale, where a name like 海邊 cannot be converted and comes
    // out as "??" (or is written as raw bytes with a warning). Switching the calling thread to C.UTF-8 for
    // each call fixes that without touching the process-wide locale other code relies on.
    nonisolated(unsafe) private static let utf8: locale_t? = newlocale(LC_CTYPE_MASK, "C.UTF-8", nil)
        ?? newlocale(LC_CTYPE_MASK, "en_US.UTF-8", nil)

    /// Runs `body` with this thread's character set switched to UTF-8.
    static func inUTF8<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        guard let utf8 else { return try body() }
        let previous = uselocale(utf8)
        defer { uselocale(previous) }
        return try body()
    }

    /// libarchive's description of the last error on `archive`, or `fallback` when it gave none.
    static func message(_ archive: OpaquePointer?, _ fallback: String) -> String {
        guard let text = archive_error_string(archive) else { return fallback }
        return String(cString: text)
    }
}
