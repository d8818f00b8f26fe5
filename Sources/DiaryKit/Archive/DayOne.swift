import Foundation

/// Day One's JSON export (a zip with `Journal.json` and `photos/`, `videos/` named by MD5).
enum DayOne {
    /// A journal file at the top of the zip.
    static func isJournal(_ path: String) -> Bool { !path.contains("/") && path.lowercased().hasSuffix(".json") }
    /// A photo, video or audio file of the export.
    static func isMediaFile(_ path: String) -> Bool {
        let parts = path.split(separator: "/")
        return parts.count == 2 && ["photos", "videos", "audios"].contains(String(parts[0]))
    }

    static func records(journal: [UInt8], files: inout [String: StagedFile]) throws -> [EntryRecord] {
        throw ArchiveError.notDiaryArchive
    }
}
