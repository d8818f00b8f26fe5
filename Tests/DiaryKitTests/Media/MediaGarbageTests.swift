import Foundation
import Testing
@testable import DiaryKit
@testable import DiaryTestSupport

/// Finding media files no page uses, on a real diary folder.
@Suite struct MediaGarbageTests {
    /// Writes a file named for `digest` in a content-addressed folder, last changed `age` seconds ago.
    private func file(_ root: URL, _ digest: String, ext: String = "jpg", age: TimeInterval) throws -> String {
        let folder = root.appendingPathComponent(String(digest.prefix(2)))
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("\(digest).\(ext)").path
        try Data("bytes of \(digest)".utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-age)], ofItemAtPath: path)
        return path
    }

    @Test func onlyOldFilesNoLivePageUsesAreFound() throws {
        let diary = try TestDiary()
        let paths = diary.store.paths
        let used = String(repeating: "a", count: 64), trashed = String(repeating: "b", count: 64)
        let orphan = String(repeating: "c", count: 64), young = String(repeating: "d", count: 64)
        let thumbnail = String(repeating: "e", count: 64), oldThumbnail = String(repeating: "f", count: 64)
        func item(_ digest: String) -> MediaItem {
            MediaItem(kind: .photo, sha256: digest, mime: "image/jpeg", fileExtension: "jpg", bytes: 9, thumbnail: digest == used ? thumbnail : nil)
        }
        let keep = try diary.draft("用著", media: [item(used)])
        try diary.store.media.setThumbnail(mediaSHA256: used, thumbnail: thumbnail)
        _ = keep
        let inTrash = try diary.draft("回收桶", media: [item(trashed)])
        try diary.store.savePage(entryId: inTrash, title: "t", summary: "s", tags: ["x"], persona: "warm", provider: "offline", usageDay: "2026-11-23")
        _ = try diary.store.trash.put(ids: [inTrash])

        let hour: TimeInterval = 3600
        _ = try file(paths.media, used, age: 2 * hour)
        _ = try file(paths.media, trashed, age: 2 * hour)
        let orphanPath = try file(paths.media, orphan, age: 2 * hour)
        _ = try file(paths.media, young, age: 60)
        _ = try file(paths.thumbnails, thumbnail, age: 2 * hour)
        let oldThumbnailPath = try file(paths.thumbnails, oldThumbnail, age: 2 * hour)
        // Someone else's file in the folder is not ours to touch.
        let stranger = paths.media.appendingPathComponent("cc/notes.txt").path
        try Data("mine".utf8).write(to: URL(fileURLWithPath: stranger))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-2 * hour)], ofItemAtPath: stranger)
        let incoming = paths.media.appendingPathComponent(".incoming-1.tmp").path
        try Data("half".utf8).write(to: URL(fileURLWithPath: incoming))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-2 * hour)], ofItemAtPath: incoming)

        let garbage = try MediaGarbage.find(store: diary.store)
        #expect(Set(garbage.map(\.path)) == [orphanPath, incoming, oldThumbnailPath])
        #expect(MediaGarbage.remove(garbage) == 3)
        #expect(!FileManager.default.fileExists(atPath: orphanPath))
        #expect(FileManager.default.fileExists(atPath: stranger))
        #expect(try MediaGarbage.find(store: diary.store).isEmpty)
        // Once the page in the trash is purged, its file is garbage too.
        _ = try diary.store.trash.purge(ids: [inTrash])
        #expect(try MediaGarbage.find(store: diary.store).map(\.path) == [paths.media.appendingPathComponent("bb/\(trashed).jpg").path])
    }
}
