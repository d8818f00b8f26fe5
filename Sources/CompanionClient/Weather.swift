import DiaryKit
import Foundation

/// The weather of a moment, from an Open-Meteo-compatible service: current conditions for
/// now, the hour's record for an earlier photo (forecast API for recent days, the archive
/// API before that).
package struct WeatherService: WeatherSource {
    let forecast: ServiceEndpoint
    let archive: ServiceEndpoint

    package init(settings: WeatherSettings, timeout: Double, log: RequestLog) {
        // Weather is a nicety: one try, no retries, so a failing service never holds up a greeting.
        let policy = RetryPolicy(retries: 0)
        forecast = ServiceEndpoint(provider: "weather", baseURL: settings.baseURL, key: nil, timeout: timeout, retry: policy, log: log)
        archive = ServiceEndpoint(provider: "weather", baseURL: settings.archiveURL, key: nil, timeout: timeout, retry: policy, log: log)
    }

    package func weather(latitude: Double, longitude: Double, at date: Date, zone: TimeZone,
                        language: Language) async -> (description: String, temperatureC: Double?)? {
        await weather(latitude: latitude, longitude: longitude, at: date, zone: zone, language: language, now: Date())
    }

    /// The weather at the place and time as seen at `now`, or nil when the service has none
    /// or cannot be reached. The hour is found by UTC, whatever `zone` the moment was in.
    package func weather(latitude: Double, longitude: Double, at date: Date, zone: TimeZone,
                 language: Language, now: Date) async -> (description: String, temperatureC: Double?)? {
        let place = String(format: "latitude=%.4f&longitude=%.4f", latitude, longitude)
        // Asked in GMT: in another zone Open-Meteo lays the whole day out at the zone's offset
        // of today, with no daylight-saving switch, so a summer hour read in winter is an hour off.
        let utc = TimeZone(identifier: "GMT")!
        do {
            if abs(now.timeIntervalSince(date)) < 2 * 3600 {
                let json = try await forecast.getJSON("/forecast?\(place)&current=temperature_2m,weather_code&timezone=GMT")
                guard let code = json["current"]?["weather_code"]?.doubleValue else { return nil }
                return (Self.describe(code: Int(exactly: code) ?? -1, language: language), json["current"]?["temperature_2m"]?.doubleValue)
            }
            let day = Timestamps.localDate(date, zone: utc)
            let query = "\(place)&hourly=temperature_2m,weather_code&start_date=\(day)&end_date=\(day)&timezone=GMT"
            // The forecast API keeps about three months of past days; the archive goes back decades.
            let recent = now.timeIntervalSince(date) < 90 * 86400
            let json = try await recent ? forecast.getJSON("/forecast?" + query) : archive.getJSON("/archive?" + query)
            let hour = Timestamps.hour(date, zone: utc)
            guard let code = json["hourly"]?["weather_code"]?[hour]?.doubleValue else { return nil }
            return (Self.describe(code: Int(exactly: code) ?? -1, language: language), json["hourly"]?["temperature_2m"]?[hour]?.doubleValue)
        } catch {
            return nil
        }
    }

    /// A WMO weather interpretation code in words.
    package static func describe(code: Int, language: Language) -> String {
        let words: (String, String)
        switch code {
        case 0: words = ("晴朗", "clear sky")
        case 1: words = ("大致晴朗", "mainly clear")
        case 2: words = ("多雲", "partly cloudy")
        case 3: words = ("陰天", "overcast")
        case 45, 48: words = ("有霧", "fog")
        case 51, 53, 55: words = ("毛毛雨", "drizzle")
        case 56, 57: words = ("凍毛毛雨", "freezing drizzle")
        case 66, 67: words = ("凍雨", "freezing rain")
        case 61: words = ("小雨", "light rain")
        case 63: words = ("下雨", "rain")
        case 65: words = ("大雨", "heavy rain")
        case 71: words = ("小雪", "light snow")
        case 73: words = ("下雪", "snow")
        case 75: words = ("大雪", "heavy snow")
        case 77: words = ("霰", "snow grains")
        case 80, 81: words = ("陣雨", "rain showers")
        case 82: words = ("強陣雨", "violent rain showers")
        case 85, 86: words = ("陣雪", "snow showers")
        case 95: words = ("雷雨", "thunderstorm")
        case 96, 99: words = ("雷雨夾冰雹", "thunderstorm with hail")
        default: words = ("天氣不明", "unknown weather")
        }
        return language == .en ? words.1 : words.0
    }
}
