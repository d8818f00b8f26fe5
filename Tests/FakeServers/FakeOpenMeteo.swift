import Foundation
import Synchronization

/// An Open-Meteo-compatible weather service answering `GET /v1/forecast` and `GET /v1/archive`
/// with `current` and `hourly` variables temperature_2m and weather_code, every hour the same weather
/// unless some UTC hours are given their own. Like the real service, an hourly series asked in a
/// zone is laid out at that zone's offset of today, with no daylight-saving switch.
public final class FakeOpenMeteo: Sendable {
    public let server: FakeHTTPServer
    private let core: Core

    /// "http://127.0.0.1:PORT/v1" — serves both the forecast and the archive API.
    public var baseURL: String { server.baseURL + "/v1" }

    /// Every request received so far, in arrival order.
    public var requests: [RecordedRequest] { server.requests }

    private init(server: FakeHTTPServer, core: Core) {
        self.server = server
        self.core = core
    }

    /// Starts the service; every reported hour has this WMO weather code and temperature (°C),
    /// but the UTC hours in `codeByUTCHour`, which have theirs.
    public static func start(weatherCode: Int = 61, temperature: Double = 18.5, codeByUTCHour: [Int: Int] = [:]) async throws -> FakeOpenMeteo {
        let core = Core(weatherCode: weatherCode, temperature: temperature, codeByUTCHour: codeByUTCHour)
        return FakeOpenMeteo(server: try await FakeHTTPServer.start { core.handle($0) }, core: core)
    }

    /// Makes every request fail with this status and an Open-Meteo error body; nil answers normally again.
    public func setFailure(status: Int?) { core.failure.withLock { $0 = status } }

    public func shutdown() async throws { try await server.shutdown() }
}

extension FakeOpenMeteo {
    private final class Core: Sendable {
        static let units = ["temperature_2m": "°C", "weather_code": "wmo code"]
        static let currentTime = "2026-11-21T17:45"

        let values: [String: any Sendable]
        let codeByUTCHour: [Int: Int]
        let failure = Mutex<Int?>(nil)

        init(weatherCode: Int, temperature: Double, codeByUTCHour: [Int: Int]) {
            values = ["temperature_2m": temperature, "weather_code": weatherCode]
            self.codeByUTCHour = codeByUTCHour
        }

        func handle(_ request: RecordedRequest) -> FakeResponse {
            if let status = failure.withLock({ $0 }) { return Self.error(status, "Fake failure (HTTP \(status))") }
            guard request.method == "GET", ["/v1/forecast", "/v1/archive"].contains(request.path) else {
                return Self.error(404, "Not Found")
            }
            let query = request.query
            guard let latitude = query["latitude"].flatMap(Double.init) else { return Self.missing("latitude") }
            guard let longitude = query["longitude"].flatMap(Double.init) else { return Self.missing("longitude") }
            let timezone = TimeZone(identifier: query["timezone"] ?? "GMT") ?? TimeZone(identifier: "GMT")!
            var answer: [String: Any] = [
                "latitude": latitude, "longitude": longitude,
                "generationtime_ms": 0.05, "elevation": 12.0, "timezone": timezone.identifier,
                "timezone_abbreviation": timezone.abbreviation() ?? "GMT", "utc_offset_seconds": timezone.secondsFromGMT(),
            ]
            if let current = query["current"] {
                let names = current.split(separator: ",").map(String.init)
                if let unknown = names.first(where: { values[$0] == nil }) { return Self.unknownVariable(unknown) }
                answer["current_units"] = Self.units.filter { names.contains($0.key) }.merging(["time": "iso8601", "interval": "seconds"]) { $1 }
                answer["current"] = values.filter { names.contains($0.key) }.merging(["time": Self.currentTime, "interval": 900]) { $1 }
            }
            if let hourly = query["hourly"] {
                let names = hourly.split(separator: ",").map(String.init)
                if let unknown = names.first(where: { values[$0] == nil }) { return Self.unknownVariable(unknown) }
                // Without dates, the day of `currentTime`; with only one of them, that single day.
                let start = query["start_date"] ?? query["end_date"] ?? String(Self.currentTime.prefix(10))
                guard let days = Self.days(from: start, to: query["end_date"] ?? start) else {
                    return Self.error(400, "Invalid date range: start_date and end_date must be YYYY-MM-DD, end not before start.")
                }
                let times = days.flatMap { day in (0..<24).map { "\(day)T\($0 < 10 ? "0" : "")\($0):00" } }
                var series: [String: Any] = ["time": times]
                for name in names { series[name] = Array(repeating: values[name]!, count: times.count) }
                if names.contains("weather_code") && !codeByUTCHour.isEmpty {
                    // Local hour i of the series is UTC hour i minus today's offset, whatever the date.
                    let offsetHours = timezone.secondsFromGMT() / 3600
                    series["weather_code"] = times.indices.map { index -> Int in
                        codeByUTCHour[((index % 24 - offsetHours) % 24 + 24) % 24] ?? (values["weather_code"] as! Int)
                    }
                }
                answer["hourly_units"] = Self.units.filter { names.contains($0.key) }.merging(["time": "iso8601"]) { $1 }
                answer["hourly"] = series
            }
            return .body(status: 200, text: jsonText(answer))
        }

        /// Every day from `start` through `end` (YYYY-MM-DD), nil if either is malformed or the range is backwards.
        static func days(from start: String, to end: String) -> [String]? {
            let format = DateFormatter()
            format.locale = Locale(identifier: "en_US_POSIX")
            format.timeZone = TimeZone(identifier: "UTC")
            format.dateFormat = "yyyy-MM-dd"
            guard let first = format.date(from: start), let last = format.date(from: end), first <= last else { return nil }
            // UTC days are exactly 86,400 s long.
            return stride(from: first.timeIntervalSince1970, through: last.timeIntervalSince1970, by: 86_400)
                .map { format.string(from: Date(timeIntervalSince1970: $0)) }
        }

        static func missing(_ key: String) -> FakeResponse {
            error(400, "Value of type 'Float' required for key '\(key)'.")
        }

        static func unknownVariable(_ name: String) -> FakeResponse {
            error(400, "Cannot initialize ForecastVariable from invalid String value \(name).")
        }

        /// Open-Meteo's error body.
        static func error(_ status: Int, _ reason: String) -> FakeResponse {
            .body(status: status, text: jsonText(["error": true, "reason": reason]))
        }
    }
}
