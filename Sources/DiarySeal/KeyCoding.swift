import DiaryKit
import Foundation

/// How the envelope and the key file write bytes (base64) and numbered keys (a list of
/// `{"id": n, <field>: bytes}`), and read them back (nil when anything is off).
enum KeyCoding {
    static func text(_ bytes: [UInt8]) -> JSON { .string(Data(bytes).base64EncodedString()) }

    static func bytes(_ value: JSON?) -> [UInt8]? {
        guard let text = value?.stringValue, let data = Data(base64Encoded: text) else { return nil }
        return Array(data)
    }

    static func numbered(_ keys: [UInt32: [UInt8]], as field: String) -> JSON {
        .array(keys.keys.sorted().map { .object([("id", .int(Int64($0))), (field, text(keys[$0]!))]) })
    }

    /// The numbered keys under `field`; nil when the list is missing, empty or not all readable.
    static func numbered(_ value: JSON?, field: String) -> [UInt32: [UInt8]]? {
        guard let list = value?.arrayValue, !list.isEmpty else { return nil }
        var keys: [UInt32: [UInt8]] = [:]
        for item in list {
            guard case let .int(id)? = item["id"], let number = UInt32(exactly: id), let bytes = bytes(item[field]) else { return nil }
            keys[number] = bytes
        }
        return keys
    }
}
