/// Keys of the person's own order of pages (`--sort manual`): strings of `0-9a-z` that sort
/// by their bytes, so a page moves between two neighbours by taking a key between theirs —
/// one small write, whatever the size of the diary. A page never moved sorts by a key made
/// from when it happened (newest first): a moved page keeps the place it was given, and a
/// new page takes its place by date among the pages never moved.
package enum OrderKey {
    private static let digits = Array("0123456789abcdefghijklmnopqrstuvwxyz".utf8)
    private static let base = 36

    /// A key sorting strictly between `low` and `high` (nil: no bound on that side).
    /// Keys never end in `0`, so there is always room between two of them.
    package static func between(_ low: String?, _ high: String?) -> String {
        if let low, let high, low >= high { return between(low, nil) }
        let lowDigits = (low ?? "").utf8.compactMap(value)
        let highDigits = high.map { $0.utf8.compactMap(value) }
        var result: [UInt8] = []
        var bounded = highDigits != nil
        var index = 0
        while true {
            let lower = index < lowDigits.count ? lowDigits[index] : 0
            let upper = bounded ? (index < highDigits!.count ? highDigits![index] : 0) : base
            if upper - lower > 1 {
                result.append(digits[(lower + upper) / 2])
                return String(decoding: result, as: UTF8.self)
            }
            result.append(digits[lower])
            // Once the key is below high at this digit, later digits are free up to the top.
            if upper > lower { bounded = false }
            index += 1
        }
    }

    /// The key a page that was never moved sorts by: newer moments first.
    package static func fromMoment(millis: Int64) -> String {
        let descending = max(0, 9_999_999_999_999 - max(0, millis))
        return "d" + String(repeating: "0", count: max(0, 13 - String(descending).count)) + String(descending) + "i"
    }

    /// The same key as SQL over an entry row aliased `e`.
    package static let effectiveSQL = "coalesce(e.order_key, 'd' || printf('%013d', max(0, 9999999999999 - max(0, e.occurred_at))) || 'i')"

    /// True for a key this diary could have made (what a record may carry).
    package static func isValid(_ key: String) -> Bool {
        (1...64).contains(key.utf8.count) && key.utf8.allSatisfy { value($0) != nil } && key.utf8.last != UInt8(ascii: "0")
    }

    private static func value(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return Int(byte - UInt8(ascii: "a")) + 10
        default: return nil
        }
    }
}
