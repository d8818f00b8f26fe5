import Foundation

/// How readings (temperatures, humidity, wind) are written for people.
package enum ContextText {
    /// A whole number without decimals, else one decimal; never traps, however large or odd
    /// the value (an import or a weather service may send 1e20).
    package static func number(_ value: Double) -> String {
        if value == value.rounded(), let whole = Int64(exactly: value) { return String(whole) }
        return String((value * 10).rounded() / 10)
    }
}

extension EntryContext {
    /// The place as people read it: every name it has, most particular first, each once
    /// (`朝日溫泉, 綠島鄉, 台東縣, 台灣`); nil when it has none.
    package var placeLine: String? {
        var seen: Set<String> = []
        let names = placeNames.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && seen.insert($0).inserted }
        return names.isEmpty ? nil : names.joined(separator: ", ")
    }
}

extension WeatherDetails {
    /// The readings worth a glance (humidity, wind, pressure, visibility), nil when none is known.
    package func readingsLine(english: Bool) -> String? {
        let number = ContextText.number
        var parts: [String] = []
        if let humidity = humidityPercent { parts.append((english ? "humidity " : "濕度 ") + number(humidity) + "%") }
        if let wind = windKPH { parts.append((english ? "wind " : "風速 ") + number(wind) + " km/h") }
        if let pressure = pressureHPa { parts.append((english ? "pressure " : "氣壓 ") + number(pressure) + " hPa") }
        if let visibility = visibilityKM { parts.append((english ? "visibility " : "能見度 ") + number(visibility) + " km") }
        return parts.isEmpty ? nil : parts.joined(separator: english ? " · " : "・")
    }
}
