import Foundation

/// Files in the media and thumbnail folders that no page uses: left by a crash between
/// copying a file and committing its row, or by an interrupted copy (`.incoming-*` files).
/// A file younger than the grace period is never taken, so a copy in progress in another
/// process right now is safe; and the folders are listed before the database is asked, so
/// a file whose row commits in between counts as used.
package enum MediaGarbage {
    /// One file that can go, with its size.
    package struct Item: Sendable, Equatable {
        package var path: String
        package var bytes: Int64
    }

    /// The unused files, oldest shard first.
    package static func find(store: DiaryStore, grace: TimeInterval = 3600, now: Date = Date()) throws -> [Item] {
        let cutoff = now.addingTimeInterval(-grace)
        let media = files(in: store.paths.media, olderThan: cutoff)
        let thumbnails = files(in: store.paths.thumbnails, olderThan: cutoff)
        let used = try store.media.filesInUse()
        return media.filter { !used.media.contains($0.digest ?? "") }.map(\.item)
            + thumbnails.filter { !used.thumbnails.contains($0.digest ?? "") }.map(\.item)
    }

    /// Removes the files; returns how many went.
    package static func remove(_ items: [Item]) -> Int {
        items.filter { unlink($0.path) == 0 }.count
    }

    /// Stored files (`ab/<sha256>.<ext>`, digest set) and half-written ones (`.incoming-*`,
    /// no digest) last changed before `cutoff`.
    private static func files(in root: URL, olderThan cutoff: Date) -> [(digest: String?, item: Item)] {
        let manager = FileManager.default
        var found: [(digest: String?, item: Item)] = []
        func consider(_ path: String, digest: String?) {
            guard let attributes = try? manager.attributesOfItem(atPath: path),
                  attributes[.type] as? FileAttributeType == .typeRegular,
                  let modified = attributes[.modificationDate] as? Date, modified < cutoff else { return }
            found.append((digest, Item(path: path, bytes: (attributes[.size] as? NSNumber)?.int64Value ?? 0)))
        }
        guard let shards = try? manager.contentsOfDirectory(atPath: root.path) else { return [] }
        for shard in shards.sorted() {
            let shardPath = root.appendingPathComponent(shard).path
            if shard.hasPrefix(".incoming-") { consider(shardPath, digest: nil); continue }
            guard shard.count == 2, let names = try? manager.contentsOfDirectory(atPath: shardPath) else { continue }
            for name in names.sorted() {
                let digest = String(name.prefix { $0 != "." })
                // Only names this store makes; anything else is not ours to remove.
                guard digest.hasPrefix(shard), RecordCoding.isDigest(digest) else { continue }
                consider("\(shardPath)/\(name)", digest: digest)
            }
        }
        return found
    }
}
