import Foundation

/// The companion's instructions in one language (the texts live in `Prompts/`).
package struct PromptBook: Sendable {
    /// Who the companion is and the rules every answer keeps.
    let identity: String
    let analysisTask: String
    let greetingTask: String
    let replyTask: String
    let pageTask: String
    let condenseTask: String
    /// Asks for a reflection on the pages listed after it.
    let reflectTask: String
    /// Asks again for a page after an invalid one; `%@` is the reason.
    package let repairRequest: String
    /// How each persona talks and writes, by persona id.
    let personaRules: [String: String]
    let labels: PromptLabels

    package static func book(_ language: Language) -> PromptBook { language == .en ? en : zhHant }
}

/// Headings of the context block.
struct PromptLabels: Sendable {
    let time, place, weather, media, analysis, note, transcript, digest, tags, noImage: String
    let photo, video, textOnly: String
    /// The heading of the earlier pages and the rule for bringing one up.
    let memory, memoryRule: String
    /// How a page from this day of an earlier year is marked.
    let sameDay: String
    /// The heading of memory.md's text.
    let notes: String
}

/// The chat messages (OpenAI wire format) for each step of a conversation: instructions,
/// the moment's context (D-012), the analysis (D-004), the condensed past and the talk.
package struct PromptBuilder {
    package let request: CompanionRequest

    package init(request: CompanionRequest) { self.request = request }

    private var book: PromptBook { .book(request.language) }

    /// Looks at the media and describes it; images ride along as data URLs.
    package func analysis() -> [JSON] {
        var parts: [JSON] = [.object([("type", .string("text")), ("text", .string(contextBlock(includeAnalysis: false)))])]
        for image in request.images {
            let url = "data:image/jpeg;base64," + image.base64EncodedString()
            parts.append(.object([("type", .string("image_url")), ("image_url", .object([("url", .string(url)), ("detail", .string("low"))]))]))
        }
        if request.images.isEmpty {
            parts.append(.object([("type", .string("text")), ("text", .string(book.labels.noImage))]))
        }
        return [message("system", book.identity + "\n\n" + book.analysisTask), .object([("role", .string("user")), ("content", .array(parts))])]
    }

    /// The first words after the media was looked at.
    package func greeting() -> [JSON] {
        [message("system", system()), message("user", book.greetingTask)]
    }

    /// The next reply: the whole (condensed) talk, ending with the person's message.
    package func reply() -> [JSON] {
        [message("system", system() + "\n\n" + book.replyTask)] + history()
    }

    /// The page, asked for after the talk.
    package func page() -> [JSON] {
        var task = book.pageTask
        if !request.existingTags.isEmpty {
            task += "\n\(book.labels.tags)：" + request.existingTags.prefix(60).joined(separator: "、")
        }
        return [message("system", system())] + history() + [message("user", task)]
    }

    /// A reflection on a period: the persona's rules, the task, then one line per page
    /// (day, short id, title, tags, the start of the page).
    package static func reflection(_ request: ReflectionRequest) -> [JSON] {
        let book = PromptBook.book(request.language)
        let rules = book.personaRules[request.persona.id] ?? book.personaRules["warm"]!
        var lines = ["\(request.from) – \(request.to)"]
        for page in request.pages {
            let excerpt = (page.summary ?? page.note ?? "").split(whereSeparator: \.isNewline).joined(separator: " ")
            let tags = page.tags.map { "#\($0)" }.joined(separator: " ")
            lines.append("- \(Timestamps.localDate(page.occurredAt, zone: page.zone)) [\(page.id.prefix(8))] 〈\(page.title ?? "")〉 \(tags)："
                         + String(excerpt.prefix(120)))
        }
        return [.object([("role", .string("system")), ("content", .string(book.identity + "\n\n" + rules + "\n\n" + book.reflectTask))]),
                .object([("role", .string("user")), ("content", .string(lines.joined(separator: "\n")))])]
    }

    /// Folds earlier messages (and the earlier digest) into one short summary.
    package func condense(_ earlier: [Message]) -> [JSON] {
        var text = ""
        if let digest = request.digest { text += "[\(book.labels.digest)]\n\(digest)\n\n" }
        for line in earlier {
            text += (line.author == .person ? "👤 " : "🌱 ") + line.text + "\n"
        }
        return [message("system", book.identity + "\n\n" + book.condenseTask), message("user", text)]
    }

    private func system() -> String {
        let rules = book.personaRules[request.persona.id] ?? book.personaRules["warm"]!
        return book.identity + "\n\n" + rules + "\n\n" + contextBlock(includeAnalysis: true)
    }

    private func history() -> [JSON] {
        request.history.map { message($0.author == .person ? "user" : "assistant", $0.text) }
    }

    /// What is known about the moment, one labelled line each; unknown lines are left out
    /// (no weather means no weather is mentioned).
    func contextBlock(includeAnalysis: Bool) -> String {
        let labels = book.labels
        let entry = request.entry
        let english = request.language == .en
        let zone = entry.zone
        var lines: [String] = []
        let when = Timestamps.readable(entry.occurredAt, zone: zone)
        let weekday = Timestamps.calendar(zone).component(.weekday, from: entry.occurredAt)
        let dayName = english
            ? ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"][weekday - 1]
            : ["星期日", "星期一", "星期二", "星期三", "星期四", "星期五", "星期六"][weekday - 1]
        let part = DayPart(date: entry.occurredAt, zone: zone).text(request.language)
        lines.append("[\(labels.time)] \(when) (\(dayName), \(part)), \(entry.timeZone)")
        let context = entry.context
        if let place = context.placeLine {
            lines.append("[\(labels.place)] \(place)")
        } else if let latitude = context.latitude, let longitude = context.longitude {
            lines.append("[\(labels.place)] \(String(format: "%.3f, %.3f", latitude, longitude))")
        }
        if let description = context.weatherDescription {
            let temperature = context.temperatureC.map { String(format: " %.0f°C", $0) } ?? ""
            lines.append("[\(labels.weather)] \(description)\(temperature)")
        }
        let media: String
        switch entry.picture?.kind {
        case .photo?: media = labels.photo
        case .video?: media = labels.video
        default: media = labels.textOnly
        }
        lines.append("[\(labels.media)] \(media)")
        if includeAnalysis, let analysis = entry.analysis { lines.append("[\(labels.analysis)] \(analysis)") }
        if let note = entry.note { lines.append("[\(labels.note)] \(note)") }
        if let transcript = entry.transcript { lines.append("[\(labels.transcript)] \(transcript)") }
        if includeAnalysis, let digest = request.digest { lines.append("[\(labels.digest)] \(digest)") }
        if includeAnalysis, let notes = request.notes { lines.append("[\(labels.notes)]\n\(notes)") }
        if !request.memories.isEmpty { lines.append(memoryBlock()) }
        return lines.joined(separator: "\n")
    }

    /// At most this many tokens of earlier pages go with a turn, whatever their number.
    static let memoryBudget = 400

    /// The earlier pages the companion may bring up, one line each within the budget:
    /// day, title, the start of the page (unless only titles may leave), short id.
    func memoryBlock() -> String {
        let labels = book.labels
        var lines = ["[\(labels.memory)] \(labels.memoryRule)"]
        var spent = TokenEstimate.of([message("system", lines[0])])
        for memory in request.memories {
            var line = "- \(memory.day)" + (memory.sameDay ? " (\(labels.sameDay))" : "")
            if let title = memory.title { line += " 〈\(title)〉" }
            if let excerpt = memory.excerpt { line += " \(excerpt)" }
            line += " (\(memory.entryId.prefix(8)))"
            let cost = TokenEstimate.of([message("system", line)])
            guard spent + cost <= Self.memoryBudget else { break }
            spent += cost
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    private func message(_ role: String, _ text: String) -> JSON {
        .object([("role", .string(role)), ("content", .string(text))])
    }
}

/// How big a prompt is, in tokens, roughly: one per CJK character, one per four other
/// characters, a few per message, a flat cost per image (OpenAI's low-detail rate).
public enum TokenEstimate {
    /// The estimate for chat messages in the OpenAI wire format.
    public static func of(_ messages: [JSON]) -> Int {
        var total = 0
        func count(_ text: String) -> Int {
            var cjk = 0, other = 0
            for scalar in text.unicodeScalars {
                if scalar.value >= 0x2E80 { cjk += 1 } else { other += 1 }
            }
            return cjk + (other + 3) / 4
        }
        for message in messages {
            total += 4
            if let text = message["content"]?.stringValue { total += count(text) }
            for part in message["content"]?.arrayValue ?? [] {
                if let text = part["text"]?.stringValue { total += count(text) }
                if part["image_url"] != nil { total += 85 }
            }
        }
        return total
    }
}
