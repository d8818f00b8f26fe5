import Foundation

/// Time-ordered identifiers (RFC 9562 UUIDv7), lowercase, made on the device.
package enum UUIDv7 {
    /// A new UUIDv7 for the given moment.
    package static func make(at date: Date = Date()) -> String {
        let millis = UInt64(max(0, date.timeIntervalSince1970 * 1000))
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in 0..<6 { bytes[i] = UInt8((millis >> (8 * (5 - UInt64(i)))) & 0xff) }
        // Two draws of the system generator give the 80 random bits; a draw per byte made
        // a system call per byte.
        var random = SystemRandomNumberGenerator()
        let high = random.next() as UInt64, low = random.next() as UInt64
        for i in 6..<8 { bytes[i] = UInt8(truncatingIfNeeded: high >> (8 * UInt64(i - 6))) }
        for i in 8..<16 { bytes[i] = UInt8(truncatingIfNeeded: low >> (8 * UInt64(i - 8))) }
        bytes[6] = (bytes[6] & 0x0f) | 0x70
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// True for a string shaped like a lowercase UUID.
    package static func isWellFormed(_ text: String) -> Bool {
        let pattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
        return text.wholeMatch(of: pattern) != nil
    }
}
