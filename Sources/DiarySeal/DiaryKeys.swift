import DiaryKit
import Foundation

/// A sealed diary's keys, opened: the diary key and every items key, for one account.
/// Made from the passphrase or the recovery key; never written anywhere but the key file.
package struct DiaryKeys: Sendable {
    /// The account the diary belongs to: every sealed value is bound to it.
    package let account: String
    let diaryKey: [UInt8]
    /// The items keys by number; parts are sealed with the highest.
    private(set) var itemsKeys: [UInt32: [UInt8]]
    /// Subkeys of the diary key, each for one use, derived once: a sync uses them thousands of times.
    let subkeys: Subkeys

    /// What each subkey is for (libsodium's key derivation, an 8-character context each).
    struct Subkeys: Sendable {
        /// Keyed names of tags and settings.
        let names: [UInt8]
        /// Idempotency keys of pushes.
        let pushes: [UInt8]
        /// Media files' keyed names.
        let mediaNames: [UInt8]
        /// Media files' own keys.
        let mediaKeys: [UInt8]

        init(_ diaryKey: [UInt8]) {
            names = Sodium.subkey(of: diaryKey, context: "keynames", id: 1)
            pushes = Sodium.subkey(of: diaryKey, context: "pushkeys", id: 1)
            mediaNames = Sodium.subkey(of: diaryKey, context: "medianam", id: 1)
            mediaKeys = Sodium.subkey(of: diaryKey, context: "mediakey", id: 1)
        }
    }

    /// The number of the items key new parts are sealed with.
    package var currentItemsKey: UInt32 { itemsKeys.keys.max() ?? 0 }

    init(account: String, diaryKey: [UInt8], itemsKeys: [UInt32: [UInt8]]) {
        self.account = account
        self.diaryKey = diaryKey
        self.itemsKeys = itemsKeys
        subkeys = Subkeys(diaryKey)
    }

    // MARK: Making and opening the envelope

    /// A new diary key, its first items key, and a recovery key to show once.
    package static func create(account: String, passphrase: String, cost: PassphraseCost = .standard)
        throws(SealError) -> (keys: DiaryKeys, envelope: KeyEnvelope, recoveryKey: RecoveryKey) {
        guard cost.isAtLeastFloor else { throw .weakPassphraseCost }
        guard passphrase.count >= KeyEnvelope.shortestPassphrase else { throw .passphraseTooShort }
        let keys = DiaryKeys(account: account, diaryKey: try Sodium.random(Sodium.keyBytes), itemsKeys: [1: try Sodium.random(Sodium.keyBytes)])
        let recoveryKey = try RecoveryKey.make()
        let salt = try Sodium.random(Sodium.saltBytes)
        let envelope = KeyEnvelope(
            keyId: keys.keyId, cost: cost, salt: salt,
            byPassphrase: try Sodium.seal(keys.diaryKey, key: try passphraseKey(passphrase, cost: cost, salt: salt),
                                          associated: wrapBinding("passphrase", account: account, cost: cost, salt: salt)),
            byRecoveryKey: try Sodium.seal(keys.diaryKey, key: recoveryWrapKey(recoveryKey),
                                           associated: wrapBinding("recovery-key", account: account, cost: nil, salt: nil)),
            itemsKeys: [1: try keys.wrapItemsKey(1)])
        return (keys, envelope, recoveryKey)
    }

    /// Opens the envelope with the passphrase. A cost under the floor is refused before any
    /// work; a wrong passphrase, or an envelope of another account, does not open.
    package static func open(_ envelope: KeyEnvelope, account: String, passphrase: String) throws(SealError) -> DiaryKeys {
        guard envelope.cost.isAtLeastFloor else { throw .weakPassphraseCost }
        let key = try passphraseKey(passphrase, cost: envelope.cost, salt: envelope.salt)
        guard let diaryKey = Sodium.open(envelope.byPassphrase, key: key,
                                         associated: wrapBinding("passphrase", account: account, cost: envelope.cost, salt: envelope.salt))
        else { throw .wrongPassphrase }
        return try opening(envelope, account: account, diaryKey: diaryKey)
    }

    /// Opens the envelope with the recovery key.
    package static func open(_ envelope: KeyEnvelope, account: String, recoveryKey: RecoveryKey) throws(SealError) -> DiaryKeys {
        guard let diaryKey = Sodium.open(envelope.byRecoveryKey, key: recoveryWrapKey(recoveryKey),
                                         associated: wrapBinding("recovery-key", account: account, cost: nil, salt: nil))
        else { throw .wrongRecoveryKey }
        return try opening(envelope, account: account, diaryKey: diaryKey)
    }

    /// The envelope with the diary key wrapped under a new passphrase (and a new salt); the
    /// recovery key and the items keys stay as they are, so nothing sealed changes.
    package func rewrapped(_ envelope: KeyEnvelope, passphrase: String, cost: PassphraseCost = .standard) throws(SealError) -> KeyEnvelope {
        guard cost.isAtLeastFloor else { throw .weakPassphraseCost }
        guard passphrase.count >= KeyEnvelope.shortestPassphrase else { throw .passphraseTooShort }
        var changed = envelope
        changed.cost = cost
        changed.salt = try Sodium.random(Sodium.saltBytes)
        changed.byPassphrase = try Sodium.seal(diaryKey, key: try Self.passphraseKey(passphrase, cost: cost, salt: changed.salt),
                                               associated: Self.wrapBinding("passphrase", account: account, cost: cost, salt: changed.salt))
        return changed
    }

    /// A new items key for what is sealed from now on; the older ones stay, so older parts
    /// still open. Returns the envelope that holds it too.
    package mutating func rotate(_ envelope: KeyEnvelope) throws(SealError) -> KeyEnvelope {
        let next = currentItemsKey + 1
        itemsKeys[next] = try Sodium.random(Sodium.keyBytes)
        var changed = envelope
        changed.itemsKeys[next] = try wrapItemsKey(next)
        return changed
    }

    /// These keys with every items key `envelope` holds: for a device that missed a rotation
    /// made on another. The envelope must hold this diary key.
    package func refreshed(from envelope: KeyEnvelope) throws(SealError) -> DiaryKeys {
        try Self.opening(envelope, account: account, diaryKey: diaryKey)
    }

    /// Names the diary key: a keyed hash of a fixed text under it, 8 bytes in hex.
    package var keyId: String { Hex.string(Sodium.keyedHash(Array("innerbloom/v1/key-id".utf8), key: diaryKey, count: 8)) }

    private static func opening(_ envelope: KeyEnvelope, account: String, diaryKey: [UInt8]) throws(SealError) -> DiaryKeys {
        var keys = DiaryKeys(account: account, diaryKey: diaryKey, itemsKeys: [:])
        guard keys.keyId == envelope.keyId else { throw .envelopeUnreadable }
        for (id, box) in envelope.itemsKeys {
            guard let itemsKey = Sodium.open(box, key: diaryKey, associated: itemsKeyBinding(id, account: account)) else {
                throw .envelopeUnreadable
            }
            keys.itemsKeys[id] = itemsKey
        }
        return keys
    }

    private func wrapItemsKey(_ id: UInt32) throws(SealError) -> [UInt8] {
        try Sodium.seal(itemsKeys[id]!, key: diaryKey, associated: Self.itemsKeyBinding(id, account: account))
    }

    private static func passphraseKey(_ passphrase: String, cost: PassphraseCost, salt: [UInt8]) throws(SealError) -> [UInt8] {
        try Sodium.argon2id(passphrase: Array(passphrase.utf8), salt: salt, operations: cost.operations, memory: cost.memory)
    }

    private static func recoveryWrapKey(_ recoveryKey: RecoveryKey) -> [UInt8] {
        Sodium.keyedHash(Array("innerbloom/v1/recovery-wrap".utf8), key: recoveryKey.bytes)
    }

    // What each wrapped key is bound to: the cost and salt are in it, so an envelope whose
    // parameters were changed does not open even with the right passphrase.
    private static func wrapBinding(_ by: String, account: String, cost: PassphraseCost?, salt: [UInt8]?) -> [UInt8] {
        var text = "innerbloom/v1/diary-key\n\(by)\n\(account)"
        if let cost, let salt { text += "\n\(cost.operations)\n\(cost.memory)\n\(Hex.string(salt))" }
        return Array(text.utf8)
    }

    private static func itemsKeyBinding(_ id: UInt32, account: String) -> [UInt8] {
        Array("innerbloom/v1/items-key\n\(account)\n\(id)".utf8)
    }
}
