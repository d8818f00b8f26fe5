/// Folds Traditional Chinese characters to their Simplified form, so that 開心 and 开心 are
/// one word to search. The table comes from Unicode's Han database (see the generator).
package enum ChineseFolding {
    /// The folded form of one character (itself when it has none).
    @inline(__always)
    package static func fold(_ scalar: UInt32) -> UInt32 {
        if scalar < 0x1_0000 {
            switch table.basic[Int(scalar)] {
            case 0: return scalar
            case Table.elsewhere: break
            case let folded: return UInt32(folded)
            }
        }
        return table.supplementary[scalar] ?? scalar
    }

    /// The folded form of a text.
    package static func fold(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { out.append(Unicode.Scalar(fold(scalar.value)) ?? scalar) }
        return String(out)
    }

    // The basic plane is looked up in a flat array (most of a Chinese text goes through here
    // while indexing); the few characters beyond it in a dictionary.
    private struct Table: Sendable {
        /// Marks a basic-plane character whose folded form lies beyond the plane.
        static let elsewhere: UInt16 = 0xFFFF
        var basic = [UInt16](repeating: 0, count: 0x1_0000)
        var supplementary: [UInt32: UInt32] = [:]
    }

    private static let table: Table = {
        var table = Table()
        var iterator = pairs.unicodeScalars.makeIterator()
        while let from = iterator.next(), let to = iterator.next() {
            if from.value < 0x1_0000 && to.value < 0x1_0000 {
                table.basic[Int(from.value)] = UInt16(to.value)
            } else {
                if from.value < 0x1_0000 { table.basic[Int(from.value)] = Table.elsewhere }
                table.supplementary[from.value] = to.value
            }
        }
        return table
    }()
}
