import Foundation

/// Picks up to 8 tags for a page, each one something the moment is about: tags the person
/// already uses that the words mention, then feelings, then topics (the weather counts),
/// then the place. It never pads: a page about nothing it recognises gets fewer tags
/// rather than ones that say nothing (照片 on every photo page).
struct TagPicker {
    let language: Language
    let existing: [String]

    func pick(from words: String, entry: Entry) -> [String] {
        var tags: [String] = []
        func add(_ tag: String) {
            guard tags.count < 8, let name = TagName.normalize(tag), !tags.contains(name) else { return }
            tags.append(name)
        }
        let lowered = words.lowercased()
        // Reusing the person's own tags first keeps 旅行 from sprawling into 旅遊 and 出遊.
        for tag in existing where tag.count >= 2 && lowered.contains(tag) { add(tag) }
        let heard = [words, entry.context.weatherDescription ?? ""].joined(separator: "\n")
        for topic in Lexicon.matches(in: heard, among: Lexicon.emotions) { add(reuse(topic)) }
        for topic in Lexicon.matches(in: heard, among: Lexicon.topics) { add(reuse(topic)) }
        if let place = Self.placeTag(entry.context.place) { add(place) }
        return tags
    }

    /// The person's existing spelling of a lexicon tag in either language, else ours.
    private func reuse(_ topic: LexiconTopic) -> String {
        existing.first { $0 == topic.tag.zh || $0 == topic.tag.en } ?? topic.tag(language)
    }

    /// The first part of the place the person named ("基隆", "Keelung" of "Keelung, Taiwan"),
    /// when it is short enough to be a tag rather than an address.
    static func placeTag(_ place: String?) -> String? {
        guard let first = place?.split(whereSeparator: { ",，、".contains($0) }).first else { return nil }
        let name = first.trimmingCharacters(in: .whitespaces)
        return (1...12).contains(name.count) ? name : nil
    }
}

/// The tags earlier versions of the offline companion added when it recognised too little
/// (the kind of media, the part of the day, the season), in either language. The tag
/// clean-up (`diary-save --tidy-tags`) removes them from the pages that companion wrote.
enum FillerTags {
    /// The fillers that could have been added to this entry.
    static func of(_ entry: Entry) -> Set<String> {
        let media: [String]
        switch entry.picture?.kind {
        case .photo?: media = ["照片", "photo"]
        case .video?: media = ["影片", "video"]
        case nil, .audio?, .file?: media = ["隨筆", "journal"]
        }
        let part = DayPart(date: entry.occurredAt, zone: entry.zone)
        let season: [String]
        switch Timestamps.calendar(entry.zone).component(.month, from: entry.occurredAt) {
        case 3...5: season = ["春天", "spring"]
        case 6...8: season = ["夏天", "summer"]
        case 9...11: season = ["秋天", "autumn"]
        default: season = ["冬天", "winter"]
        }
        return Set(media + season + [part.text(.zhHant), part.text(.en)])
    }
}
