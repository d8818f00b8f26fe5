import DiaryKit
import Foundation

/// The opened keys on this device: `keys` in the state folder, readable by its owner only
/// (like the credentials file), so that a sync does not ask for the passphrase every time.
/// Nothing secret is ever written to the database, a log or a message.
package enum KeyFile {
    package static func path(_ paths: DiaryPaths) -> URL { paths.stateDirectory.appendingPathComponent("keys") }

    /// The keys kept here; nil when there are none. A file others may read is refused, as is
    /// one for another account.
    package static func load(_ paths: DiaryPaths, account: String) throws(SealError) -> DiaryKeys? {
        let file = path(paths).path
        var info = stat()
        guard stat(file, &info) == 0 else { return nil }
        if info.st_mode & 0o077 != 0 { throw .keyFileExposed(file) }
        guard let data = FileManager.default.contents(atPath: file), let json = JSON.parse(data) else { throw .keyFileUnreadable(file) }
        func bytes(_ value: JSON?) throws(SealError) -> [UInt8] {
            guard let text = value?.stringValue, let data = Data(base64Encoded: text), data.count == Sodium.keyBytes else {
                throw .keyFileUnreadable(file)
            }
            return Array(data)
        }
        guard json["format"] == .int(1), let owner = json["account"]?.stringValue, let list = json["items_keys"]?.arrayValue else {
            throw .keyFileUnreadable(file)
        }
        guard owner == account else { return nil }
        var itemsKeys: [UInt32: [UInt8]] = [:]
        for item in list {
            guard case let .int(id)? = item["id"], let number = UInt32(exactly: id) else { throw .keyFileUnreadable(file) }
            itemsKeys[number] = try bytes(item["key"])
        }
        let keys = DiaryKeys(account: account, diaryKey: try bytes(json["diary_key"]), itemsKeys: itemsKeys)
        guard !itemsKeys.isEmpty, json["key_id"]?.stringValue == keys.keyId else { throw .keyFileUnreadable(file) }
        return keys
    }

    /// Writes the keys, readable by their owner only (`FileIO.replaceOwnerOnly`).
    package static func save(_ keys: DiaryKeys, _ paths: DiaryPaths) throws(SealError) {
        func text(_ bytes: [UInt8]) -> JSON { .string(Data(bytes).base64EncodedString()) }
        let json = JSON.object([
            ("format", .int(1)), ("account", .string(keys.account)), ("key_id", .string(keys.keyId)),
            ("diary_key", text(keys.diaryKey)),
            ("items_keys", .array(keys.itemsKeys.keys.sorted().map { .object([("id", .int(Int64($0))), ("key", text(keys.itemsKeys[$0]!))]) })),
        ])
        guard FileIO.replaceOwnerOnly(path(paths).lastPathComponent, in: paths.stateDirectory.path,
                                      with: Array((json.serialized + "\n").utf8)) else {
            throw .keyFileUnwritable(paths.stateDirectory.path)
        }
    }

    /// Removes the keys from this device; true when there were some.
    @discardableResult
    package static func remove(_ paths: DiaryPaths) -> Bool { unlink(path(paths).path) == 0 }
}
