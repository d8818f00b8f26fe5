import Foundation

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
        func number(_ value: Double) -> String { value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value) }
        var parts: [String] = []
        if let humidity = humidityPercent { parts.append((english ? "humidity " : "濕度 ") + number(humidity) + "%") }
        if let wind = windKPH { parts.append((english ? "wind " : "風速 ") + number(wind) + " km/h") }
        if let pressure = pressureHPa { parts.append((english ? "pressure " : "氣壓 ") + number(pressure) + " hPa") }
        if let visibility = visibilityKM { parts.append((english ? "visibility " : "能見度 ") + number(visibility) + " km") }
        return parts.isEmpty ? nil : parts.joined(separator: english ? " · " : "・")
    }
}
