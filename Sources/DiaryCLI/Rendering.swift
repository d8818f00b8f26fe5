import DiaryKit
import Foundation

/// The JSON Lines contract (`man diary`, JSON LINES) and the readable text of entries, messages and tags.
package enum Rendering {
    // MARK: JSON

    package static func entryJSON(_ entry: Entry, paths: DiaryPaths, adding extra: [(String, JSON)] = []) -> JSON {
        let zone = entry.zone
        var pairs: [(String, JSON)] = [
            ("kind", .string("entry")),
            ("id", .string(entry.id)),
            ("status", .string(entry.status.rawValue)),
            ("created_at", .string(Timestamps.rfc3339(entry.createdAt, zone: zone))),
            ("updated_at", .string(Timestamps.rfc3339(entry.updatedAt, zone: zone))),
            ("occurred_at", .string(Timestamps.rfc3339(entry.occurredAt, zone: zone))),
            ("time_zone", .string(entry.timeZone)),
            ("media", .array(entry.media.map { mediaJSON($0, zone: zone, paths: paths) })),
            ("note", .optional(entry.note)),
            ("transcript", .optional(entry.transcript)),
            ("analysis", .optional(entry.analysis)),
            ("context", RecordCoding.contextJSON(entry.context)),
            ("persona", .string(entry.persona)),
            ("provider", .optional(entry.provider)),
            ("title", .optional(entry.title)),
            ("summary", .optional(entry.summary)),
            ("tags", .array(entry.tags.map(JSON.string))),
            ("starred", .bool(entry.starred)),
            ("trashed_at", .optional(entry.trashedAt.map { Timestamps.rfc3339($0, zone: zone) })),
            ("edited_at", .optional(entry.editedAt.map { Timestamps.rfc3339($0, zone: zone) })),
            ("message_count", .int(Int64(entry.messageCount))),
            ("last_error", .optional(entry.lastError)),
            ("sync", .object([("state", .string(entry.syncState.rawValue)), ("last_error", .optional(entry.syncError))])),
        ]
        if let reflection = entry.reflection { pairs.append(("reflection", reflection.json)) }
        if let messages = entry.messages {
            pairs.append(("messages", .array(messages.map { messageJSON($0, zone: zone) })))
        }
        return .object(pairs + extra)
    }

    static func mediaJSON(_ item: MediaItem, zone: TimeZone, paths: DiaryPaths) -> JSON {
        .object([
            ("kind", .string(item.kind.rawValue)),
            ("sha256", .string(item.sha256)),
            ("mime", .string(item.mime)),
            ("bytes", .int(item.bytes)),
            ("width", .optional(item.width)),
            ("height", .optional(item.height)),
            ("duration", .optional(item.durationSeconds)),
            ("taken_at", .optional(item.takenAt.map { Timestamps.rfc3339($0, zone: zone) })),
            ("path", .string(paths.media.appendingPathComponent(item.relativePath).path)),
            ("thumbnail", .optional(item.thumbnailPath.map { paths.thumbnails.appendingPathComponent($0).path })),
        ])
    }

    package static func messageJSON(_ message: Message, zone: TimeZone) -> JSON {
        .object([
            ("kind", .string("message")),
            ("id", .string(message.id)),
            ("entry_id", .string(message.entryId)),
            ("author", .string(message.author.rawValue)),
            ("persona", .string(message.persona)),
            ("provider", .optional(message.provider)),
            ("text", .string(message.text)),
            ("created_at", .string(Timestamps.rfc3339(message.createdAt, zone: zone))),
            ("state", .string("sent")),
        ])
    }

    /// An entry found by `diary-find`: the entry, the passage that matched and where the
    /// next page starts (`--after`).
    package static func hitJSON(_ hit: EntryHit, cursor: String, paths: DiaryPaths) -> JSON {
        entryJSON(hit.entry, paths: paths, adding: [("snippet", .optional(hit.snippet.map(plainSnippet))), ("cursor", .string(cursor))])
    }

    /// One day of the calendar (`--calendar`); weekday 1 is Monday.
    package static func dayJSON(_ day: DayCount, weekday: Int) -> JSON {
        .object([("kind", .string("day")), ("date", .string(day.day)), ("count", .int(Int64(day.count))),
                 ("weekday", .int(Int64(weekday)))])
    }

    package static func tagJSON(name: String, count: Int, lastUsedAt: Date?, all: Bool) -> JSON {
        .object([
            ("kind", .string("tag")),
            ("name", .string(name)),
            ("count", .int(Int64(count))),
            ("last_used_at", .optional(lastUsedAt.map { Timestamps.rfc3339($0, zone: .current) })),
            ("all", .bool(all)),
        ])
    }

    /// An earlier version of a page (`--show ID --history`).
    package static func versionJSON(_ version: PageVersion, entryId: String) -> JSON {
        let zone = TimeZone(identifier: version.timeZone) ?? .current
        return .object([
            ("kind", .string("version")),
            ("entry_id", .string(entryId)),
            ("replaced_at", .string(Timestamps.rfc3339(version.replacedAt, zone: zone))),
            ("replaced_by", .string(version.replacedBy.rawValue)),
            ("device_id", .string(version.deviceId)),
            ("title", .optional(version.title)),
            ("summary", .optional(version.summary)),
            ("tags", .array(version.tags.map(JSON.string))),
            ("occurred_at", .string(Timestamps.rfc3339(version.occurredAt, zone: zone))),
            ("time_zone", .string(version.timeZone)),
            ("place", .optional(version.place)),
        ])
    }

    /// An earlier version for people: when and by whom it was replaced, then the page as it was.
    package static func versionText(_ version: PageVersion, language: Language) -> String {
        let en = language == .en
        let zone = TimeZone(identifier: version.timeZone) ?? .current
        let who: String
        switch version.replacedBy {
        case .person: who = en ? "you" : "你"
        case .companion: who = en ? "the InnerBloom companion" : "InnerBloom 夥伴"
        case .sync: who = en ? "another device" : "另一台裝置"
        case .import: who = en ? "a restore or import" : "還原或匯入"
        }
        var lines = [en ? "— Replaced \(Timestamps.readable(version.replacedAt, zone: .current)) by \(who) —"
                        : "— \(Timestamps.readable(version.replacedAt, zone: .current)) 被\(who)取代 —"]
        lines.append(version.title ?? (en ? "(untitled)" : "（無標題）"))
        lines.append(Timestamps.readable(version.occurredAt, zone: zone) + " " + version.timeZone
                     + (version.place.map { "  ·  " + $0 } ?? ""))
        if !version.tags.isEmpty { lines.append(version.tags.map { "#\($0)" }.joined(separator: " ")) }
        if let summary = version.summary { lines.append(""); lines.append(summary) }
        return lines.joined(separator: "\n")
    }

    // MARK: Text

    /// `阿暖：…` for the companion, `你：…` for the person.
    static func speaker(_ message: Message, language: Language) -> String {
        switch message.author {
        case .person: return language == .en ? "You" : "你"
        case .companion: return (Persona.named(message.persona) ?? .standard).name(language)
        }
    }

    package static func messageText(_ message: Message, language: Language) -> String {
        "\(speaker(message, language: language))\(language == .en ? ": " : "：")\(message.text)"
    }

    /// One entry as a list row: id, time, title, status, tags, first line.
    package static func entryRow(_ entry: Entry, language: Language, snippet: String? = nil) -> String {
        let when = Timestamps.readable(entry.occurredAt, zone: entry.zone)
        let title = entry.title ?? entry.note ?? (language == .en ? "(untitled draft)" : "（未命名草稿）")
        var lines = ["\(entry.id.prefix(8))  \(when)  \(entry.starred ? "★ " : "")\(title)  [\(stateText(entry, language))]"]
        if !entry.tags.isEmpty { lines.append("    " + entry.tags.map { "#\($0)" }.joined(separator: " ")) }
        if let summary = entry.summary, let first = summary.split(separator: "\n").first {
            lines.append("    " + String(first.prefix(60)) + (first.count > 60 ? "…" : ""))
        }
        if let snippet { lines.append("    " + snippet) }
        return lines.joined(separator: "\n")
    }

    /// Feelings over time, a line per period: its label, a bar of Unicode blocks as long as
    /// its pages with feelings (40 columns for the most), and the count of each feeling.
    /// With `color`, each feeling has its own colour in the bar; without, the list tells them apart.
    package static func trendChart(_ points: [TrendPoint], color: Bool) -> String {
        let most = max(1, points.map(\.total).max() ?? 1)
        let width = 40.0
        let label = points.map(\.period.count).max() ?? 7
        // The feelings in order of their whole count: the most common gets the first colour.
        var totals: [String: Int] = [:]
        for point in points { for (feeling, count) in point.feelings { totals[feeling, default: 0] += count } }
        let order = totals.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map(\.key)
        let palette = ["33", "36", "35", "32", "31", "34", "93", "96", "95", "92"]
        func paint(_ feeling: String) -> String { "\u{1B}[\(palette[(order.firstIndex(of: feeling) ?? 0) % palette.count])m" }
        var lines: [String] = []
        if color { lines.append(String(repeating: " ", count: label + 2) + order.map { paint($0) + "█\u{1B}[0m " + $0 }.joined(separator: "  ")) }
        for point in points {
            var bar = ""
            var drawn = 0.0
            for (feeling, count) in point.feelings {
                let cells = Double(count) / Double(most) * width
                let piece = blocks(from: drawn, to: drawn + cells)
                bar += color ? paint(feeling) + piece + "\u{1B}[0m" : piece
                drawn += cells
            }
            let padding = String(repeating: " ", count: max(0, Int(width.rounded(.up)) - Int(drawn.rounded(.up))))
            let counts = point.feelings.map { "\($0.feeling) \($0.count)" }.joined(separator: " · ")
            let line = point.period.padding(toLength: label, withPad: " ", startingAt: 0) + "  " + bar + padding + "  " + counts
            lines.append(String(line.reversed().drop { $0 == " " }.reversed()))
        }
        return lines.joined(separator: "\n")
    }

    /// Blocks covering columns `start..<end` of a bar, eighths at the end.
    private static func blocks(from start: Double, to end: Double) -> String {
        let eighths = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]
        let whole = Int(end) - Int(start.rounded(.up))
        let rest = Int(((end - end.rounded(.down)) * 8).rounded())
        return String(repeating: "█", count: max(0, whole)) + (rest > 0 && rest < 8 ? eighths[rest] : (rest == 8 ? "█" : ""))
    }

    /// The matched passage on one line, matches coloured when `color`.
    package static func snippetText(_ snippet: String, color: Bool) -> String {
        let flat = snippet.replacingOccurrences(of: "\n", with: " ")
        guard color else { return plainSnippet(flat) }
        // The marks stay; Output.line(_:highlight:) turns them into colour as it prints.
        return flat
    }

    /// The passage without its match marks (U+0002, U+0003).
    static func plainSnippet(_ snippet: String) -> String {
        // One pass over the scalars: Foundation's replacingOccurrences costs more than the
        // search itself on a page of results.
        var plain = String.UnicodeScalarView()
        plain.append(contentsOf: snippet.unicodeScalars.lazy.filter { $0 != "\u{2}" && $0 != "\u{3}" })
        return String(plain)
    }

    /// The month as a Monday-first grid; a day with pages shows their count: `21(3)`.
    package static func calendar(_ month: MonthCounts, language: Language) -> String {
        let en = language == .en
        let names = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                     "October", "November", "December"]
        let title = en ? "\(names[month.month - 1]) \(month.year)" : "\(month.year) 年 \(month.month) 月"
        let weekdays = en ? ["Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"] : ["一", "二", "三", "四", "五", "六", "日"]
        let widest = month.days.map { $0.count > 0 ? String($0.count).count + 2 : 0 }.max() ?? 0
        let cell = 2 + widest + 1
        func pad(_ text: String, columns: Int) -> String {
            text + String(repeating: " ", count: max(0, cell - columns))
        }
        var lines = [String(repeating: " ", count: max(0, (cell * 7 - title.count * (en ? 1 : 2)) / 2)) + title]
        // Chinese weekday names take two columns, like the two-digit days under them.
        lines.append(weekdays.map { pad($0, columns: 2) }.joined().trimmingTrailingSpaces())
        var row = String(repeating: " ", count: cell * month.firstWeekday)
        for (index, day) in month.days.enumerated() {
            let text = (index < 9 ? " " : "") + "\(index + 1)" + (day.count > 0 ? "(\(day.count))" : "")
            row += pad(text, columns: text.count)
            if (month.firstWeekday + index) % 7 == 6 {
                lines.append(row.trimmingTrailingSpaces())
                row = ""
            }
        }
        if !row.isEmpty { lines.append(row.trimmingTrailingSpaces()) }
        return lines.joined(separator: "\n")
    }

    /// One entry in full: the page, its media, context and the conversation.
    package static func entryPage(_ entry: Entry, language: Language, paths: DiaryPaths) -> String {
        let en = language == .en
        var lines: [String] = []
        lines.append((entry.starred ? "★ " : "") + (entry.title ?? entry.note ?? (en ? "(untitled draft)" : "（未命名草稿）")))
        lines.append("\(Timestamps.readable(entry.occurredAt, zone: entry.zone))  ·  \(stateText(entry, language))  ·  \(entry.id)")
        if let place = entry.context.placeLine { lines.append((en ? "Place: " : "地點：") + place) }
        if let reflection = entry.reflection {
            let cited = reflection.cites.map { String($0.prefix(8)) }.joined(separator: " ")
            lines.append(en ? "Looking back on \(reflection.from) – \(reflection.to), citing \(reflection.cites.count) pages: \(cited)"
                            : "回顧 \(reflection.from) – \(reflection.to)，引用 \(reflection.cites.count) 篇：\(cited)")
        }
        if let weather = entry.context.weatherDescription {
            let temperature = entry.context.temperatureC.map { String(format: " %.0f°C", $0) } ?? ""
            let readings = entry.context.weather.readingsLine(english: en).map { (en ? " · " : "・") + $0 } ?? ""
            lines.append((en ? "Weather: " : "天氣：") + weather + temperature + readings)
        }
        if !entry.tags.isEmpty { lines.append(entry.tags.map { "#\($0)" }.joined(separator: " ")) }
        for item in entry.media {
            let file = paths.media.appendingPathComponent(item.relativePath)
            let kind: String
            switch item.kind {
            case .photo: kind = en ? "Photo" : "照片"
            case .video: kind = en ? "Video" : "影片"
            case .audio: kind = en ? "Voice memo" : "錄音"
            case .file: kind = en ? "File" : "檔案"
            }
            if FileManager.default.isReadableFile(atPath: file.path) {
                lines.append("\(kind)\(en ? ": " : "：")\(file.path)")
            } else {
                lines.append("\(kind)\(en ? ": " : "：")\(Phrase.mediaUnavailable.text(language))")
            }
        }
        if let summary = entry.summary { lines.append(""); lines.append(summary) }
        if let note = entry.note, entry.summary == nil { lines.append(""); lines.append(note) }
        if let messages = entry.messages, !messages.isEmpty {
            lines.append("")
            lines.append(en ? "— Conversation —" : "— 聊天紀錄 —")
            lines.append(contentsOf: messages.map { messageText($0, language: language) })
        }
        return lines.joined(separator: "\n")
    }

    /// The status, or that the page is in the trash, or was changed by hand.
    static func stateText(_ entry: Entry, _ language: Language) -> String {
        if entry.trashedAt != nil { return language == .en ? "in the trash" : "在回收桶" }
        if entry.editedAt != nil, entry.status == .saved { return language == .en ? "saved, edited by you" : "已保存，你改過" }
        return statusText(entry.status, language)
    }

    static func statusText(_ status: EntryStatus, _ language: Language) -> String {
        switch (status, language) {
        case (.draft, .zhHant): return "草稿"
        case (.chatting, .zhHant): return "聊天中"
        case (.saved, .zhHant): return "已保存"
        case (.summaryFailed, .zhHant): return "總結未完成"
        case (.draft, .en): return "draft"
        case (.chatting, .en): return "chatting"
        case (.saved, .en): return "saved"
        case (.summaryFailed, .en): return "page pending"
        }
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var text = self
        while text.hasSuffix(" ") { text.removeLast() }
        return text
    }
}
