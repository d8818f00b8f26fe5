import Foundation

// Each field of an entry's items (its media rows, messages and tag links) is declared here
// once, as `RecordFields.swift` declares the entry's own. From these lists come the items'
// JSON form, the media and message columns the record exchange reads and writes, and the
// sync server's checks of each item.

/// What a copy of an item already held takes from a newer version of it, field by field.
package enum ItemFieldUpdate: Sendable {
    /// Nothing: what it says never changes (a file's bytes, a message's words).
    case never
    /// The newer value.
    case newer
    /// The newer value when it has one (a thumbnail made on one device is kept when
    /// another's version has none yet).
    case newerWhenGiven
}

/// One field of an entry's items.
package struct ItemField<Item>: Sendable {
    /// Its key in records and its column in the item's table.
    package let name: String
    package let value: FieldValue<Item>
    /// Written only when given, after the others (see `EntryField.onlyWhenGiven`).
    package let onlyWhenGiven: Bool
    package let update: ItemFieldUpdate

    init(_ name: String, _ value: FieldValue<Item>, onlyWhenGiven: Bool = false, update: ItemFieldUpdate = .never) {
        self.name = name
        self.value = value
        self.onlyWhenGiven = onlyWhenGiven
        self.update = update
    }
}

extension EntryRecord {
    /// A media row's fields, in the order records write them (its clock follows).
    package static let mediaFields: [ItemField<Media>] = [
        ItemField("id", .id(\.id)),
        ItemField("position", .count(\.position), update: .newer),
        ItemField("kind", .mediaKind(\.item.kind)),
        ItemField("sha256", .digest(\.item.sha256)),
        ItemField("mime", .string(\.item.mime)),
        ItemField("ext", .fileExtension(\.item.fileExtension)),
        ItemField("bytes", .byteCount(\.item.bytes)),
        ItemField("width", .optionalCount(\.item.width)),
        ItemField("height", .optionalCount(\.item.height)),
        ItemField("duration", .optionalNumber(\.item.durationSeconds)),
        ItemField("taken_at", .optionalTime(\.item.takenAt)),
        ItemField("thumbnail", .optionalDigest(\.item.thumbnail), update: .newerWhenGiven),
        ItemField("anchor", .optionalCount(\.anchor), onlyWhenGiven: true, update: .newer),
    ]

    /// A message's fields, in the order records write them (its clock follows). Messages are
    /// append-only: a later version only ever deletes one.
    package static let messageFields: [ItemField<Line>] = [
        ItemField("id", .id(\.message.id)),
        ItemField("author", .author(\.message.author)),
        ItemField("persona", .string(\.message.persona)),
        ItemField("provider", .text(\.message.provider)),
        ItemField("text", .string(\.message.text)),
        ItemField("created_at", .time(\.message.createdAt)),
    ]

    /// A tag link's fields, in the order records write them (its clock follows). The store
    /// keeps links apart from tags and removals (`entry_tag`, `tag`, `tag_removal`), so its
    /// columns are not these.
    package static let tagLinkFields: [ItemField<TagLink>] = [
        ItemField("name", .tagName(\.name)),
        ItemField("position", .count(\.position)),
        ItemField("created_at", .time(\.createdAt)),
        ItemField("label", .text(\.label), onlyWhenGiven: true),
    ]
}

extension EntryRecord.Media {
    /// A media row with only its clock, for a reader to fill field by field.
    package static func unfilled(clock: RowClock) -> Self {
        Self(id: "", position: 0, clock: clock, item: MediaItem(kind: .photo, sha256: "", mime: "", fileExtension: "", bytes: 0))
    }
}

extension EntryRecord.Line {
    /// A message of `entryId` with only its clock, for a reader to fill field by field.
    package static func unfilled(entryId: String, clock: RowClock) -> Self {
        Self(message: Message(id: "", entryId: entryId, author: .person, persona: "", provider: nil, text: "", createdAt: .distantPast),
             clock: clock)
    }
}

extension EntryRecord.TagLink {
    /// A tag link with only its clock, for a reader to fill field by field.
    package static func unfilled(clock: RowClock) -> Self {
        Self(name: "", position: 0, createdAt: .distantPast, clock: clock)
    }
}
