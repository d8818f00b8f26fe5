import DiaryKit
import Foundation
import Testing
@testable import DiarySeal
@testable import DiaryTestSupport

@Suite("Sealed parts, names, media and the key file")
struct SealedPartsTests {
    static let made = try! DiaryKeys.create(account: "alice", passphrase: "passphrase", cost: .floor)
    var keys: DiaryKeys { Self.made.keys }

    @Test("a part opens only where it was sealed: same account, kind, id, part and clock")
    func aPartIsBoundToWhereItBelongs() throws {
        let binding = SealBinding(kind: .entry, id: "e1", part: "content", clock: "001795763276457.000000.dev")
        let value = Array(#"{"title":"海邊","summary":"marker-7f3a"}"#.utf8)
        let sealed = try keys.seal(value, binding)
        #expect(try keys.open(sealed, binding) == value)
        let again = try keys.seal(value, binding)
        #expect(!sealed.contains("marker") && sealed != again, "hidden, and a fresh nonce each time")

        var moved = [binding, binding, binding, binding]
        moved[0].id = "e2"
        moved[1].part = "star"
        moved[2].clock = "001795763276458.000000.dev"
        moved[3].kind = .message
        for elsewhere in moved { #expect(throws: SealError.doesNotOpen) { try keys.open(sealed, elsewhere) } }
        // The same keys under another account (a blob copied into someone else's rows).
        let bob = DiaryKeys(account: "bob", diaryKey: keys.diaryKey, itemsKeys: keys.itemsKeys)
        #expect(throws: SealError.doesNotOpen) { try bob.open(sealed, binding) }

        // Every byte matters.
        let payload = Array(Data(base64Encoded: String(sealed.split(separator: ".")[2]))!)
        for index in [0, 23, 24, payload.count / 2, payload.count - 1] {
            var flipped = payload
            flipped[index] ^= 0x01
            #expect(throws: SealError.doesNotOpen) { try keys.open("ib1.1.\(Data(flipped).base64EncodedString())", binding) }
        }
        #expect(throws: SealError.doesNotOpen) { try keys.open("ib1.1.\(Data(payload.dropLast()).base64EncodedString())", binding) }
        #expect(throws: SealError.doesNotOpen) { try keys.open("not sealed", binding) }
    }

    @Test("sizes are padded: short values look alike, long ones grow by at most about an eighth")
    func sizesArePadded() throws {
        let binding = SealBinding(kind: .setting, id: "s", part: "row", clock: "c")
        let small = try [1, 10, 200].map { try keys.seal([UInt8](repeating: 65, count: $0), binding).count }
        #expect(Set(small).count == 1, "every value under 256 bytes seals to one size")
        for length in [256, 1_000, 5_000, 70_000] {
            let padded = DiaryKeys.paddedSize(length)
            #expect(padded > length && Double(padded) <= Double(length + 1) * 1.125 + 1)
            #expect(try keys.open(try keys.seal([UInt8](repeating: 7, count: length), binding), binding).count == length)
        }
        // Lengths near each other share a size.
        #expect(DiaryKeys.paddedSize(3_000) == DiaryKeys.paddedSize(3_050))
    }

    @Test("names are the same on every device of the diary and unlike any other diary's")
    func keyedNamesAreStableAndPrivate() throws {
        let other = try DiaryKeys.open(Self.made.envelope, account: "alice", passphrase: "passphrase")
        let elsewhere = try DiaryKeys.create(account: "alice", passphrase: "passphrase", cost: .floor).keys
        #expect(keys.keyedName("旅行", kind: .tagLink) == other.keyedName("旅行", kind: .tagLink))
        #expect(keys.keyedName("旅行", kind: .tagLink) != elsewhere.keyedName("旅行", kind: .tagLink))
        #expect(keys.keyedName("旅行", kind: .tagLink) != keys.keyedName("旅行", kind: .setting))
        #expect(keys.keyedName("persona", kind: .setting).count == 64 && !keys.keyedName("persona", kind: .setting).contains("persona"))
    }

    @Test("a media file's chunks are the same each time it is sealed, and open only in their place")
    func mediaChunksAreStableAndBound() throws {
        let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let sha256 = String(repeating: "5e", count: 32)  // the file's SHA-256 as the store names it
        let chunks = stride(from: 0, to: bytes.count, by: 4_096).map { Array(bytes[$0..<min($0 + 4_096, bytes.count)]) }
        func sealAll(_ keys: DiaryKeys) throws -> [[UInt8]] {
            let media = SealedMedia(sha256: sha256, keys: keys)
            return try chunks.enumerated().map { try media.seal(chunk: $1, index: $0, isLast: $0 == chunks.count - 1) }
        }
        let first = try sealAll(keys)
        let again = try sealAll(try DiaryKeys.open(Self.made.envelope, account: "alice", passphrase: "passphrase"))
        #expect(first == again, "another device, or a resumed upload, makes the same chunks")
        let media = SealedMedia(sha256: sha256, keys: keys)
        #expect(media.objectName != sha256 && media.objectName.count == 64)
        let opened = try first.enumerated().flatMap { try media.open(chunk: $1, index: $0, isLast: $0 == first.count - 1) }
        #expect(opened == bytes)
        #expect(first.last!.count > chunks.last!.count + 16, "the last chunk is padded")

        // Moved, cut, flipped or from another diary: none opens.
        #expect(throws: SealError.doesNotOpen) { try media.open(chunk: first[1], index: 0, isLast: false) }
        #expect(throws: SealError.doesNotOpen) { try media.open(chunk: first[1], index: 1, isLast: true) }
        var flipped = first[0]
        flipped[100] ^= 0x80
        #expect(throws: SealError.doesNotOpen) { try media.open(chunk: flipped, index: 0, isLast: false) }
        let stranger = SealedMedia(sha256: sha256, keys: try DiaryKeys.create(account: "alice", passphrase: "passphrase", cost: .floor).keys)
        #expect(stranger.objectName != media.objectName)
        #expect(throws: SealError.doesNotOpen) { try stranger.open(chunk: first[0], index: 0, isLast: false) }
    }

    @Test("the key file is written owner-only and refused when others may read it")
    func theKeyFileIsOwnerOnly() throws {
        let diary = try TestDiary()
        let paths = diary.store.paths
        #expect(try KeyFile.load(paths, account: "alice") == nil)
        try KeyFile.save(keys, paths)
        let file = KeyFile.path(paths).path
        var info = stat()
        #expect(stat(file, &info) == 0 && info.st_mode & 0o777 == 0o600)
        let loaded = try #require(try KeyFile.load(paths, account: "alice"))
        #expect(loaded.keyId == keys.keyId && loaded.itemsKeys == keys.itemsKeys)
        #expect(try KeyFile.load(paths, account: "bob") == nil, "another account's keys are not these")

        chmod(file, 0o644)
        #expect(throws: SealError.keyFileExposed(file)) { try KeyFile.load(paths, account: "alice") }
        chmod(file, 0o600)
        try Data("{\"format\":1}".utf8).write(to: URL(fileURLWithPath: file))
        chmod(file, 0o600)
        #expect(throws: SealError.keyFileUnreadable(file)) { try KeyFile.load(paths, account: "alice") }
        #expect(KeyFile.remove(paths) && !FileManager.default.fileExists(atPath: file))
    }

    @Test("every error says what happened in both languages and never names a secret")
    func errorsAreSaidInBothLanguages() {
        let errors: [SealError] = [.wrongPassphrase, .wrongRecoveryKey, .recoveryKeyMistyped, .weakPassphraseCost, .envelopeUnreadable,
                                   .unknownItemsKey(3), .doesNotOpen, .keyFileExposed("/k"), .keyFileUnreadable("/k"),
                                   .keyFileUnwritable("/k"), .cryptoUnavailable]
        #expect(phrasesBreakingTheRules(errors.map(\.phrase)) == [])
        #expect(SealError.wrongPassphrase.exitStatus == ExitStatus.permission)
        #expect(SealError.doesNotOpen.exitStatus == ExitStatus.dataError)
    }
}
