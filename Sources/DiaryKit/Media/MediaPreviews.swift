import Foundation

/// Thumbnails (D-001) for media that have none yet: made after the entry is safely stored,
/// and best effort, since a missing preview costs only the picture in a list.
package enum MediaPreviews {
    /// Makes and records the thumbnails these media lack, or name without having the file
    /// (a device that pulled the media: thumbnails do not travel); returns how many were made.
    @discardableResult
    package static func ensure(_ items: [MediaItem], store: DiaryStore) -> Int {
        var made = 0
        var done: Set<String> = []
        func lacksOne(_ item: MediaItem) -> Bool {
            guard let path = item.thumbnailPath else { return true }
            return !FileManager.default.fileExists(atPath: store.paths.thumbnails.appendingPathComponent(path).path)
        }
        for item in items where item.kind.isPicture && lacksOne(item) && done.insert(item.sha256).inserted {
            let source = store.paths.media.appendingPathComponent(item.relativePath)
            guard FileManager.default.fileExists(atPath: source.path),
                  let thumbnail = try? Thumbnail.make(kind: item.kind, source: source, into: store.paths.thumbnails),
                  (try? store.media.setThumbnail(mediaSHA256: item.sha256, thumbnail: thumbnail.sha256)) != nil else { continue }
            made += 1
        }
        return made
    }
}
