import DiaryKit
import Foundation

/// A media file sealed chunk by chunk for the server. Its key comes from the diary key and the
/// file's own SHA-256, and each chunk's nonce from its place, so sealing the same file again
/// (a resumed upload, another device) gives the same chunks: uploads resume, and the same
/// photo twice is stored once, but only within one diary. The last chunk says it is last
/// and is padded, so a cut file or a moved chunk does not open, and the size says less.
package struct SealedMedia: Sendable {
    /// The object's name on the server: a keyed hash of the file's SHA-256, so the server
    /// never sees a hash it could look up.
    package let objectName: String
    private let fileKey: [UInt8]
    private let account: String

    /// The sealing of the file whose SHA-256 (lowercase hex) is `sha256`.
    package init(sha256: String, keys: DiaryKeys) {
        objectName = keys.mediaObjectName(sha256: sha256)
        fileKey = Sodium.keyedHash(Array(sha256.utf8), key: Sodium.subkey(of: keys.diaryKey, context: "mediakey", id: 1))
        account = keys.account
    }

    /// Chunk `index` of the file (`plain`), the last one when `isLast`.
    package func seal(chunk plain: [UInt8], index: Int, isLast: Bool) throws(SealError) -> [UInt8] {
        let body = isLast ? Sodium.pad(plain, to: DiaryKeys.paddedSize(plain.count)) : plain
        return try Sodium.seal(body, key: fileKey, nonce: nonce(index), associated: associated(index, isLast: isLast))
    }

    /// The plain bytes of chunk `index`; an error when it was changed, moved, cut, or is
    /// not the last one when it claims to be (or the other way round).
    package func open(chunk sealed: [UInt8], index: Int, isLast: Bool) throws(SealError) -> [UInt8] {
        guard let body = Sodium.open(sealed, key: fileKey, nonce: nonce(index), associated: associated(index, isLast: isLast)) else {
            throw .doesNotOpen
        }
        guard isLast else { return body }
        guard let plain = Sodium.unpad(body) else { throw .doesNotOpen }
        return plain
    }

    // The chunk's number, little-endian, in the first 8 bytes: never the same twice for one key.
    private func nonce(_ index: Int) -> [UInt8] {
        withUnsafeBytes(of: UInt64(index).littleEndian, Array.init) + [UInt8](repeating: 0, count: Sodium.nonceBytes - 8)
    }

    private func associated(_ index: Int, isLast: Bool) -> [UInt8] {
        Array("innerbloom/v1/media\n\(account)\n\(objectName)\n\(index)\n\(isLast ? "last" : "more")".utf8)
    }
}

extension DiaryKeys {
    /// The server's name for the file whose SHA-256 is `sha256`: a keyed hash of it.
    package func mediaObjectName(sha256: String) -> String {
        Hex.string(Sodium.keyedHash(Array(sha256.utf8), key: Sodium.subkey(of: diaryKey, context: "medianam", id: 1)))
    }
}
