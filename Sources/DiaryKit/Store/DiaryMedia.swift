import Foundation
import GRDB

/// The media rows of the diary, over the store's one writer (`store.media`): adding a file to
/// an entry, its thumbnail, and which files are in use (the files themselves live in
/// `media/` and `thumbs/`, named by their SHA-256).
public struct DiaryMedia: Sendable {
    let store: DiaryStore
}

extension DiaryStore {
    /// The diary's media rows.
    public var media: DiaryMedia { DiaryMedia(store: self) }
}

extension DiaryMedia {
    /// Adds a stored file (a voice memo) to an entry, after the media it has; adding the
    /// same file twice keeps one row.
    public func add(entryId: String, item: MediaItem) throws {
        try store.write { db in
            try store.requireLiveEntry(db, entryId)
            guard try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM media WHERE entry_id = ? AND sha256 = ? AND deleted_at IS NULL"),
                                    arguments: [entryId, item.sha256]) != true else { return }
            let hlc = try store.tick(db)
            let position = try Int.fetchOne(db.cachedStatement(sql: "SELECT coalesce(max(position) + 1, 0) FROM media WHERE entry_id = ?"),
                                            arguments: [entryId]) ?? 0
            let mediaId = UUIDv7.make()
            try store.insertMedia(db, id: mediaId, entryId: entryId, position: position, item: item, hlc: hlc)
            try store.enqueue(db, table: .media, rowId: mediaId, hlc: hlc)
            try store.touch(db, entryId: entryId, hlc: hlc, set: "status = status")
        }
    }

    /// Records the thumbnail made for every media row showing these bytes.
    package func setThumbnail(mediaSHA256: String, thumbnail: String) throws {
        try store.write { db in
            try db.cachedStatement(sql: "UPDATE media SET thumbnail = ? WHERE sha256 = ? AND thumbnail IS NOT ?")
                .execute(arguments: [thumbnail, mediaSHA256, thumbnail])
        }
    }

    /// True when some live entry still points at this media file.
    package func isReferenced(sha256: String) throws -> Bool {
        try store.read { db in
            try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM media WHERE sha256 = ? AND deleted_at IS NULL LIMIT 1"), arguments: [sha256]) == true
        }
    }

    /// The media files and thumbnails some live media row uses (a page in the trash still does).
    package func filesInUse() throws -> (media: Set<String>, thumbnails: Set<String>) {
        try store.read { db in
            (Set(try String.fetchAll(db.cachedStatement(sql: "SELECT DISTINCT sha256 FROM media WHERE deleted_at IS NULL"))),
             Set(try String.fetchAll(db.cachedStatement(sql: "SELECT DISTINCT thumbnail FROM media WHERE deleted_at IS NULL AND thumbnail IS NOT NULL"))))
        }
    }
}
