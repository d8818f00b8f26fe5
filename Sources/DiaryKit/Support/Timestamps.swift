import Foundation

/// RFC 3339 times with the offset of a named time zone, and local calendar days.
public enum Timestamps {
    /// The moments a diary takes: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z, what every
    /// part of the system (RFC 3339 with four-digit years, SQLite, Postgres, Day One, jrnl)
    /// writes and reads back the same. A time outside it is not read at all, so it cannot
    /// enter by an import, an edit or a pull and fail later.
    public static let supported = Date(timeIntervalSince1970: -62_135_596_800) ... Date(timeIntervalSince1970: 253_402_300_799.999)

    /// `2026-11-21T17:40:03+08:00` for the moment in the zone.
    public static func rfc3339(_ date: Date, zone: TimeZone) -> String {
        written(CivilTime(date, zone: zone), millis: nil)
    }

    /// `2026-11-21T17:40:03.120+08:00`: exact to the millisecond, the precision times are stored in.
    public static func rfc3339Millis(_ date: Date, zone: TimeZone) -> String {
        let millis = millis(date)
        let (seconds, fraction) = millis.quotientAndRemainder(dividingBy: 1000)
        let (whole, milli) = fraction < 0 ? (seconds - 1, fraction + 1000) : (seconds, fraction)
        return written(CivilTime(Date(timeIntervalSince1970: Double(whole)), zone: zone), millis: Int(milli))
    }

    /// A civil time as RFC 3339 text, put together byte by byte: a record sent to the sync
    /// server carries a score of times, and joining a dozen small strings for each was a
    /// tenth of writing it.
    private static func written(_ time: CivilTime, millis: Int?) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(29)
        func put(_ value: Int, digits: Int) {
            var divisor = 1
            for _ in 1..<digits { divisor *= 10 }
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        if (0...9999).contains(time.year) {
            put(time.year, digits: 4)
            bytes.append(UInt8(ascii: "-"))
            put(time.month, digits: 2)
            bytes.append(UInt8(ascii: "-"))
            put(time.dayOfMonth, digits: 2)
        } else {
            bytes.append(contentsOf: time.day.utf8)
        }
        bytes.append(UInt8(ascii: "T"))
        put(time.hour, digits: 2)
        bytes.append(UInt8(ascii: ":"))
        put(time.minute, digits: 2)
        bytes.append(UInt8(ascii: ":"))
        put(time.second, digits: 2)
        if let millis {
            bytes.append(UInt8(ascii: "."))
            put(millis, digits: 3)
        }
        let magnitude = abs(time.offsetSeconds) / 60
        bytes.append(UInt8(ascii: time.offsetSeconds < 0 ? "-" : "+"))
        put(magnitude / 60, digits: 2)
        bytes.append(UInt8(ascii: ":"))
        put(magnitude % 60, digits: 2)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads `YYYY-MM-DDTHH:MM:SS[.fff…](Z|±HH:MM)` by arithmetic (archives hold many of
    /// them; a date formatter per value would dominate a restore); other forms go to `parse`.
    public static func parseRFC3339(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[start..<start + count] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard bytes.count >= 20, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54 || bytes[10] == 0x20,
              bytes[13] == 0x3A, bytes[16] == 0x3A,
              let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
              let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else {
            return parse(text, zone: TimeZone(identifier: "UTC")!)
        }
        var index = 19
        var millis = 0
        if index < bytes.count, bytes[index] == 0x2E {
            index += 1
            var scale = 100
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
                millis += Int(bytes[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
        }
        var offset = 0
        if index < bytes.count, bytes[index] == 0x5A || bytes[index] == 0x7A {
            index += 1
        } else if index + 6 == bytes.count, bytes[index] == 0x2B || bytes[index] == 0x2D, bytes[index + 3] == 0x3A,
                  let hours = number(index + 1, 2), let minutes = number(index + 4, 2) {
            offset = (hours * 3600 + minutes * 60) * (bytes[index] == 0x2D ? -1 : 1)
            index += 6
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        // Days from 1970-01-01 to the civil date (the inverse of CivilTime's cycle arithmetic).
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second - offset)
        let parsed = date(millis: seconds * 1000 + Int64(millis))
        return supported.contains(parsed) ? parsed : nil
    }

    /// `2026-11-21`: the day the moment falls on in the zone.
    public static func localDate(_ date: Date, zone: TimeZone) -> String {
        CivilTime(date, zone: zone).day
    }

    /// `2026-11-21 17:40` for people to read.
    public static func readable(_ date: Date, zone: TimeZone) -> String {
        let time = CivilTime(date, zone: zone)
        return "\(time.day) \(pad(time.hour)):\(pad(time.minute))"
    }

    /// `YYYY-MM-DD` for a calendar day.
    public static func day(_ year: Int, _ month: Int, _ day: Int) -> String {
        let digits = String(year)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits + "-\(pad(month))-\(pad(day))"
    }

    /// Two digits, zero-padded (String(format:) is locale-aware and slow at start-up).
    package static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// The wall-clock reading of a moment in a zone, by arithmetic on the zone's offset:
    /// printing many times this way costs no calendar objects.
    struct CivilTime {
        let year: Int, month: Int, dayOfMonth: Int, hour: Int, minute: Int, second: Int, offsetSeconds: Int

        init(_ date: Date, zone: TimeZone) {
            offsetSeconds = zone.secondsFromGMT(for: date)
            // Clamped to the supported years: a moment outside them (never stored, but a date
            // computed from one) is written as the nearest end, never a trap.
            let clamped = min(max(date.timeIntervalSince1970, supported.lowerBound.timeIntervalSince1970),
                              supported.upperBound.timeIntervalSince1970)
            let local = Int(clamped.rounded(.down)) + offsetSeconds
            let (days, secondOfDay) = local.quotientAndRemainder(dividingBy: 86_400)
            let (dayNumber, seconds) = secondOfDay < 0 ? (days - 1, secondOfDay + 86_400) : (days, secondOfDay)
            hour = seconds / 3600
            minute = seconds % 3600 / 60
            second = seconds % 60
            // Days since 1970-01-01 to a Gregorian date, counting in 400-year cycles of
            // 146,097 days that start on 1 March (so leap days fall at the end of a year).
            let shifted = dayNumber + 719_468
            let cycle = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
            let dayOfCycle = shifted - cycle * 146_097
            let yearOfCycle = (dayOfCycle - dayOfCycle / 1460 + dayOfCycle / 36_524 - dayOfCycle / 146_096) / 365
            let dayOfYear = dayOfCycle - (365 * yearOfCycle + yearOfCycle / 4 - yearOfCycle / 100)
            let marchMonth = (5 * dayOfYear + 2) / 153
            dayOfMonth = dayOfYear - (153 * marchMonth + 2) / 5 + 1
            month = marchMonth < 10 ? marchMonth + 3 : marchMonth - 9
            year = yearOfCycle + cycle * 400 + (month <= 2 ? 1 : 0)
        }

        /// `YYYY-MM-DD`.
        var day: String { Timestamps.day(year, month, dayOfMonth) }
    }

    /// The hour of day (0–23) in the zone.
    public static func hour(_ date: Date, zone: TimeZone) -> Int {
        calendar(zone).component(.hour, from: date)
    }

    /// Parses RFC 3339 (`…T…Z`, `…T…+08:00`) and the plain `YYYY-MM-DD[ HH:MM[:SS]]` forms,
    /// the latter read in `zone`.
    public static func parse(_ text: String, zone: TimeZone) -> Date? {
        guard let date = parseAnyYear(text, zone: zone), supported.contains(date) else { return nil }
        return date
    }

    private static func parseAnyYear(_ text: String, zone: TimeZone) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime]
        if let date = iso.date(from: trimmed) { return date }
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = iso.date(from: trimmed) { return date }
        let pattern = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?$/
        guard let match = trimmed.wholeMatch(of: pattern) else { return nil }
        var parts = DateComponents()
        parts.year = Int(match.1); parts.month = Int(match.2); parts.day = Int(match.3)
        parts.hour = match.4.flatMap { Int($0) } ?? 0
        parts.minute = match.5.flatMap { Int($0) } ?? 0
        parts.second = match.6.flatMap { Int($0) } ?? 0
        guard parts.isValidDate(in: calendar(zone)) else { return nil }
        return calendar(zone).date(from: parts)
    }

    /// A Gregorian calendar in the zone.
    public static func calendar(_ zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }

    /// Milliseconds since 1970, the form times are stored in.
    public static func millis(_ date: Date) -> Int64 {
        // Int64(exactly:) so that a date beyond any calendar (never stored) cannot trap.
        Int64(exactly: (date.timeIntervalSince1970 * 1000).rounded()) ?? (date.timeIntervalSince1970 < 0 ? .min : .max)
    }

    /// The date for stored milliseconds.
    public static func date(millis: Int64) -> Date { Date(timeIntervalSince1970: Double(millis) / 1000) }
}
