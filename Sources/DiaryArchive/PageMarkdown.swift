import DiaryKit
import Foundation

/// One entry as a Markdown page a person can read without this tool: title, date, place,
/// weather, tags, the page itself, links to its media, and the conversation.
enum PageMarkdown {
    static func render(_ record: EntryRecord, language: Language) -> String {
        let zone = record.zone
        let english = language == .en
        var out = "# \(record.starred ? "★ " : "")\(record.title ?? (english ? "(untitled)" : "（未命名）"))\n\n"
        out += "- \(english ? "Date" : "日期"): \(Timestamps.readable(record.occurredAt, zone: zone)) (\(record.timeZone))\n"
        if let place = record.context.placeLine { out += "- \(english ? "Place" : "地點"): \(place)\n" }
        if let weather = weatherLine(record.context) {
            let readings = record.context.weather.readingsLine(english: english).map { (english ? " · " : "・") + $0 } ?? ""
            out += "- \(english ? "Weather" : "天氣"): \(weather)\(readings)\n"
        }
        let tags = record.writtenTags
        if !tags.isEmpty { out += "- \(english ? "Tags" : "標籤"): \(tags.map { "#\($0)" }.joined(separator: " "))\n" }
        out += "- \(english ? "Status" : "狀態"): \(record.status.rawValue)\n"
        out += "- id: `\(record.id)`\n"
        if let summary = record.summary { out += "\n\(summary)\n" }
        if let note = record.note { out += "\n> \(note.replacingOccurrences(of: "\n", with: "\n> "))\n" }
        let media = record.liveMedia
        if !media.isEmpty {
            out += "\n"
            for item in media.map(\.item) {
                let link = "../\(ArchiveLayout.mediaPath(item))"
                out += item.kind == .photo ? "![](\(link))\n" : "[\(item.kind.rawValue)](\(link))\n"
            }
        }
        let messages = record.liveMessages
        if !messages.isEmpty {
            out += "\n## \(english ? "Conversation" : "對話")\n\n"
            for message in messages {
                let speaker = message.author == .person ? (english ? "Me" : "我") : (english ? "InnerBloom companion" : "InnerBloom 夥伴")
                out += "**\(speaker)** (\(Timestamps.readable(message.createdAt, zone: zone))): \(message.text)\n\n"
            }
        }
        return out
    }

    static func weatherLine(_ context: EntryContext) -> String? {
        switch (context.weatherDescription, context.temperatureC) {
        case let (description?, temperature?): return "\(description) \(formatted(temperature))°C"
        case let (description?, nil): return description
        case let (nil, temperature?): return "\(formatted(temperature))°C"
        case (nil, nil): return nil
        }
    }

    private static func formatted(_ value: Double) -> String { ContextText.number(value) }
}
