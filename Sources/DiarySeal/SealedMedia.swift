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
        fileKey = Sodium.keyedHash(Array(sha256.utf8), key: keys.subkeys.mediaKeys)
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

    /// Plain bytes per chunk; each sealed chunk is this plus the tag (the last one padded).
    package static let chunkSize = 1 << 20

    /// The size of the sealed form of a file of `plainBytes` bytes (0 when it is not a size).
    package static func sealedSize(plainBytes: Int64) -> Int64 {
        guard plainBytes >= 0 else { return 0 }
        let chunk = Int64(chunkSize)
        let count = max(1, (plainBytes + chunk - 1) / chunk)
        let last = plainBytes - (count - 1) * chunk
        return (count - 1) * (chunk + Int64(Sodium.tagBytes)) + Int64(DiaryKeys.paddedSize(Int(last)) + Sodium.tagBytes)
    }

    /// Seals the file read from `source` (`plainBytes` long) into `target`, chunk by chunk;
    /// false when the file could not be read whole or the sealed form not written.
    package func seal(from source: Int32, plainBytes: Int64, into target: Int32) throws(SealError) -> Bool {
        let count = max(1, (plainBytes + Int64(Self.chunkSize) - 1) / Int64(Self.chunkSize))
        var buffer = [UInt8](repeating: 0, count: Self.chunkSize)
        for index in 0..<Int(count) {
            let wanted = Int(min(Int64(Self.chunkSize), plainBytes - Int64(index) * Int64(Self.chunkSize)))
            var got = 0
            while got < wanted {
                let read = buffer.withUnsafeMutableBytes { pread(source, $0.baseAddress! + got, wanted - got, off_t(index * Self.chunkSize + got)) }
                guard read > 0 else { return false }
                got += read
            }
            let sealed = try seal(chunk: Array(buffer[..<wanted]), index: index, isLast: index == Int(count) - 1)
            guard sealed.withUnsafeBytes({ FileIO.writeAll(target, $0) }) else { return false }
        }
        return true
    }

    /// Opens a sealed file as its bytes arrive, in pieces of any size: each complete chunk is
    /// opened and handed on, the last one once the whole sealed size has come.
    package struct Opening {
        private let sealing: SealedMedia
        private let sealedBytes: Int64
        private let chunkCount: Int
        private var pending: [UInt8] = []
        private var received: Int64 = 0
        private var index = 0

        package init(_ sealing: SealedMedia, plainBytes: Int64) {
            self.sealing = sealing
            sealedBytes = SealedMedia.sealedSize(plainBytes: plainBytes)
            chunkCount = Int(max(1, (plainBytes + Int64(SealedMedia.chunkSize) - 1) / Int64(SealedMedia.chunkSize)))
        }

        /// The plain bytes of the chunks `piece` completes; an error when a chunk does not open
        /// or more than the sealed size came.
        package mutating func take(_ piece: UnsafeRawBufferPointer) throws(SealError) -> [UInt8] {
            received += Int64(piece.count)
            guard received <= sealedBytes else { throw .doesNotOpen }
            pending.append(contentsOf: piece)
            let whole = SealedMedia.chunkSize + Sodium.tagBytes
            var plain: [UInt8] = []
            while index < chunkCount - 1, pending.count >= whole {
                plain += try sealing.open(chunk: Array(pending[..<whole]), index: index, isLast: false)
                pending.removeFirst(whole)
                index += 1
            }
            // The last chunk (padded, so of its own size) once everything came.
            if index == chunkCount - 1, received == sealedBytes {
                plain += try sealing.open(chunk: pending, index: index, isLast: true)
                pending = []
                index += 1
            }
            return plain
        }

        /// True once the whole sealed file came and opened.
        package var isComplete: Bool { index == chunkCount }
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
        Hex.string(Sodium.keyedHash(Array(sha256.utf8), key: subkeys.mediaNames))
    }
}
