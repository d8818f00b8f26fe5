import CSodium
import Foundation

/// The few libsodium primitives a sealed diary uses, over byte arrays. swift-crypto has
/// neither Argon2id nor XChaCha20-Poly1305; Debian's libsodium has both.
enum Sodium {
    /// Size of every key here (a diary key, an items key, a derived key).
    static let keyBytes = 32
    /// XChaCha20-Poly1305's nonce: 24 random bytes never repeat in practice.
    static let nonceBytes = 24
    /// The Poly1305 tag each sealed value carries.
    static let tagBytes = 16
    /// Argon2id's salt.
    static let saltBytes = 16

    // sodium_init is safe to call from several threads and more than once; a failure means
    // the system's random source is unusable, and nothing could be sealed safely.
    private static let ready: Bool = sodium_init() >= 0

    /// `count` bytes from the system's cryptographic random source.
    static func random(_ count: Int) throws(SealError) -> [UInt8] {
        guard ready else { throw .cryptoUnavailable }
        var bytes = [UInt8](repeating: 0, count: count)
        randombytes_buf(&bytes, count)
        return bytes
    }

    /// A key of `keyBytes` derived from a passphrase with Argon2id (v1.3).
    static func argon2id(passphrase: [UInt8], salt: [UInt8], operations: UInt64, memory: Int) throws(SealError) -> [UInt8] {
        guard ready, salt.count == saltBytes else { throw .cryptoUnavailable }
        var key = [UInt8](repeating: 0, count: keyBytes)
        // One byte more than the passphrase, so that even an empty one has an address.
        var chars = passphrase.map { CChar(bitPattern: $0) } + [0]
        let status = crypto_pwhash(&key, UInt64(keyBytes), chars, UInt64(passphrase.count), salt, operations, memory,
                                   crypto_pwhash_alg_argon2id13())
        sodium_memzero(&chars, chars.count)
        // The only failure is memory it could not have.
        guard status == 0 else { throw .cryptoUnavailable }
        return key
    }

    /// `message` sealed with XChaCha20-Poly1305 under `key` and a fresh random nonce, bound to
    /// `associated` (which is checked, not hidden): the nonce, then the ciphertext and tag.
    static func seal(_ message: [UInt8], key: [UInt8], associated: [UInt8]) throws(SealError) -> [UInt8] {
        let nonce = try random(nonceBytes)
        return nonce + (try seal(message, key: key, nonce: nonce, associated: associated))
    }

    /// The ciphertext and tag of `message` under a nonce the caller chose: only for a key
    /// used once per nonce (a media file's chunks, each at its own index).
    static func seal(_ message: [UInt8], key: [UInt8], nonce: [UInt8], associated: [UInt8]) throws(SealError) -> [UInt8] {
        guard ready, key.count == keyBytes, nonce.count == nonceBytes else { throw .cryptoUnavailable }
        var sealed = [UInt8](repeating: 0, count: message.count + tagBytes)
        var length: UInt64 = 0
        crypto_aead_xchacha20poly1305_ietf_encrypt(&sealed, &length, message, UInt64(message.count), associated,
                                                   UInt64(associated.count), nil, nonce, key)
        return Array(sealed.prefix(Int(length)))
    }

    /// Opens what `seal` made (nonce first); nil when the key, the associated data or any
    /// byte differs.
    static func open(_ sealed: [UInt8], key: [UInt8], associated: [UInt8]) -> [UInt8]? {
        guard sealed.count >= nonceBytes + tagBytes else { return nil }
        return open(Array(sealed.dropFirst(nonceBytes)), key: key, nonce: Array(sealed.prefix(nonceBytes)), associated: associated)
    }

    /// Opens a ciphertext and tag sealed under a known nonce; nil when anything differs.
    static func open(_ sealed: [UInt8], key: [UInt8], nonce: [UInt8], associated: [UInt8]) -> [UInt8]? {
        guard ready, key.count == keyBytes, nonce.count == nonceBytes, sealed.count >= tagBytes else { return nil }
        var message = [UInt8](repeating: 0, count: sealed.count - tagBytes)
        var length: UInt64 = 0
        let status = crypto_aead_xchacha20poly1305_ietf_decrypt(&message, &length, nil, sealed, UInt64(sealed.count), associated,
                                                                UInt64(associated.count), nonce, key)
        guard status == 0 else { return nil }
        return Array(message.prefix(Int(length)))
    }

    /// A keyed BLAKE2b hash of `input` (`count` bytes): the same for everyone holding `key`,
    /// meaningless to anyone else.
    static func keyedHash(_ input: [UInt8], key: [UInt8], count: Int = 32) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        crypto_generichash(&out, count, input, UInt64(input.count), key, key.count)
        return out
    }

    /// A subkey of `key` for one purpose: `context` is 8 characters naming it, `id` a number
    /// within it. Knowing a subkey tells nothing of the key or its other subkeys.
    static func subkey(of key: [UInt8], context: StaticString, id: UInt64) -> [UInt8] {
        precondition(context.utf8CodeUnitCount == 8 && key.count == keyBytes)
        var subkey = [UInt8](repeating: 0, count: keyBytes)
        context.withUTF8Buffer { name in
            name.withMemoryRebound(to: CChar.self) { chars in
                _ = crypto_kdf_derive_from_key(&subkey, keyBytes, id, chars.baseAddress!, key)
            }
        }
        return subkey
    }

    /// `message` padded to `size` bytes (ISO/IEC 7816-4: a 0x80 byte, then zeros); `size`
    /// must be larger than the message.
    static func pad(_ message: [UInt8], to size: Int) -> [UInt8] {
        precondition(size > message.count)
        return message + [0x80] + [UInt8](repeating: 0, count: size - message.count - 1)
    }

    /// The message inside `padded`; nil when it is not padded that way.
    static func unpad(_ padded: [UInt8]) -> [UInt8]? {
        guard let marker = padded.lastIndex(where: { $0 != 0 }), padded[marker] == 0x80 else { return nil }
        return Array(padded[..<marker])
    }
}
