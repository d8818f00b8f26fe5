import DiaryKit
import Foundation
import Testing
@testable import DiarySeal
@testable import DiaryTestSupport

// The cheapest cost the client takes, so that each Argon2id run here is a fraction of a
// second; the standard cost's time is measured in bench/, not here.
private let cheap = PassphraseCost.floor

@Suite("A sealed diary's keys")
struct DiaryKeysTests {
    @Test("the passphrase and the recovery key each open the diary; wrong ones and other accounts do not")
    func passphraseAndRecoveryKeyOpenTheDiary() throws {
        let made = try DiaryKeys.create(account: "alice", passphrase: "correct horse battery", cost: cheap)
        let envelope = try KeyEnvelope(json: try #require(JSON.parse(Data(made.envelope.json.serialized.utf8))))
        #expect(envelope == made.envelope, "the envelope survives its JSON form")

        let byPassphrase = try DiaryKeys.open(envelope, account: "alice", passphrase: "correct horse battery")
        let byRecovery = try DiaryKeys.open(envelope, account: "alice", recoveryKey: try RecoveryKey(made.recoveryKey.text))
        #expect(byPassphrase.keyId == made.keys.keyId && byRecovery.keyId == made.keys.keyId)
        #expect(byPassphrase.diaryKey == made.keys.diaryKey && byRecovery.itemsKeys == made.keys.itemsKeys)

        #expect(throws: SealError.wrongPassphrase) { try DiaryKeys.open(envelope, account: "alice", passphrase: "correct horse batterz") }
        #expect(throws: SealError.wrongPassphrase) { try DiaryKeys.open(envelope, account: "bob", passphrase: "correct horse battery") }
        let other = try DiaryKeys.create(account: "alice", passphrase: "another one", cost: cheap).recoveryKey
        #expect(throws: SealError.wrongRecoveryKey) { try DiaryKeys.open(envelope, account: "alice", recoveryKey: other) }

        // Nothing secret is in the envelope's JSON.
        let text = envelope.json.serialized
        for secret in [made.keys.diaryKey] + Array(made.keys.itemsKeys.values) + [made.recoveryKey.bytes] {
            #expect(!text.contains(Data(secret).base64EncodedString()) && !text.contains(Hex.string(secret)))
        }
        #expect(!text.contains("correct horse"))
    }

    @Test("an envelope whose cost was lowered or changed is refused, even with the right passphrase")
    func aLoweredCostIsRefused() throws {
        let made = try DiaryKeys.create(account: "alice", passphrase: "pass word", cost: PassphraseCost(operations: 3, memory: 64 << 20))
        var lowered = made.envelope
        lowered.cost = PassphraseCost(operations: 1, memory: 8 << 20)
        #expect(throws: SealError.weakPassphraseCost) { try DiaryKeys.open(lowered, account: "alice", passphrase: "pass word") }
        // Changed but still above the floor: the wrapped key is bound to its cost and salt.
        var changed = made.envelope
        changed.cost = cheap
        #expect(throws: SealError.wrongPassphrase) { try DiaryKeys.open(changed, account: "alice", passphrase: "pass word") }
        #expect(throws: SealError.weakPassphraseCost) {
            try DiaryKeys.create(account: "alice", passphrase: "pass word", cost: PassphraseCost(operations: 1, memory: 1 << 20))
        }
    }

    @Test("a new passphrase changes only the passphrase's wrapping; the old one stops opening")
    func changingThePassphraseRewrapsOnlyTheDiaryKey() throws {
        let made = try DiaryKeys.create(account: "alice", passphrase: "old words here", cost: cheap)
        let sealed = try made.keys.seal(Array("a page".utf8), SealBinding(kind: .entry, id: "e1", part: "content", clock: "c1"))
        let changed = try made.keys.rewrapped(made.envelope, passphrase: "new words", cost: cheap)
        #expect(changed.byRecoveryKey == made.envelope.byRecoveryKey && changed.itemsKeys == made.envelope.itemsKeys)
        #expect(changed.keyId == made.envelope.keyId && changed.salt != made.envelope.salt)
        #expect(throws: SealError.wrongPassphrase) { try DiaryKeys.open(changed, account: "alice", passphrase: "old words here") }
        let reopened = try DiaryKeys.open(changed, account: "alice", passphrase: "new words")
        #expect(try reopened.open(sealed, SealBinding(kind: .entry, id: "e1", part: "content", clock: "c1")) == Array("a page".utf8))
    }

    @Test("after a rotation old parts still open and new ones carry the new key's number")
    func rotationKeepsOldPartsReadable() throws {
        var made = try DiaryKeys.create(account: "alice", passphrase: "passphrase", cost: cheap)
        let binding = SealBinding(kind: .message, id: "m1", part: "row", clock: "c1")
        let before = try made.keys.seal(Array("before".utf8), binding)
        let envelope = try made.keys.rotate(made.envelope)
        let after = try made.keys.seal(Array("after".utf8), binding)
        #expect(before.hasPrefix("ib1.1.") && after.hasPrefix("ib1.2.") && envelope.currentItemsKey == 2)

        // Another device opens both with the rotated envelope; one that has only the old keys
        // says which key it lacks.
        let other = try DiaryKeys.open(envelope, account: "alice", passphrase: "passphrase")
        #expect(try other.open(before, binding) == Array("before".utf8) && other.open(after, binding) == Array("after".utf8))
        let stale = try DiaryKeys.open(made.envelope, account: "alice", passphrase: "passphrase")
        #expect(throws: SealError.unknownItemsKey(2)) { try stale.open(after, binding) }
    }

    @Test("a recovery key reads back however it is typed, and a typo is caught")
    func recoveryKeysAreTypedForgivingly() throws {
        let key = try RecoveryKey.make()
        let text = key.text
        #expect(text.count == 14 * 4 + 13 && text.split(separator: "-").allSatisfy { $0.count == 4 })
        #expect(try RecoveryKey(text.lowercased().replacingOccurrences(of: "-", with: " ")) == key)
        #expect(try RecoveryKey(text.replacingOccurrences(of: "0", with: "O").replacingOccurrences(of: "1", with: "l")) == key)
        // Each single-letter change is caught by the checksum (or is not a letter of the alphabet).
        var caught = 0, tried = 0
        for (offset, character) in text.enumerated() where character != "-" {
            let replacement: Character = character == "7" ? "8" : "7"
            var typo = Array(text)
            typo[offset] = replacement
            tried += 1
            if (try? RecoveryKey(String(typo))) == nil { caught += 1 }
        }
        #expect(caught == tried)
        #expect(throws: SealError.recoveryKeyMistyped) { try RecoveryKey(String(text.dropLast())) }
    }
}
