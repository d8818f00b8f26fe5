/// Sizes for people, in decimal units (1 KB = 1000 bytes), both ways.
package enum ByteCount {
    /// `1.5 GB`.
    package static func text(_ bytes: Int64) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : "\((value * 10).rounded() / 10) \(units[unit])"
    }

    /// `2G`, `500MB`, `1.5 GB`, `1234`: bytes, or nil for anything else (or over 2^63 - 1).
    package static func parse(_ text: String) -> Int64? {
        var digits = Substring(text.uppercased().filter { $0 != " " })
        if digits.hasSuffix("B") { digits = digits.dropLast() }
        var scale = 1.0
        if let last = digits.last, let index = "KMGT".firstIndex(of: last) {
            scale = [1e3, 1e6, 1e9, 1e12]["KMGT".distance(from: "KMGT".startIndex, to: index)]
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              let number = Double(digits), number.isFinite else { return nil }
        let bytes = (number * scale).rounded()
        return bytes < 9.2e18 ? Int64(bytes) : nil
    }
}
