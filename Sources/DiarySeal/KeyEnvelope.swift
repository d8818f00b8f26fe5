import DiaryKit
import Foundation

/// What Argon2id spends to turn a passphrase into a key: kept with the envelope, so a
/// device can open a diary sealed with another cost.
package struct PassphraseCost: Sendable, Equatable {
    /// Passes over memory (libsodium's opslimit).
    package var operations: UInt64
    /// Bytes of memory (libsodium's memlimit).
    package var memory: Int

    package init(operations: UInt64, memory: Int) {
        self.operations = operations
        self.memory = memory
    }

    /// What new envelopes use: libsodium's "moderate" (3 passes over 256 MiB), 0.47 s on
    /// the 2-core machine the project is built on (bench/seal.sh), under the 1 s a login may take.
    package static let standard = PassphraseCost(operations: 3, memory: 256 << 20)
    /// The least this client spends, whatever an envelope says: libsodium's "interactive"
    /// (2 passes over 64 MiB). An envelope asking for less is refused, so a server that
    /// rewrites it cannot make the passphrase cheaper to guess.
    package static let floor = PassphraseCost(operations: 2, memory: 64 << 20)

    /// True when it spends at least the floor on both counts.
    package var isAtLeastFloor: Bool { operations >= Self.floor.operations && memory >= Self.floor.memory }
}

/// The sealed diary's keys as the server keeps them: the diary key wrapped by the
/// passphrase and by the recovery key, and the items keys wrapped by the diary key. Nothing
/// in it opens without one of the two secrets.
package struct KeyEnvelope: Sendable, Equatable {
    /// Names the diary key without revealing it (a keyed hash of itself): a device that
    /// knows the diary sees at once when an envelope holds another key.
    package var keyId: String
    package var cost: PassphraseCost
    package var salt: [UInt8]
    /// The diary key sealed under the passphrase's key.
    package var byPassphrase: [UInt8]
    /// The diary key sealed under the recovery key.
    package var byRecoveryKey: [UInt8]
    /// Each items key sealed under the diary key, by its number; the highest seals new parts.
    package var itemsKeys: [UInt32: [UInt8]]

    /// The number of the items key new parts are sealed with.
    package var currentItemsKey: UInt32 { itemsKeys.keys.max() ?? 0 }

    /// The fewest characters a new passphrase may have: Argon2id slows guessing, it cannot
    /// make a four-letter word safe.
    package static let shortestPassphrase = 8

    /// Its JSON form, as stored on the server.
    package var json: JSON {
        .object([
            ("format", .int(1)),
            ("key_id", .string(keyId)),
            ("kdf", .string("argon2id13")),
            ("ops", .int(Int64(cost.operations))),
            ("mem", .int(Int64(cost.memory))),
            ("salt", KeyCoding.text(salt)),
            ("by_passphrase", KeyCoding.text(byPassphrase)),
            ("by_recovery_key", KeyCoding.text(byRecoveryKey)),
            ("items_keys", KeyCoding.numbered(itemsKeys, as: "box")),
        ])
    }

    /// Reads the JSON form back; an envelope of another format or with missing parts is an error.
    package init(json: JSON) throws(SealError) {
        guard json["format"] == .int(1), json["kdf"]?.stringValue == "argon2id13", let keyId = json["key_id"]?.stringValue,
              case let .int(operations)? = json["ops"], case let .int(memory)? = json["mem"], operations > 0, memory > 0,
              let salt = KeyCoding.bytes(json["salt"]), salt.count == Sodium.saltBytes,
              let byPassphrase = KeyCoding.bytes(json["by_passphrase"]), let byRecoveryKey = KeyCoding.bytes(json["by_recovery_key"]),
              let itemsKeys = KeyCoding.numbered(json["items_keys"], field: "box") else { throw .envelopeUnreadable }
        self.init(keyId: keyId, cost: PassphraseCost(operations: UInt64(operations), memory: Int(memory)), salt: salt,
                  byPassphrase: byPassphrase, byRecoveryKey: byRecoveryKey, itemsKeys: itemsKeys)
    }

    init(keyId: String, cost: PassphraseCost, salt: [UInt8], byPassphrase: [UInt8], byRecoveryKey: [UInt8],
         itemsKeys: [UInt32: [UInt8]]) {
        self.keyId = keyId
        self.cost = cost
        self.salt = salt
        self.byPassphrase = byPassphrase
        self.byRecoveryKey = byRecoveryKey
        self.itemsKeys = itemsKeys
    }
}

/// The recovery key: 32 random bytes shown once as 56 letters and digits in groups of four
/// (Crockford's base32, which has no I, L, O or U to misread), the last five a checksum.
package struct RecoveryKey: Sendable, Equatable {
    let bytes: [UInt8]

    private static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)

    /// A new random one.
    static func make() throws(SealError) -> RecoveryKey { RecoveryKey(bytes: try Sodium.random(Sodium.keyBytes)) }

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// Reads what a person typed: case, spaces and dashes do not matter, and O, I and L are
    /// read as 0, 1 and 1. A typo fails the checksum.
    package init(_ text: String) throws(SealError) {
        var value: [UInt8] = []
        for character in text.uppercased().utf8 where character != 0x20 && character != 0x2D && character != 0x0A {
            let folded: UInt8 = switch character {
            case UInt8(ascii: "O"): UInt8(ascii: "0")
            case UInt8(ascii: "I"), UInt8(ascii: "L"): UInt8(ascii: "1")
            default: character
            }
            guard let digit = Self.alphabet.firstIndex(of: folded) else { throw .recoveryKeyMistyped }
            value.append(UInt8(digit))
        }
        guard value.count == 56 else { throw .recoveryKeyMistyped }
        var bits = 0, accumulator = 0
        var decoded: [UInt8] = []
        for digit in value {
            accumulator = (accumulator << 5) | Int(digit)
            bits += 5
            if bits >= 8 {
                bits -= 8
                decoded.append(UInt8((accumulator >> bits) & 0xFF))
            }
        }
        let key = Array(decoded.prefix(Sodium.keyBytes))
        guard decoded.count == 35, Array(decoded.suffix(3)) == Self.checksum(key) else { throw .recoveryKeyMistyped }
        bytes = key
    }

    /// The key as a person writes it down.
    package var text: String {
        let payload = bytes + Self.checksum(bytes)
        var digits: [UInt8] = []
        var bits = 0, accumulator = 0
        for byte in payload {
            accumulator = (accumulator << 8) | Int(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                digits.append(Self.alphabet[(accumulator >> bits) & 31])
            }
            accumulator &= (1 << bits) - 1
        }
        return stride(from: 0, to: digits.count, by: 4).map { String(decoding: digits[$0..<min($0 + 4, digits.count)], as: UTF8.self) }
            .joined(separator: "-")
    }

    private static func checksum(_ key: [UInt8]) -> [UInt8] {
        Sodium.keyedHash(key, key: Array("innerbloom/v1/recovery-key-check".utf8), count: 16).prefix(3).map { $0 }
    }
}
