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
        guard let (json, file) = try read(path(paths).path, account: account) else { return nil }
        return try keys(in: json, account: account, file: file)
    }

    /// Writes the keys, readable by their owner only (`FileIO.replaceOwnerOnly`).
    package static func save(_ keys: DiaryKeys, _ paths: DiaryPaths) throws(SealError) {
        try write(json(keys), as: path(paths), paths)
    }

    /// Removes the keys from this device; true when there were some.
    @discardableResult
    package static func remove(_ paths: DiaryPaths) -> Bool { unlink(path(paths).path) == 0 }

    /// The JSON object of an owner-only file of ours for `account`: nil when there is none or
    /// it belongs to another account.
    static func read(_ file: String, account: String) throws(SealError) -> (json: JSON, file: String)? {
        guard let exposed = FileIO.readableByOthers(file) else { return nil }
        if exposed { throw .keyFileExposed(file) }
        guard let data = FileManager.default.contents(atPath: file), let json = JSON.parse(data), json["format"] == .int(1),
              let owner = json["account"]?.stringValue else { throw .keyFileUnreadable(file) }
        return owner == account ? (json, file) : nil
    }

    static func write(_ fields: [(String, JSON)], as url: URL, _ paths: DiaryPaths) throws(SealError) {
        guard FileIO.replaceOwnerOnly(url.lastPathComponent, in: paths.stateDirectory.path,
                                      with: Array((JSON.object(fields).serialized + "\n").utf8)) else {
            throw .keyFileUnwritable(paths.stateDirectory.path)
        }
    }

    static func json(_ keys: DiaryKeys) -> [(String, JSON)] {
        [("format", .int(1)), ("account", .string(keys.account)), ("key_id", .string(keys.keyId)),
         ("diary_key", KeyCoding.text(keys.diaryKey)), ("items_keys", KeyCoding.numbered(keys.itemsKeys, as: "key"))]
    }

    static func keys(in json: JSON, account: String, file: String) throws(SealError) -> DiaryKeys {
        guard let diaryKey = KeyCoding.bytes(json["diary_key"]), let itemsKeys = KeyCoding.numbered(json["items_keys"], field: "key"),
              ([diaryKey] + itemsKeys.values).allSatisfy({ $0.count == Sodium.keyBytes }) else { throw .keyFileUnreadable(file) }
        let keys = DiaryKeys(account: account, diaryKey: diaryKey, itemsKeys: itemsKeys)
        guard json["key_id"]?.stringValue == keys.keyId else { throw .keyFileUnreadable(file) }
        return keys
    }
}

/// New keys of a diary in clear being sealed (`diary-sync encrypt`), kept beside the key file
/// until the server holds their envelope and the recovery key was shown: a run cut off in
/// between starts again from here, with the same keys and the same recovery key, and no
/// sync uses them before the server does. Owner-only, like the key file.
package enum PendingKeys {
    static func path(_ paths: DiaryPaths) -> URL { paths.stateDirectory.appendingPathComponent("keys.pending") }

    /// Keeps what `DiaryKeys.create` made.
    package static func save(_ keys: DiaryKeys, envelope: KeyEnvelope, recoveryKey: RecoveryKey, _ paths: DiaryPaths) throws(SealError) {
        try KeyFile.write(KeyFile.json(keys) + [("envelope", envelope.json), ("recovery_key", .string(recoveryKey.text))],
                          as: path(paths), paths)
    }

    /// What `save` kept for this account, or nil.
    package static func load(_ paths: DiaryPaths, account: String) throws(SealError)
        -> (keys: DiaryKeys, envelope: KeyEnvelope, recoveryKey: RecoveryKey)? {
        guard let (json, file) = try KeyFile.read(path(paths).path, account: account) else { return nil }
        guard let envelope = json["envelope"], let recovery = json["recovery_key"]?.stringValue else { throw .keyFileUnreadable(file) }
        return (try KeyFile.keys(in: json, account: account, file: file), try KeyEnvelope(json: envelope), try RecoveryKey(recovery))
    }

    @discardableResult
    package static func remove(_ paths: DiaryPaths) -> Bool { unlink(path(paths).path) == 0 }
}
