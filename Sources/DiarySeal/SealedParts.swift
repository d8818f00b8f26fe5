import DiaryKit
import Foundation

/// Where a sealed value belongs: whose, which kind of record, which one, which part of it,
/// at which clock. It is bound into the seal, so a value moved to another record, part or
/// account, or replayed at another clock, does not open.
package struct SealBinding: Sendable, Equatable {
    package enum Kind: String, Sendable {
        case entry, media, message, tagLink = "tag_link", setting
    }

    package var kind: Kind
    package var id: String
    /// The part of the record (`content`, `star`, `trash`, `order` for an entry; `row` for
    /// the others).
    package var part: String
    package var clock: String

    package init(kind: Kind, id: String, part: String, clock: String) {
        self.kind = kind
        self.id = id
        self.part = part
        self.clock = clock
    }
}

extension DiaryKeys {
    /// `value` sealed with the current items key and bound to `binding`, padded so that its
    /// size says little of its length: `ib1.<items key>.<base64 of nonce, ciphertext, tag>`.
    package func seal(_ value: [UInt8], _ binding: SealBinding) throws(SealError) -> String {
        let keyNumber = currentItemsKey
        guard let key = itemsKeys[keyNumber] else { throw .envelopeUnreadable }
        let sealed = try Sodium.seal(Sodium.pad(value, to: Self.paddedSize(value.count)), key: key,
                                     associated: associated(binding, keyNumber: keyNumber))
        return "ib1.\(keyNumber).\(Data(sealed).base64EncodedString())"
    }

    /// Opens what `seal` made for the same binding.
    package func open(_ text: String, _ binding: SealBinding) throws(SealError) -> [UInt8] {
        let pieces = text.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
        guard pieces.count == 3, pieces[0] == "ib1", let keyNumber = UInt32(pieces[1]),
              let sealed = Data(base64Encoded: String(pieces[2])) else { throw .doesNotOpen }
        guard let key = itemsKeys[keyNumber] else { throw .unknownItemsKey(keyNumber) }
        guard let padded = Sodium.open(Array(sealed), key: key, associated: associated(binding, keyNumber: keyNumber)),
              let value = Sodium.unpad(padded) else { throw .doesNotOpen }
        return value
    }

    /// A name (a tag's, a setting's key) as the server may see it: the same on every device
    /// of this diary, and unreadable (a keyed hash, in hex) to anyone without its key.
    package func keyedName(_ name: String, kind: SealBinding.Kind) -> String {
        Hex.string(Sodium.keyedHash(Array("\(kind.rawValue)\n\(name)".utf8), key: subkeys.names))
    }

    /// A push's idempotency key for a record whose clear form is `clear`: the same however
    /// often it is sealed, and nothing a server could check a guess against.
    package func pushKey(_ clear: [UInt8]) -> String {
        Hex.string(Sodium.keyedHash(clear, key: subkeys.pushes))
    }

    /// The padded size of a value of `length` bytes: at least 256, then "Padmé" (at most
    /// about 12 % more), so a size leaves only about log log of the length to guess from.
    static func paddedSize(_ length: Int) -> Int {
        let needed = max(length + 1, 256)
        let exponent = Int.bitWidth - 1 - needed.leadingZeroBitCount  // floor(log2)
        let sizeBits = Int.bitWidth - exponent.leadingZeroBitCount    // floor(log2(exponent)) + 1
        let mask = (1 << (exponent - sizeBits)) - 1
        return (needed + mask) & ~mask
    }

    private func associated(_ binding: SealBinding, keyNumber: UInt32) -> [UInt8] {
        Array("innerbloom/v1/part\n\(account)\n\(binding.kind.rawValue)\n\(binding.id)\n\(binding.part)\n\(binding.clock)\n\(keyNumber)".utf8)
    }
}
