import Foundation
import GRDB

// How the entry table keeps each of an entry's own fields (`EntryRecord.fields`).
extension EntryRecord {
    /// The field's value as its column keeps it: times as milliseconds, the context and the
    /// reflection as JSON, the part clocks as JSON or NULL while none was set apart.
    func columnValue(_ field: EntryField) -> (any DatabaseValueConvertible)? {
        switch field.value {
        case let .plain(value): DiaryStore.columnValue(self, value)
        case .zone: timeZone
        case .status: status.rawValue
        case .orderKey: orderKey
        case .context: context.isEmpty ? nil : ContextCoding.encode(context)
        case .fieldClocks: DiaryStore.fieldClocksText(fieldClocks)
        case .reflection: reflection?.json.serialized
        case .tagNames: nil
        }
    }

    /// Reads the field back from its column (a status no build knows reads as a draft).
    mutating func read(_ field: EntryField, from row: ColumnReader) {
        let name = field.name
        switch field.value {
        case let .plain(value): DiaryStore.readColumn(&self, value, name, from: row)
        case .zone: timeZone = row[name]
        case .status: status = EntryStatus(rawValue: row[name]) ?? .draft
        case .orderKey: orderKey = row[name]
        case .context: context = ContextCoding.decode(row[name])
        case .fieldClocks: fieldClocks = DiaryStore.fieldClocks(row[name])
        case .reflection: reflection = Reflection.decode(row[name])
        case .tagNames: break
        }
    }
}

// How the media and message tables keep an item's fields (`EntryRecord.mediaFields`,
// `messageFields`): a column each, of the field's name, beside `entry_id` and the clock.
extension DiaryStore {
    /// What an item's INSERT does with a row of the same id already there.
    enum ExistingItem {
        /// Fails: the item is new (a local write).
        case isAnError
        /// Keeps it as it is (a message is only ever added).
        case staysAsItIs
        /// Gives it the newer version's clock and the fields that may change (`ItemFieldUpdate`).
        case takesTheNewer
    }

    /// The INSERT of one item, column by column as `itemArguments` gives the values.
    static func itemInsertSQL<Item>(table: String, _ fields: [ItemField<Item>], _ existing: ExistingItem) -> String {
        let columns = fields.map(\.name) + ["entry_id", "device_id", "hlc", "deleted_at"]
        let insert = "INSERT INTO \(table)(\(columns.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))"
        switch existing {
        case .isAnError: return insert
        case .staysAsItIs: return insert + " ON CONFLICT(id) DO NOTHING"
        case .takesTheNewer:
            let updates = ["device_id", "hlc", "deleted_at"].map { "\($0) = excluded.\($0)" } + fields.compactMap { field in
                switch field.update {
                case .never: nil
                case .newer: "\(field.name) = excluded.\(field.name)"
                case .newerWhenGiven: "\(field.name) = coalesce(excluded.\(field.name), \(field.name))"
                }
            }
            return insert + " ON CONFLICT(id) DO UPDATE SET " + updates.joined(separator: ", ")
        }
    }

    /// The values of `itemInsertSQL`'s columns for one item.
    static func itemArguments<Item>(_ item: Item, _ fields: [ItemField<Item>], entryId: String) -> StatementArguments
        where Item: ClockedItem {
        var values = fields.map { columnValue(item, $0.value) }
        values += [entryId, item.clock.deviceId, item.clock.hlc, item.clock.deletedAt.map(Timestamps.millis)]
        return StatementArguments(values)
    }

    /// One field's value as its column keeps it: times as milliseconds, kinds by name.
    static func columnValue<Record>(_ record: Record, _ value: FieldValue<Record>) -> (any DatabaseValueConvertible)? {
        switch value {
        case let .id(path), let .string(path), let .digest(path), let .fileExtension(path), let .tagName(path): record[keyPath: path]
        case let .text(path), let .optionalDigest(path): record[keyPath: path]
        case let .time(path): Timestamps.millis(record[keyPath: path])
        case let .optionalTime(path): record[keyPath: path].map(Timestamps.millis)
        case let .flag(path): record[keyPath: path]
        case let .count(path): record[keyPath: path]
        case let .byteCount(path): record[keyPath: path]
        case let .optionalCount(path): record[keyPath: path]
        case let .optionalNumber(path): record[keyPath: path]
        case let .mediaKind(path): record[keyPath: path].rawValue
        case let .author(path): record[keyPath: path].rawValue
        }
    }

    /// Reads an item's fields back from their columns.
    static func readColumns<Item>(_ item: inout Item, _ fields: [ItemField<Item>], from row: ColumnReader) {
        for field in fields { readColumn(&item, field.value, field.name, from: row) }
    }

    /// Reads one field back from its column `name` (a kind or author no build knows reads as
    /// a photo, or as the person).
    static func readColumn<Record>(_ record: inout Record, _ value: FieldValue<Record>, _ name: String, from row: ColumnReader) {
        switch value {
        case let .id(path), let .string(path), let .digest(path), let .fileExtension(path), let .tagName(path): record[keyPath: path] = row[name]
        case let .text(path), let .optionalDigest(path): record[keyPath: path] = row[name]
        case let .time(path): record[keyPath: path] = Timestamps.date(millis: row[name])
        case let .optionalTime(path): record[keyPath: path] = (row[name] as Int64?).map(Timestamps.date(millis:))
        case let .flag(path): record[keyPath: path] = row[name]
        case let .count(path): record[keyPath: path] = row[name]
        case let .byteCount(path): record[keyPath: path] = row[name]
        case let .optionalCount(path): record[keyPath: path] = row[name]
        case let .optionalNumber(path): record[keyPath: path] = row[name]
        case let .mediaKind(path): record[keyPath: path] = MediaKind(rawValue: row[name]) ?? .photo
        case let .author(path): record[keyPath: path] = Author(rawValue: row[name]) ?? .person
        }
    }
}

/// An item of an entry with a clock of its own.
protocol ClockedItem { var clock: RowClock { get } }
extension EntryRecord.Media: ClockedItem {}
extension EntryRecord.Line: ClockedItem {}
