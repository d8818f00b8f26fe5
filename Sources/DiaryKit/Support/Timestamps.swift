import Foundation

/// RFC 3339 times with the offset of a named time zone, and local calendar days.
public enum Timestamps {
    /// `2026-11-21T17:40:03+08:00` for the moment in the zone.
    public static func rfc3339(_ date: Date, zone: TimeZone) -> String {
        let parts = calendar(zone).dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let offset = zone.secondsFromGMT(for: date)
        let sign = offset < 0 ? "-" : "+"
        let magnitude = abs(offset) / 60
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d%@%02d:%02d",
                      parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!, parts.second!,
                      sign, magnitude / 60, magnitude % 60)
    }

    /// `2026-11-21`: the day the moment falls on in the zone.
    public static func localDate(_ date: Date, zone: TimeZone) -> String {
        let parts = calendar(zone).dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }

    /// `2026-11-21 17:40` for people to read.
    public static func readable(_ date: Date, zone: TimeZone) -> String {
        let parts = calendar(zone).dateComponents([.year, .month, .day, .hour, .minute], from: date)
        return String(format: "%04d-%02d-%02d %02d:%02d", parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!)
    }

    /// The hour of day (0–23) in the zone.
    public static func hour(_ date: Date, zone: TimeZone) -> Int {
        calendar(zone).component(.hour, from: date)
    }

    /// Parses RFC 3339 (`…T…Z`, `…T…+08:00`) and the plain `YYYY-MM-DD[ HH:MM[:SS]]` forms,
    /// the latter read in `zone`.
    public static func parse(_ text: String, zone: TimeZone) -> Date? {
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
    public static func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// The date for stored milliseconds.
    public static func date(millis: Int64) -> Date { Date(timeIntervalSince1970: Double(millis) / 1000) }
}
