import Foundation

/// The one-time tag clean-up (`diary-save --tidy-tags`): the filler tags earlier offline
/// pages got (照片, 傍晚, 秋天…) come off, unless the person's own words name them.
package enum TagTidy {
    /// A page and the filler tags that would come off it.
    package struct Removal: Sendable, Equatable {
        package var id: String
        package var title: String?
        package var tags: [String]
    }

    /// What the clean-up would remove, page by page, oldest first.
    package static func plan(_ store: DiaryStore) throws -> [Removal] {
        try store.pages(writtenBy: OfflineCompanion().name).compactMap { page in
            let fillers = FillerTags.of(page)
            var tags = page.tags.filter(fillers.contains)
            guard !tags.isEmpty else { return nil }
            // A tag the person said out loud ("秋天的海") is theirs, not a filler.
            let said = ([page.note, page.transcript].compactMap { $0 }
                + (try store.messages(entryId: page.id)).filter { $0.author == .person }.map(\.text))
                .joined(separator: "\n").lowercased()
            tags.removeAll { said.contains($0) }
            return tags.isEmpty ? nil : Removal(id: page.id, title: page.title, tags: tags)
        }
    }
}
