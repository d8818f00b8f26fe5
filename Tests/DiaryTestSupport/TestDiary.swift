import Foundation
import DiaryKit

/// A real diary in a fresh temp folder (a real SQLite file in WAL mode).
final class TestDiary {
    let root: URL
    let store: DiaryStore

    init(wallClock: @escaping @Sendable () -> Date = { Date() }) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("diarykit-\(UUID().uuidString)")
        // State (a pending nudge) stays inside the temp folder too.
        store = try DiaryStore.open(DiaryPaths(homeFlag: root.path, environment: ["XDG_STATE_HOME": root.appendingPathComponent("state").path]),
                                    wallClock: wallClock)
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    /// A text-only draft at the given moment.
    @discardableResult
    func draft(_ note: String?, at date: Date = Date(), zone: String = "Asia/Taipei", media: [MediaItem] = []) throws -> String {
        try store.createEntry(NewEntry(occurredAt: date, timeZone: TimeZone(identifier: zone)!, note: note,
                                       persona: "warm", media: media))
    }

    /// A saved page with the given tags.
    @discardableResult
    func page(_ note: String, tags: [String], at date: Date = Date(), zone: String = "Asia/Taipei") throws -> String {
        let id = try draft(note, at: date, zone: zone)
        try store.savePage(entryId: id, title: note, summary: note, tags: tags, persona: "warm", provider: "offline", usageDay: "2026-11-21")
        return id
    }
}

/// `2026-11-21 17:40` in a named zone.
func moment(_ text: String, zone: String = "Asia/Taipei") -> Date {
    Timestamps.parse(text, zone: TimeZone(identifier: zone)!)!
}
