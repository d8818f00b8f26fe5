import Foundation

/// What a photo's EXIF block says about when and where it was taken.
struct ExifInfo: Sendable, Equatable {
    var takenAt: Date?
    var latitude: Double?
    var longitude: Double?
}

/// Reads capture time and GPS position from a TIFF-structured EXIF block.
///
/// The input comes from arbitrary files, so every offset is checked and anything malformed yields nil.
enum ExifReader {
    private enum Tag {
        static let exifIFD: UInt16 = 0x8769
        static let gpsIFD: UInt16 = 0x8825
        static let dateTimeOriginal: UInt16 = 0x9003
        static let dateTimeDigitized: UInt16 = 0x9004
        static let offsetTimeOriginal: UInt16 = 0x9011
        static let offsetTimeDigitized: UInt16 = 0x9012
        static let gpsLatitudeRef: UInt16 = 0x0001
        static let gpsLatitude: UInt16 = 0x0002
        static let gpsLongitudeRef: UInt16 = 0x0003
        static let gpsLongitude: UInt16 = 0x0004
    }

    /// Capture time and position from the TIFF block of an `Exif` APP1 segment (after `Exif\0\0`).
    static func read(tiff bytes: [UInt8], timeZone: TimeZone) -> ExifInfo {
        guard let tiff = TIFF(bytes), let ifd0 = tiff.directory(at: tiff.firstDirectoryOffset) else {
            return ExifInfo()
        }
        var info = ExifInfo()
        if let offset = ifd0[Tag.exifIFD].flatMap(tiff.pointer), let exif = tiff.directory(at: offset) {
            let original = exif[Tag.dateTimeOriginal].flatMap(tiff.ascii)
                .flatMap { parseDate($0, offset: exif[Tag.offsetTimeOriginal].flatMap(tiff.ascii), timeZone: timeZone) }
            info.takenAt = original ?? exif[Tag.dateTimeDigitized].flatMap(tiff.ascii)
                .flatMap { parseDate($0, offset: exif[Tag.offsetTimeDigitized].flatMap(tiff.ascii), timeZone: timeZone) }
        }
        if let offset = ifd0[Tag.gpsIFD].flatMap(tiff.pointer), let gps = tiff.directory(at: offset) {
            let latitude = coordinate(gps[Tag.gpsLatitude].flatMap(tiff.rationals),
                                      reference: gps[Tag.gpsLatitudeRef].flatMap(tiff.ascii), negative: "S", limit: 90)
            let longitude = coordinate(gps[Tag.gpsLongitude].flatMap(tiff.rationals),
                                       reference: gps[Tag.gpsLongitudeRef].flatMap(tiff.ascii), negative: "W", limit: 180)
            // A position is only useful whole.
            if let latitude, let longitude {
                info.latitude = latitude
                info.longitude = longitude
            }
        }
        return info
    }

    /// Parses `YYYY:MM:DD HH:MM:SS`, placed by an `±HH:MM` offset when given, else in `timeZone`.
    static func parseDate(_ text: String, offset: String?, timeZone: TimeZone) -> Date? {
        let scalars = Array(text.trimmingCharacters(in: .whitespaces).utf8)
        guard scalars.count >= 19 else { return nil }
        func number(_ start: Int, _ length: Int) -> Int? {
            var value = 0
            for byte in scalars[start..<start + length] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        let separators: [(Int, UInt8)] = [(4, 0x3A), (7, 0x3A), (10, 0x20), (13, 0x3A), (16, 0x3A)]
        guard separators.allSatisfy({ scalars[$0.0] == $0.1 }),
              let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
              let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
              year >= 1800, (1...12).contains(month), (1...31).contains(day),
              (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }

        var zone = timeZone
        if let offset, let seconds = parseOffset(offset), let fixed = TimeZone(secondsFromGMT: seconds) {
            zone = fixed
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let components = DateComponents(year: year, month: month, day: day,
                                        hour: hour, minute: minute, second: min(second, 59))
        guard let date = calendar.date(from: components) else { return nil }
        // Calendar quietly rolls 31 February into March; such a date is not what the camera meant.
        let back = calendar.dateComponents([.year, .month, .day], from: date)
        guard back.year == year, back.month == month, back.day == day else { return nil }
        return date
    }

    /// Seconds east of UTC for `+08:00`, `-0530` and the like.
    static func parseOffset(_ text: String) -> Int? {
        let bytes = Array(text.trimmingCharacters(in: .whitespaces).utf8)
        guard let sign = bytes.first, sign == 0x2B || sign == 0x2D else { return nil }
        let digits = bytes.dropFirst().filter { $0 != 0x3A }
        guard digits.count == 4, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        let values = digits.map { Int($0 - 0x30) }
        let hours = values[0] * 10 + values[1]
        let minutes = values[2] * 10 + values[3]
        guard hours <= 14, minutes < 60 else { return nil }
        let seconds = hours * 3600 + minutes * 60
        return sign == 0x2D ? -seconds : seconds
    }

    private static func coordinate(_ parts: [Double]?, reference: String?, negative: String, limit: Double) -> Double? {
        guard let parts, parts.count >= 3 else { return nil }
        let degrees = parts[0] + parts[1] / 60 + parts[2] / 3600
        guard degrees.isFinite, degrees >= 0, degrees <= limit else { return nil }
        let sign: Double = reference?.trimmingCharacters(in: .whitespaces).uppercased() == negative ? -1 : 1
        return sign * degrees
    }
}

/// One IFD entry, as stored.
private struct TIFFEntry {
    var type: UInt16
    var count: UInt32
    /// Where the value starts: inside the entry when it fits in four bytes, else at the stored offset.
    var valueOffset: Int
}

/// A bounds-checked view of a TIFF block in either byte order.
private struct TIFF {
    let bytes: [UInt8]
    let littleEndian: Bool
    private(set) var firstDirectoryOffset: Int

    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 8 else { return nil }
        self.bytes = bytes
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return nil
        }
        firstDirectoryOffset = 0
        guard let magic = uint16(at: 2), magic == 42, let first = uint32(at: 4) else { return nil }
        firstDirectoryOffset = Int(first)
    }

    private func has(_ length: Int, at offset: Int) -> Bool {
        offset >= 0 && length >= 0 && offset <= bytes.count && length <= bytes.count - offset
    }

    func uint16(at offset: Int) -> UInt16? {
        guard has(2, at: offset) else { return nil }
        let a = UInt16(bytes[offset]), b = UInt16(bytes[offset + 1])
        return littleEndian ? b << 8 | a : a << 8 | b
    }

    func uint32(at offset: Int) -> UInt32? {
        guard has(4, at: offset) else { return nil }
        let window = bytes[offset..<offset + 4]
        let ordered = littleEndian ? Array(window.reversed()) : Array(window)
        return ordered.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// The entries of the directory at `offset`, by tag; nil when the directory itself does not fit.
    func directory(at offset: Int) -> [UInt16: TIFFEntry]? {
        guard offset >= 8, let count = uint16(at: offset), has(Int(count) * 12, at: offset + 2) else { return nil }
        var entries: [UInt16: TIFFEntry] = [:]
        for index in 0..<Int(count) {
            let start = offset + 2 + index * 12
            guard let tag = uint16(at: start), let type = uint16(at: start + 2), let count = uint32(at: start + 4)
            else { return nil }
            let size = TIFF.elementSize(type).map { UInt64($0) * UInt64(count) }
            guard let size else { continue }
            let valueOffset: Int
            if size <= 4 {
                valueOffset = start + 8
            } else {
                guard let stored = uint32(at: start + 8), size <= UInt64(bytes.count), has(Int(size), at: Int(stored))
                else { continue }
                valueOffset = Int(stored)
            }
            // The first entry wins, should a broken writer repeat a tag.
            if entries[tag] == nil { entries[tag] = TIFFEntry(type: type, count: count, valueOffset: valueOffset) }
        }
        return entries
    }

    private static func elementSize(_ type: UInt16) -> Int? {
        switch type {
        case 1, 2, 6, 7: return 1
        case 3, 8: return 2
        case 4, 9, 11: return 4
        case 5, 10, 12: return 8
        default: return nil
        }
    }

    /// The offset a LONG (or IFD-typed) entry points at.
    func pointer(_ entry: TIFFEntry) -> Int? {
        guard entry.count >= 1 else { return nil }
        switch entry.type {
        case 4, 13: return uint32(at: entry.valueOffset).map(Int.init)
        case 3: return uint16(at: entry.valueOffset).map(Int.init)
        default: return nil
        }
    }

    /// The text of an ASCII entry, up to its first NUL.
    func ascii(_ entry: TIFFEntry) -> String? {
        guard entry.type == 2 || entry.type == 7, has(Int(entry.count), at: entry.valueOffset) else { return nil }
        let raw = bytes[entry.valueOffset..<entry.valueOffset + Int(entry.count)].prefix { $0 != 0 }
        guard raw.allSatisfy({ $0 < 0x80 }) else { return nil }
        return String(decoding: raw, as: UTF8.self)
    }

    /// The values of a RATIONAL or SRATIONAL entry; nil when any denominator is zero.
    func rationals(_ entry: TIFFEntry) -> [Double]? {
        guard entry.type == 5 || entry.type == 10, entry.count >= 1, entry.count <= 16,
              has(Int(entry.count) * 8, at: entry.valueOffset) else { return nil }
        var values: [Double] = []
        for index in 0..<Int(entry.count) {
            guard let numerator = uint32(at: entry.valueOffset + index * 8),
                  let denominator = uint32(at: entry.valueOffset + index * 8 + 4), denominator != 0 else { return nil }
            if entry.type == 10 {
                values.append(Double(Int32(bitPattern: numerator)) / Double(Int32(bitPattern: denominator)))
            } else {
                values.append(Double(numerator) / Double(denominator))
            }
        }
        return values
    }
}
