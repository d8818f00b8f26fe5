import Foundation

/// Picks 3–8 tags for a page: tags the person already uses that the words mention, then
/// feelings, then topics, then the kind of media, the part of day and the season.
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
        for topic in Lexicon.matches(in: words, among: Lexicon.emotions) { add(reuse(topic)) }
        for topic in Lexicon.matches(in: words, among: Lexicon.topics) { add(reuse(topic)) }
        let fillers = [mediaTag(entry), DayPart(date: entry.occurredAt, zone: entry.zone).text(language), season(entry)]
        for filler in fillers where tags.count < 3 { add(filler) }
        return tags
    }

    /// The person's existing spelling of a lexicon tag in either language, else ours.
    private func reuse(_ topic: LexiconTopic) -> String {
        existing.first { $0 == topic.tag.zh || $0 == topic.tag.en } ?? topic.tag(language)
    }

    private func mediaTag(_ entry: Entry) -> String {
        switch (entry.picture?.kind, language) {
        case (.photo?, .zhHant): return "照片"
        case (.video?, .zhHant): return "影片"
        case (nil, .zhHant), (.audio?, .zhHant): return "隨筆"
        case (.photo?, .en): return "photo"
        case (.video?, .en): return "video"
        case (nil, .en), (.audio?, .en): return "journal"
        }
    }

    private func season(_ entry: Entry) -> String {
        let month = Timestamps.calendar(entry.zone).component(.month, from: entry.occurredAt)
        let names: (String, String)
        switch month {
        case 3...5: names = ("春天", "spring")
        case 6...8: names = ("夏天", "summer")
        case 9...11: names = ("秋天", "autumn")
        default: names = ("冬天", "winter")
        }
        return language == .en ? names.1 : names.0
    }
}
