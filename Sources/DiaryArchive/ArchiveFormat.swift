import DiaryKit
/// The kinds of archive an export can be written as.
package enum ArchiveFormat: String, CaseIterable, Sendable {
    case tar
    case tarGz = "tar.gz"
    case tarZst = "tar.zst"
    case tarXz = "tar.xz"
    case zip

    /// The format a file name's extension names (`.tar`, `.tar.gz`/`.tgz`, `.tar.zst`/`.tzst`, `.tar.xz`/`.txz`, `.zip`), ignoring case.
    package static func from(fileName: String) -> ArchiveFormat? {
        let name = fileName.lowercased()
        // Longest suffixes first, so "x.tar.gz" is not taken for a plain ".gz" or ".tar".
        let suffixes: [(String, ArchiveFormat)] = [
            (".tar.gz", .tarGz), (".tar.zst", .tarZst), (".tar.xz", .tarXz),
            (".tgz", .tarGz), (".tzst", .tarZst), (".txz", .tarXz),
            (".tar", .tar), (".zip", .zip),
        ]
        return suffixes.first { name.hasSuffix($0.0) && name.count > $0.0.count }?.1
    }

    /// A format named on the command line: a raw value (`tar.gz`, `zip`, …) or `tgz`, ignoring case.
    package init?(name: String) {
        let name = name.lowercased()
        if name == "tgz" {
            self = .tarGz
        } else if let format = ArchiveFormat(rawValue: name) {
            self = format
        } else {
            return nil
        }
    }

    /// The usual file name extension, without the dot.
    package var fileExtension: String { rawValue }
}
