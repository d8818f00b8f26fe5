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
        guard let exposed = FileIO.readableByOthers(file) else { return nil }
        if exposed { throw .keyFileExposed(file) }
        guard let data = FileManager.default.contents(atPath: file), let json = JSON.parse(data), json["format"] == .int(1),
              let owner = json["account"]?.stringValue else { throw .keyFileUnreadable(file) }
        guard owner == account else { return nil }
        guard let diaryKey = KeyCoding.bytes(json["diary_key"]), let itemsKeys = KeyCoding.numbered(json["items_keys"], field: "key"),
              ([diaryKey] + itemsKeys.values).allSatisfy({ $0.count == Sodium.keyBytes }) else { throw .keyFileUnreadable(file) }
        let keys = DiaryKeys(account: account, diaryKey: diaryKey, itemsKeys: itemsKeys)
        guard json["key_id"]?.stringValue == keys.keyId else { throw .keyFileUnreadable(file) }
        return keys
    }

    /// Writes the keys, readable by their owner only (`FileIO.replaceOwnerOnly`).
    package static func save(_ keys: DiaryKeys, _ paths: DiaryPaths) throws(SealError) {
        let json = JSON.object([
            ("format", .int(1)), ("account", .string(keys.account)), ("key_id", .string(keys.keyId)),
            ("diary_key", KeyCoding.text(keys.diaryKey)), ("items_keys", KeyCoding.numbered(keys.itemsKeys, as: "key")),
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
