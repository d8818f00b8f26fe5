import Foundation

/// How long one step of a trend is.
public enum TrendPeriod: String, Sendable, CaseIterable {
    case day, week, month
}

/// The feelings of one period: how many pages carried each feeling tag.
public struct TrendPoint: Sendable, Equatable {
    /// `2026-11-21`, `2026-W47` (ISO week) or `2026-11`.
    public var period: String
    /// Its first and last local day.
    public var from: String
    public var to: String
    /// Feeling and count, most first (then by name); empty for a period without any.
    public var feelings: [(feeling: String, count: Int)]

    public var total: Int { feelings.reduce(0) { $0 + $1.count } }

    public static func == (lhs: TrendPoint, rhs: TrendPoint) -> Bool {
        lhs.period == rhs.period && lhs.from == rhs.from && lhs.to == rhs.to
            && lhs.feelings.map(\.feeling) == rhs.feelings.map(\.feeling) && lhs.feelings.map(\.count) == rhs.feelings.map(\.count)
    }
}

extension Finder {
    /// Feelings over time: per period, how many pages carried each feeling tag (a tag the
    /// companion's feeling words name, in either language: 快樂 counts as 開心), within the
    /// request's tags and dates. Periods without feelings between the first and the last
    /// (or the request's dates) are there too, empty, so a chart keeps its time scale.
    public func trend(by period: TrendPeriod, _ request: FindRequest, language: Language) throws -> [TrendPoint] {
        var request = request
        request.keywords = nil
        guard var filter = try filter(request) else { return [] }
        filter.writtenMomentsOnly = true
        let names = try store.tags.uses().map(\.name)
        let feelings = Dictionary(uniqueKeysWithValues: names.compactMap { name in Lexicon.feeling(ofTag: name, language: language).map { (name, $0) } })
        guard !feelings.isEmpty else { return [] }
        var counts: [String: [String: Int]] = [:]
        for (day, tag, count) in try SearchEngine(store: store).tagDayCounts(filter, tags: Array(feelings.keys), monthly: period == .month) {
            counts[period == .month ? day : Self.period(of: day, period), default: [:]][feelings[tag]!, default: 0] += count
        }
        return Self.points(counts, period, from: filter.fromDay, to: filter.toDay)
    }

    /// The same for pages at hand (an export's): each page's local day and tags.
    package static func trend(of pages: [(day: String, tags: [String])], by period: TrendPeriod, language: Language) -> [TrendPoint] {
        var counts: [String: [String: Int]] = [:]
        for page in pages {
            for feeling in page.tags.compactMap({ Lexicon.feeling(ofTag: $0, language: language) }) {
                counts[Self.period(of: page.day, period), default: [:]][feeling, default: 0] += 1
            }
        }
        return points(counts, period, from: nil, to: nil)
    }

    /// Every period from the first to the last (the given days, else those with feelings),
    /// the empty ones included.
    private static func points(_ counts: [String: [String: Int]], _ period: TrendPeriod, from: String?, to: String?) -> [TrendPoint] {
        guard let first = from ?? counts.keys.min().flatMap({ firstDay(of: $0, period) }),
              let last = to ?? counts.keys.max().flatMap({ lastDay(of: $0, period) }) else { return [] }
        var points: [TrendPoint] = []
        var key = Self.period(of: first, period)
        let end = Self.period(of: last, period)
        while let start = firstDay(of: key, period), let finish = lastDay(of: key, period) {
            let found = (counts[key] ?? [:]).sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { (feeling: $0.key, count: $0.value) }
            points.append(TrendPoint(period: key, from: start, to: finish, feelings: found))
            if key == end || points.count > 100_000 { break }
            guard let next = nextDay(after: finish) else { break }
            key = Self.period(of: next, period)
        }
        return points
    }

    // Day arithmetic on the civil calendar in plain integers (days since 1970-01-01): a
    // trend walks hundreds of periods, and date formatters cost more than the counting.

    /// The days since 1970-01-01 of a `YYYY-MM-DD` day.
    static func dayNumber(_ day: String) -> Int? {
        let parts = day.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return nil }
        return dayNumber(parts[0], parts[1], parts[2])
    }

    private static func dayNumber(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        return era * 146_097 + yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear - 719_468
    }

    private static let utc = TimeZone(identifier: "UTC")!

    private static func civil(_ number: Int) -> (year: Int, month: Int, day: Int) {
        let time = Timestamps.CivilTime(Date(timeIntervalSince1970: Double(number) * 86_400), zone: utc)
        return (time.year, time.month, time.dayOfMonth)
    }

    private static func day(_ number: Int) -> String {
        let (year, month, day) = civil(number)
        return Timestamps.day(year, month, day)
    }

    /// Monday is 0.
    private static func weekday(_ number: Int) -> Int { ((number + 3) % 7 + 7) % 7 }

    /// The period a local day belongs to.
    static func period(of day: String, _ period: TrendPeriod) -> String {
        switch period {
        case .day: return day
        case .month: return String(day.prefix(7))
        case .week:
            guard let number = dayNumber(day) else { return day }
            // An ISO week belongs to the year of its Thursday.
            let thursday = number - weekday(number) + 3
            let year = civil(thursday).year
            return Timestamps.day(year, 1, 1).prefix(4) + "-W" + Timestamps.pad((thursday - dayNumber(year, 1, 1)) / 7 + 1)
        }
    }

    static func firstDay(of key: String, _ period: TrendPeriod) -> String? {
        switch period {
        case .day: return key
        case .month: return key + "-01"
        case .week:
            let parts = key.split(separator: "-W")
            guard parts.count == 2, let year = Int(parts[0]), let week = Int(parts[1]) else { return nil }
            let fourth = dayNumber(year, 1, 4)
            return day(fourth - weekday(fourth) + (week - 1) * 7)
        }
    }

    static func lastDay(of key: String, _ period: TrendPeriod) -> String? {
        guard let first = firstDay(of: key, period), let start = dayNumber(first) else { return nil }
        switch period {
        case .day: return first
        case .week: return day(start + 6)
        case .month:
            let (year, month, _) = civil(start)
            return day(dayNumber(month == 12 ? year + 1 : year, month == 12 ? 1 : month + 1, 1) - 1)
        }
    }

    private static func nextDay(after day: String) -> String? { dayNumber(day).map { self.day($0 + 1) } }
}
