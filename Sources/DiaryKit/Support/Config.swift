import Foundation
import TOMLKit

/// The settings read from `config.toml`; every field has a default.
public struct Config: Sendable, Equatable {
    /// `lang = "en"`: the language people read.
    public var language: String?
    /// `persona = "warm"`: the companion in force when none was chosen in the diary.
    public var persona: String?
    /// `[limits] photo_mb`: the largest photo taken in.
    public var photoLimitBytes: Int64 = 50 * 1_000_000
    /// `[limits] video_mb`: the largest video taken in.
    public var videoLimitBytes: Int64 = 500 * 1_000_000
    /// `[limits] text_chars`: the longest note or chat line, in characters people see.
    public var textLimit: Int = 500

    public init() {}

    /// Reads the file; a missing file gives the defaults.
    public static func load(from file: URL) throws(ConfigError) -> Config {
        guard let data = FileManager.default.contents(atPath: file.path) else { return Config() }
        guard let text = String(data: data, encoding: .utf8) else { throw .invalid(file.path + ": not UTF-8") }
        return try parse(text, origin: file.path)
    }

    /// Parses TOML text.
    public static func parse(_ text: String, origin: String = "config.toml") throws(ConfigError) -> Config {
        let table: TOMLTable
        do { table = try TOMLTable(string: text) } catch {
            throw .invalid("\(origin): \(error)")
        }
        var config = Config()
        config.language = try string(table, "lang", origin)
        if let language = config.language, Language(tag: language) == nil {
            throw .invalid("\(origin): lang = \"\(language)\" (zh-Hant, en)")
        }
        config.persona = try string(table, "persona", origin)
        if let limits = table["limits"] {
            guard let limits = limits.table else { throw .invalid("\(origin): [limits] must be a table") }
            if let megabytes = try positive(limits, "photo_mb", origin) { config.photoLimitBytes = Int64(megabytes) * 1_000_000 }
            if let megabytes = try positive(limits, "video_mb", origin) { config.videoLimitBytes = Int64(megabytes) * 1_000_000 }
            if let characters = try positive(limits, "text_chars", origin) { config.textLimit = characters }
        }
        return config
    }

    private static func string(_ table: TOMLTable, _ key: String, _ origin: String) throws(ConfigError) -> String? {
        guard let value = table[key] else { return nil }
        guard let text = value.string else { throw .invalid("\(origin): \(key) must be a string") }
        return text
    }

    private static func positive(_ table: TOMLTable, _ key: String, _ origin: String) throws(ConfigError) -> Int? {
        guard let value = table[key] else { return nil }
        guard let number = value.int, number > 0 else { throw .invalid("\(origin): \(key) must be a positive whole number") }
        return number
    }
}

/// A configuration file that cannot be used.
public enum ConfigError: Error, Equatable {
    case invalid(String)
}
