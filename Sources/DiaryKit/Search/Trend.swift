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
        guard let filter = try filter(request) else { return [] }
        let names = try store.tagUses().map(\.name)
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

    private static let utc = Timestamps.calendar(TimeZone(identifier: "UTC")!)
    private static var iso: Calendar {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }

    private static func date(_ day: String) -> Date? { Timestamps.parse(day, zone: TimeZone(identifier: "UTC")!) }
    private static func day(_ date: Date) -> String { Timestamps.localDate(date, zone: TimeZone(identifier: "UTC")!) }

    /// The period a local day belongs to.
    static func period(of day: String, _ period: TrendPeriod) -> String {
        switch period {
        case .day: return day
        case .month: return String(day.prefix(7))
        case .week:
            guard let date = date(day) else { return day }
            let parts = iso.dateComponents([.yearForWeekOfYear, .weekOfYear], from: date)
            return String(format: "%04d-W%02d", parts.yearForWeekOfYear ?? 0, parts.weekOfYear ?? 0)
        }
    }

    static func firstDay(of key: String, _ period: TrendPeriod) -> String? {
        switch period {
        case .day: return key
        case .month: return key + "-01"
        case .week:
            let parts = key.split(separator: "-W")
            guard parts.count == 2, let year = Int(parts[0]), let week = Int(parts[1]),
                  let date = iso.date(from: DateComponents(weekday: 2, weekOfYear: week, yearForWeekOfYear: year)) else { return nil }
            return day(date)
        }
    }

    static func lastDay(of key: String, _ period: TrendPeriod) -> String? {
        guard let first = firstDay(of: key, period), let start = date(first) else { return nil }
        switch period {
        case .day: return first
        case .week: return utc.date(byAdding: .day, value: 6, to: start).map(day)
        case .month:
            return utc.date(byAdding: DateComponents(month: 1, day: -1), to: start).map(day)
        }
    }

    private static func nextDay(after day: String) -> String? {
        date(day).flatMap { utc.date(byAdding: .day, value: 1, to: $0) }.map(self.day)
    }
}
