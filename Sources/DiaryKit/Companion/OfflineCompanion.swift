import Foundation

/// The embedded companion: no network, deterministic. It cannot see the media, so it is
/// honest about what it knows (size, length, time) and builds everything else from the
/// person's own words.
package struct OfflineCompanion: ChatProvider {
    package let name = "offline"
    package var isRemote: Bool { false }
    /// It tags only what it recognised, so a page about nothing it knows may have none.
    package var pageTagCount: ClosedRange<Int> { 0...8 }
    /// Steps that fail on purpose (`DIARY_OFFLINE_FAIL=analysis,reply,page`), to rehearse
    /// recovery paths end to end.
    let failing: Set<String>

    package init(failing: Set<String> = []) {
        self.failing = failing
    }

    /// Reads the rehearsal switch from the environment.
    package init(environment: [String: String]) {
        let steps = (environment["DIARY_OFFLINE_FAIL"] ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        self.init(failing: Set(steps))
    }

    private func check(_ step: String) throws {
        if failing.contains(step) {
            throw CompanionError.providerFailed(provider: name, detail: "rehearsed failure of \(step)")
        }
    }

    package func analyze(_ request: CompanionRequest) async throws -> String {
        try check("analysis")
        let entry = request.entry
        let english = request.language == .en
        guard let media = entry.picture else {
            return english ? "A written moment, with no photo or video." : "一段文字記錄，沒有照片或影片。"
        }
        let size = media.width.flatMap { width in media.height.map { "\(width)×\($0)" } }
        let when = Timestamps.readable(media.takenAt ?? entry.occurredAt, zone: entry.zone)
        let dayPart = DayPart(date: media.takenAt ?? entry.occurredAt, zone: entry.zone).text(request.language)
        switch (media.kind, english) {
        case (.photo, false):
            return "一張\(size.map { " \($0) 的" } ?? "")照片，拍攝於 \(when)（\(dayPart)）。"
        case (.photo, true):
            return "A photo\(size.map { " (\($0))" } ?? ""), taken \(when) (\(dayPart))."
        case (.video, false):
            let seconds = media.durationSeconds.flatMap { Int(exactly: $0.rounded()) }.map { " \($0) 秒" } ?? ""
            return "一段\(seconds)\(size.map { "、\($0) " } ?? "")的影片，拍攝於 \(when)（\(dayPart)）。"
        case (.video, true):
            let seconds = media.durationSeconds.flatMap { Int(exactly: $0.rounded()) }.map { " \($0)-second" } ?? ""
            return "A\(seconds) video\(size.map { " (\($0))" } ?? ""), taken \(when) (\(dayPart))."
        case (.audio, _), (.file, _):
            // `picture` is never a memo or a file; this only keeps the switch whole.
            return english ? "A voice memo." : "一段錄音。"
        }
    }

    package func greet(_ request: CompanionRequest, onText: @Sendable (String) -> Void) async throws -> String {
        try check("reply")
        let entry = request.entry
        let english = request.language == .en
        let dayPart = DayPart(date: entry.occurredAt, zone: entry.zone)
        var parts: [String] = [dayPart.greeting(request.language)]
        if let weather = entry.context.weatherDescription {
            parts.append(english ? "\(weather.prefix(1).uppercased() + weather.dropFirst()) that \(dayPart.text(.en))." : "\(weather)的\(dayPart.text(.zhHant))。")
        }
        let place = entry.context.place
        switch (entry.picture?.kind, english) {
        case (.photo?, false): parts.append("謝謝你帶來這張照片\(place.map { "，在\($0)的這一刻" } ?? "")。")
        case (.video?, false): parts.append("謝謝你帶來這段影片\(place.map { "，在\($0)的這一刻" } ?? "")。")
        case (nil, false), (.audio?, false), (.file?, false): parts.append("謝謝你願意寫下這一刻\(place.map { "，在\($0)" } ?? "")。")
        case (.photo?, true): parts.append("Thank you for bringing this photo\(place.map { " from \($0)" } ?? "").")
        case (.video?, true): parts.append("Thank you for bringing this video\(place.map { " from \($0)" } ?? "").")
        case (nil, true), (.audio?, true), (.file?, true): parts.append("Thank you for writing this moment down\(place.map { " in \($0)" } ?? "").")
        }
        if let note = entry.note, let echo = Self.echo(note) {
            parts.append(english ? "You wrote “\(echo)”." : "你寫下「\(echo)」。")
        }
        if let memory = request.memories.first,
           let line = Self.remembered(memory, today: Timestamps.localDate(entry.occurredAt, zone: entry.zone), english: english) {
            parts.append(line)
        }
        parts.append(Voice(persona: request.persona, language: request.language).opening)
        let text = parts.joined(separator: english ? " " : "")
        onText(text)
        return text
    }

    package func reply(_ request: CompanionRequest, onText: @Sendable (String) -> Void) async throws -> String {
        try check("reply")
        let said = request.history.last { $0.author == .person }?.text ?? ""
        let voice = Voice(persona: request.persona, language: request.language)
        let feeling = Lexicon.matches(in: said, among: Lexicon.emotions).first
        let asked = Set(request.history.filter { $0.author == .companion }.map(\.text))
        let questions = voice.questions
        // A stable hash (not Swift's per-process seeded one) keeps replies reproducible.
        let start = Int(Self.stableHash(said + String(request.history.count)) % UInt64(questions.count))
        let question = (0..<questions.count).map { questions[(start + $0) % questions.count] }
            .first { candidate in !asked.contains { $0.contains(candidate) } } ?? questions[start]
        let text = voice.reply(echo: Self.echo(said), feeling: feeling, question: question)
        onText(text)
        return text
    }

    /// A plain reflection from what the pages say of themselves: how many, the feelings
    /// and tags that came most, their titles, and one question. Nothing is made up.
    package func reflect(_ request: ReflectionRequest) async throws -> Page {
        try check("page")
        let english = request.language == .en
        var feelings: [String: Int] = [:]
        var topics: [String: Int] = [:]
        for page in request.pages {
            for tag in page.tags {
                if let feeling = Lexicon.feeling(ofTag: tag, language: request.language) { feelings[feeling, default: 0] += 1 }
                else { topics[tag, default: 0] += 1 }
            }
        }
        func most(_ counts: [String: Int], _ limit: Int) -> [(String, Int)] {
            Array(counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.prefix(limit)).map { ($0.key, $0.value) }
        }
        let span: String
        switch request.period {
        case "week": span = english ? "this week" : "這一週"
        case "month": span = english ? "this month" : "這個月"
        case "year": span = english ? "this year" : "這一年"
        default: span = english ? "\(request.from) to \(request.to)" : "\(request.from) 到 \(request.to)"
        }
        let titles = request.pages.compactMap(\.title).suffix(5)
        var parts: [String] = []
        if english {
            parts.append("From \(request.from) to \(request.to) I wrote \(request.pages.count) page\(request.pages.count == 1 ? "" : "s").")
            let felt = most(feelings, 3)
            parts.append(felt.isEmpty ? "I did not tag how I felt." : "I felt " + felt.map { "\($0.0) (\($0.1))" }.joined(separator: ", ") + " most.")
            let came = most(topics, 3)
            if !came.isEmpty { parts.append("What kept coming back: " + came.map(\.0).joined(separator: ", ") + ".") }
            if !titles.isEmpty { parts.append("Pages: " + titles.map { "“\($0)”" }.joined(separator: ", ") + ".") }
            parts.append("To think about: which moment of these days do I most want to remember?")
        } else {
            parts.append("\(request.from) 到 \(request.to)，我寫了 \(request.pages.count) 篇日記。")
            let felt = most(feelings, 3)
            parts.append(felt.isEmpty ? "這段時間我沒有標上心情。" : "最常出現的心情是" + felt.map { "\($0.0)（\($0.1) 次）" }.joined(separator: "、") + "。")
            let came = most(topics, 3)
            if !came.isEmpty { parts.append("一再出現的是：" + came.map(\.0).joined(separator: "、") + "。") }
            if !titles.isEmpty { parts.append("寫過的有：" + titles.map { "〈\($0)〉" }.joined(separator: "、") + "。") }
            parts.append("想一想：這段時間裡，我最想記住的是哪一刻？")
        }
        let title = english ? "Looking back on \(span)" : "\(span)的回顧"
        let tags = [english ? "reflection" : "回顧"] + most(topics, 3).map(\.0) + most(feelings, 2).map(\.0)
        return Page(title: title, summary: parts.joined(separator: english ? " " : ""), tags: tags)
    }

    package func writePage(_ request: CompanionRequest) async throws -> Page {
        try check("page")
        let entry = request.entry
        let language = request.language
        let english = language == .en
        let spoken = [entry.note, entry.transcript].compactMap { $0 }
            + request.history.filter { $0.author == .person }.map(\.text)
        let words = spoken.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }

        let title: String
        if let first = words.first, let clause = Self.firstClause(first) {
            title = String(clause.prefix(20))
        } else {
            let day = Timestamps.calendar(entry.zone).dateComponents([.month, .day], from: entry.occurredAt)
            let what = entry.picture?.kind
            if english {
                let month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][(day.month ?? 1) - 1]
                title = "\(what == .video ? "A video" : what == .photo ? "A photo" : "A note") from \(month) \(day.day ?? 1)"
            } else {
                title = "\(day.month ?? 1)月\(day.day ?? 1)日的\(what == .video ? "影片" : what == .photo ? "照片" : "記錄")"
            }
        }

        let dayPart = DayPart(date: entry.occurredAt, zone: entry.zone)
        let parts = Timestamps.calendar(entry.zone).dateComponents([.year, .month, .day], from: entry.occurredAt)
        var summary = english
            ? "\(Timestamps.localDate(entry.occurredAt, zone: entry.zone)), \(dayPart.text(.en))."
            : "\(parts.year!)年\(parts.month!)月\(parts.day!)日\(dayPart.text(.zhHant))。"
        if let place = entry.context.place { summary += english ? " I was in \(place)." : "我在\(place)。" }
        if words.isEmpty {
            summary += english
                ? " Today I kept a \(entry.picture?.kind == .video ? "video" : "photo") of this moment."
                : "今天留下了這一刻的\(entry.picture?.kind == .video ? "影片" : "照片")。"
        } else {
            summary += (english ? " " : "") + words.map { Self.sentence($0, english: english) }.joined(separator: english ? " " : "")
        }
        summary += (english ? " " : "") + Voice(persona: request.persona, language: language).closing
        let tags = TagPicker(language: language, existing: request.existingTags)
            .pick(from: words.joined(separator: "\n"), entry: entry)
        return Page(title: title, summary: summary.trimmingCharacters(in: .whitespaces), tags: tags)
    }

    /// Keeps the first clause of each thing the person said, newest last, within ~300 characters.
    package func condense(_ request: CompanionRequest, earlier: [Message]) async throws -> String {
        let said = earlier.filter { $0.author == .person }.compactMap { Self.firstClause($0.text) }
        var digest = request.digest.map { [$0] } ?? []
        digest += said
        let joined = digest.joined(separator: request.language == .en ? "; " : "；")
        return String(joined.suffix(300))
    }

    /// The offline companion cannot listen; a remote provider transcribes.
    package func transcribe(audio: URL, mime: String, language: Language) async throws -> String {
        throw CompanionError.transcriptionUnavailable
    }

    // MARK: - Text helpers

    /// The first clause of what was said, trimmed to something short enough to repeat back.
    /// One sentence naming the day and title of an earlier page; nil for an untitled one.
    static func remembered(_ memory: Recollection, today: String, english: Bool) -> String? {
        guard let title = memory.title, !title.isEmpty else { return nil }
        // A page of the same day is not a memory of another day.
        if memory.day == today { return english ? "Earlier today you wrote “\(title)”." : "你今天稍早也寫過〈\(title)〉。" }
        let parts = memory.day.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return nil }
        if english {
            let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
            return "On \(months[(parts[1] - 1) % 12]) \(parts[2]), \(parts[0]) you wrote “\(title)”."
        }
        return "你在 \(parts[0]) 年 \(parts[1]) 月 \(parts[2]) 日也寫過〈\(title)〉。"
    }

    package static func echo(_ text: String) -> String? {
        firstClause(text).map { String($0.prefix(24)) }
    }

    static func firstClause(_ text: String) -> String? {
        let stops: Set<Character> = ["。", "！", "？", "!", "?", ".", "\n", "；", ";"]
        let clause = text.split(whereSeparator: { stops.contains($0) }).first.map(String.init) ?? text
        let trimmed = clause.trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: "，,、")))
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The words as a finished sentence.
    static func sentence(_ text: String, english: Bool) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let last = trimmed.last else { return "" }
        if "。！？.!?…~～".contains(last) { return trimmed }
        return trimmed + (english ? "." : "。")
    }

    /// FNV-1a over UTF-8.
    static func stableHash(_ text: String) -> UInt64 {
        text.utf8.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }
}

/// Morning, afternoon, evening…: the part of the day a moment fell in.
struct DayPart {
    let hour: Int

    init(date: Date, zone: TimeZone) {
        hour = Timestamps.hour(date, zone: zone)
    }

    func text(_ language: Language) -> String {
        let names: (String, String)
        switch hour {
        case 5..<8: names = ("清晨", "early morning")
        case 8..<11: names = ("早上", "morning")
        case 11..<13: names = ("中午", "midday")
        case 13..<17: names = ("午後", "afternoon")
        case 17..<19: names = ("傍晚", "evening")
        case 19..<23: names = ("夜晚", "night")
        default: names = ("深夜", "late night")
        }
        return language == .en ? names.1 : names.0
    }

    func greeting(_ language: Language) -> String {
        switch (hour, language) {
        case (5..<11, .zhHant): return "早安。"
        case (11..<17, .zhHant): return "午安。"
        case (17..<19, .zhHant): return "傍晚好。"
        case (_, .zhHant): return "晚上好。"
        case (5..<12, .en): return "Good morning."
        case (12..<17, .en): return "Good afternoon."
        default: return "Good evening."
        }
    }
}
