import DiaryKit
import Foundation

// Records as a sealed diary sends them. In clear: ids, the links between them, clocks,
// device ids, tombstones and items keys' numbers, which is what a server needs to keep, per
// part, the version with the newer clock. Sealed: each part of an entry (its content, star,
// trash and order, as `EntryRecord.fields` assigns its fields) and each of its media rows,
// messages and tag links, each bound to where it belongs; tags and settings are named by
// keyed hashes.
extension DiaryKeys {
    /// An entry record, sealed part by part.
    package func sealed(_ record: EntryRecord) throws(SealError) -> JSON {
        var parts: [(String, JSON)] = []
        for part in FieldClocks.Part.allCases {
            let box = try seal(Array(record.partJSON(part).serialized.utf8), partBinding(part, of: record))
            parts.append((part.rawValue, .object([("hlc", .optional(Self.partClock(part, of: record))), ("box", .string(box))])))
        }
        func clear(_ clock: RowClock) -> [(String, JSON)] { RecordCoding.clockPairs(clock, in: RecordCoding.utc) }
        func item<Item>(_ item: Item, _ fields: [ItemField<Item>], _ binding: SealBinding) throws(SealError) -> JSON {
            .string(try seal(Array(JSON.object(RecordCoding.pairs(item, fields, in: RecordCoding.utc)).serialized.utf8), binding))
        }
        var media: [JSON] = []
        for row in record.media {
            // The file's object on the server, by its keyed name: what the server counts, keeps
            // and drops with its last row, as it does with a SHA-256 in clear.
            let object = mediaObjectName(sha256: row.item.sha256)
            media.append(.object([("id", .string(row.id)), ("object", .string(object))] + clear(row.clock)
                                 + [("box", try item(row, EntryRecord.mediaFields, Self.rowBinding(.media, "\(row.id)/\(object)", row.clock)))]))
        }
        var messages: [JSON] = []
        for line in record.lines {
            messages.append(.object([("id", .string(line.message.id))] + clear(line.clock)
                                    + [("box", try item(line, EntryRecord.messageFields, Self.rowBinding(.message, line.message.id, line.clock)))]))
        }
        var links: [JSON] = []
        for link in record.tagLinks {
            let name = keyedName(link.name, kind: .tagLink)
            links.append(.object([("name", .string(name))] + clear(link.clock)
                                 + [("box", try item(link, EntryRecord.tagLinkFields, Self.rowBinding(.tagLink, "\(record.id)/\(name)", link.clock)))]))
        }
        return .object([("kind", .string("entry")), ("id", .string(record.id)), ("sealed", .int(1))] + clear(record.clock)
                       + [("parts", .object(parts)), ("media", .array(media)), ("messages", .array(messages)), ("tag_links", .array(links))])
    }

    /// Opens what `sealed` made. A part or item that does not open, or that says it belongs
    /// somewhere else, fails the whole record.
    package func opened(_ json: JSON) throws(SealError) -> EntryRecord {
        let reader = RecordReader(json, path: "")
        guard reader.optionalString("kind") == "entry", json["sealed"] == .int(1),
              let id = try? reader.identifier("id"), let clock = try? reader.clock() else { throw .doesNotOpen }
        var record = EntryRecord.unfilled(id: id, clock: clock)
        for part in FieldClocks.Part.allCases {
            guard let sealed = json["parts"]?[part.rawValue], let box = sealed["box"]?.stringValue else { throw .doesNotOpen }
            let partClock = sealed["hlc"] ?? .null
            guard partClock == .null || partClock.stringValue.flatMap(HybridTimestamp.init) != nil else { throw .doesNotOpen }
            // The content's clock is kept apart only when it is not the entry's (one form for
            // one state, as the store keeps it).
            record.fieldClocks[part] = part == .content && partClock.stringValue == clock.hlc ? nil : partClock.stringValue
            let value = try open(box, partBinding(part, of: record))
            guard let fields = JSON.parse(Data(value)), (try? record.readPart(part, from: fields)) != nil else { throw .doesNotOpen }
        }
        func rows(_ key: String) throws(SealError) -> [(reader: RecordReader, clock: RowClock, box: String)] {
            guard let list = (json[key] ?? .array([])).arrayValue else { throw .doesNotOpen }
            return try list.map { item throws(SealError) in
                let row = RecordReader(item, path: "")
                guard let clock = try? row.clock(), let box = row.optionalString("box") else { throw .doesNotOpen }
                return (row, clock, box)
            }
        }
        func openItem<Item>(_ box: String, _ binding: SealBinding, into item: inout Item, _ fields: [ItemField<Item>]) throws(SealError) {
            guard let value = JSON.parse(Data(try open(box, binding))),
                  (try? RecordCoding.read(&item, fields, from: RecordReader(value, path: ""))) != nil else { throw .doesNotOpen }
        }
        for (row, clock, box) in try rows("media") {
            guard let mediaId = try? row.identifier("id"), let object = row.optionalString("object") else { throw .doesNotOpen }
            var media = EntryRecord.Media.unfilled(clock: clock)
            try openItem(box, Self.rowBinding(.media, "\(mediaId)/\(object)", clock), into: &media, EntryRecord.mediaFields)
            guard media.id == mediaId, mediaObjectName(sha256: media.item.sha256) == object else { throw .doesNotOpen }
            record.media.append(media)
        }
        for (row, clock, box) in try rows("messages") {
            guard let messageId = try? row.identifier("id") else { throw .doesNotOpen }
            var line = EntryRecord.Line.unfilled(entryId: id, clock: clock)
            try openItem(box, Self.rowBinding(.message, messageId, clock), into: &line, EntryRecord.messageFields)
            guard line.message.id == messageId else { throw .doesNotOpen }
            record.lines.append(line)
        }
        for (row, clock, box) in try rows("tag_links") {
            guard let name = row.optionalString("name") else { throw .doesNotOpen }
            var link = EntryRecord.TagLink.unfilled(clock: clock)
            try openItem(box, Self.rowBinding(.tagLink, "\(id)/\(name)", clock), into: &link, EntryRecord.tagLinkFields)
            guard keyedName(link.name, kind: .tagLink) == name else { throw .doesNotOpen }
            record.tagLinks.append(link)
        }
        return record
    }

    /// A setting, sealed: its key a keyed name, its value and time in the box.
    package func sealed(_ setting: SettingRecord) throws(SealError) -> JSON {
        let name = keyedName(setting.key, kind: .setting)
        let value = JSON.object([("key", .string(setting.key)), ("value", .string(setting.value)),
                                 ("updated_at", RecordCoding.time(setting.updatedAt, in: RecordCoding.utc))])
        return .object([("kind", .string("setting")), ("key", .string(name)), ("sealed", .int(1)),
                        ("hlc", .string(setting.clock.hlc)), ("device_id", .string(setting.clock.deviceId)),
                        ("box", .string(try seal(Array(value.serialized.utf8), Self.rowBinding(.setting, name, setting.clock))))])
    }

    /// Opens what `sealed(_: SettingRecord)` made.
    package func opened(setting json: JSON) throws(SealError) -> SettingRecord {
        guard json["kind"]?.stringValue == "setting", json["sealed"] == .int(1), let name = json["key"]?.stringValue,
              let hlc = json["hlc"]?.stringValue, HybridTimestamp(hlc) != nil, let device = json["device_id"]?.stringValue,
              let box = json["box"]?.stringValue else { throw .doesNotOpen }
        let clock = RowClock(hlc: hlc, deviceId: device)
        let reader = RecordReader(JSON.parse(Data(try open(box, Self.rowBinding(.setting, name, clock)))) ?? .null, path: "")
        guard let key = try? reader.string("key"), keyedName(key, kind: .setting) == name, let value = try? reader.string("value"),
              let updatedAt = try? reader.time("updated_at") else { throw .doesNotOpen }
        return SettingRecord(key: key, value: value, updatedAt: updatedAt, clock: clock)
    }

    // Each part travels with its own clock, the content's always written out (it is the
    // entry's while none was set apart): a server that keeps, part by part, the version with
    // the newer clock can then combine two devices' versions and every part still opens.
    // A part is bound to that clock and to whether the entry is a tombstone, so neither can
    // be swapped under it; not to the entry's clock, which after such a merge is only the
    // newest of the parts' (one changed in clear can move a device's clock ahead by no more
    // than the day a merge allows).
    private static func partClock(_ part: FieldClocks.Part, of record: EntryRecord) -> String? {
        record.fieldClocks[part] ?? (part == .content ? record.clock.hlc : nil)
    }

    private func partBinding(_ part: FieldClocks.Part, of record: EntryRecord) -> SealBinding {
        SealBinding(kind: .entry, id: record.id, part: part.rawValue,
                    clock: Self.bound(Self.partClock(part, of: record) ?? "", deletedAt: record.clock.deletedAt))
    }

    // An item is bound to its clock and its tombstone the same way.
    private static func rowBinding(_ kind: SealBinding.Kind, _ id: String, _ clock: RowClock) -> SealBinding {
        SealBinding(kind: kind, id: id, part: "row", clock: bound(clock.hlc, deletedAt: clock.deletedAt))
    }

    /// A clock and, for a tombstone, when it was deleted: what a seal is bound to.
    private static func bound(_ clock: String, deletedAt: Date?) -> String {
        clock + (deletedAt.map { "\n\(Timestamps.millis($0))" } ?? "")
    }
}
