import Foundation
import TOMLKit

/// The settings read from `config.toml`; every field has a default.
package struct Config: Sendable, Equatable {
    /// `lang = "en"`: the language people read.
    package var language: String?
    /// `persona = "warm"`: the companion in force when none was chosen in the diary.
    package var persona: String?
    /// `[limits] photo_mb`: the largest photo taken in.
    package var photoLimitBytes: Int64 = 50 * 1_000_000
    /// `[limits] video_mb`: the largest video taken in.
    package var videoLimitBytes: Int64 = 500 * 1_000_000
    /// `[limits] audio_mb`: the largest voice memo taken in.
    package var audioLimitBytes: Int64 = 25 * 1_000_000
    /// `[limits] text_chars`: the longest note or chat line, in characters people see.
    package var textLimit: Int = 500
    /// `[limits] turns_per_entry`: companion replies one entry may get (nil: no limit).
    package var turnsPerEntry: Int?
    /// `[limits] pages_per_day`: pages the companion may write a day (nil: no limit).
    package var pagesPerDay: Int?
    /// `[limits] tokens_per_day`: tokens the online companions may use a day (nil: no limit).
    package var tokensPerDay: Int?
    /// `[companion]`: which provider speaks, the failover order, consent, timeouts.
    package var companion = CompanionSettings()
    /// `[providers.NAME]`: the model endpoints a person has configured.
    package var providers: [String: ProviderSettings] = [:]
    /// `[weather]`: where weather for the moment comes from.
    package var weather = WeatherSettings()
    /// `[trash] keep_days`: how long a deleted page can be brought back before it is purged.
    package var trashKeepDays: Int = 30
    /// `[memory] scope`: which earlier pages go with a talk: `off`, `titles` or `pages`.
    package var memoryScope = "pages"
    /// `[memory] embeddings`: the `[providers.NAME]` whose `/embeddings` make pages recallable
    /// by meaning (nil: by words only).
    package var memoryEmbeddings: String?

    package init() {}

    /// The provider that makes meaning vectors and the model it uses, when one is configured
    /// and has a `[providers.NAME]` table. With `[memory] scope = "titles"` no page text may
    /// leave the machine, so only an embedder on this machine counts; with `"off"`, none.
    package var embeddings: (provider: ProviderSettings, model: String)? {
        guard memoryScope != "off", let name = memoryEmbeddings, let provider = providers[name],
              memoryScope != "titles" || provider.isOnThisMachine else { return nil }
        return (provider, provider.embeddingModel ?? provider.model)
    }

    /// Reads the file; a missing file gives the defaults.
    package static func load(from file: URL) throws(ConfigError) -> Config {
        guard let data = FileManager.default.contents(atPath: file.path) else { return Config() }
        guard let text = String(data: data, encoding: .utf8) else { throw .invalid(file.path + ": not UTF-8") }
        return try parse(text, origin: file.path)
    }

    /// Parses TOML text.
    package static func parse(_ text: String, origin: String = "config.toml") throws(ConfigError) -> Config {
        let table: TOMLTable
        do { table = try TOMLTable(string: text) } catch {
            throw .invalid("\(origin): \(error)")
        }
        let root = Section(table: table, path: "", origin: origin)
        var config = Config()
        config.language = try root.string("lang")
        if let language = config.language, Language(tag: language) == nil {
            throw .invalid("\(origin): lang = \"\(language)\" (zh-Hant, en)")
        }
        config.persona = try root.string("persona")
        if let limits = try root.section("limits") {
            if let megabytes = try limits.positive("photo_mb") { config.photoLimitBytes = Int64(megabytes) * 1_000_000 }
            if let megabytes = try limits.positive("video_mb") { config.videoLimitBytes = Int64(megabytes) * 1_000_000 }
            if let megabytes = try limits.positive("audio_mb") { config.audioLimitBytes = Int64(megabytes) * 1_000_000 }
            if let characters = try limits.positive("text_chars") { config.textLimit = characters }
            config.turnsPerEntry = try limits.positive("turns_per_entry")
            config.pagesPerDay = try limits.positive("pages_per_day")
            config.tokensPerDay = try limits.positive("tokens_per_day")
        }
        if let companion = try root.section("companion") {
            config.companion.provider = try companion.string("provider")
            config.companion.failover = try companion.strings("failover")
            config.companion.consent = try companion.bool("consent") ?? false
            if let seconds = try companion.positiveNumber("timeout_seconds") { config.companion.timeoutSeconds = seconds }
            if let retries = try companion.count("retries") { config.companion.retries = retries }
        }
        if let providers = try root.section("providers") {
            for name in providers.table.keys.sorted() {
                guard let section = try providers.section(name) else { continue }
                config.providers[name] = try ProviderSettings(section, name: name)
            }
        }
        if let trash = try root.section("trash"), let days = try trash.positive("keep_days") { config.trashKeepDays = days }
        if let memory = try root.section("memory") {
            if let scope = try memory.string("scope") {
                guard ["off", "titles", "pages"].contains(scope) else { throw .invalid("\(origin): [memory] scope = \"\(scope)\" (off, titles, pages)") }
                config.memoryScope = scope
            }
            // A name without a table is not refused here: recall falls back to words with a notice.
            config.memoryEmbeddings = try memory.string("embeddings")
        }
        if let weather = try root.section("weather") {
            config.weather.enabled = try weather.bool("enabled")
            if let url = try weather.string("base_url") { config.weather.baseURL = url }
            if let url = try weather.string("archive_url") { config.weather.archiveURL = url }
        }
        return config
    }
}

/// `[companion]`: the provider in use and what happens when it fails.
package struct CompanionSettings: Sendable, Equatable {
    /// The provider in use (a `[providers.NAME]` table, or `offline`).
    package var provider: String?
    /// Who answers, in order, when the one before fails; `offline` ends it by default.
    package var failover: [String]?
    /// The person agreed in the config file to send content to remote providers.
    package var consent = false
    /// How long one request may take, in seconds.
    package var timeoutSeconds: Double = 60
    /// How often a failed request (429, 5xx, timeout, dropped connection) is tried again.
    package var retries = 2
}

/// `[providers.NAME]`: one OpenAI-compatible endpoint.
public struct ProviderSettings: Sendable, Equatable {
    public var name: String
    /// The API root, e.g. `https://api.openai.com/v1`.
    public var baseURL: String
    public var model: String
    /// The environment variable that holds the key.
    public var apiKeyEnv: String?
    /// A file that holds the key; refused unless only its owner can read it.
    public var apiKeyFile: String?
    /// The model for `/audio/transcriptions`.
    public var transcriptionModel: String = "whisper-1"
    /// False for endpoints that take no images (analysis then works from the note and context).
    public var vision = true
    /// The model for `/embeddings` (default: `model`).
    public var embeddingModel: String?

    public init(name: String, baseURL: String, model: String, apiKeyEnv: String? = nil, apiKeyFile: String? = nil) {
        self.name = name
        self.baseURL = baseURL
        self.model = model
        self.apiKeyEnv = apiKeyEnv
        self.apiKeyFile = apiKeyFile
    }

    /// Its address is this machine's own (a loopback address), so nothing sent leaves it.
    public var isOnThisMachine: Bool {
        guard let host = URL(string: baseURL)?.host?.lowercased() else { return false }
        return host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    init(_ section: Section, name: String) throws(ConfigError) {
        guard name != "offline" else { throw section.invalid("offline", "is built in and cannot be configured") }
        guard let url = try section.string("base_url"), URL(string: url)?.scheme?.hasPrefix("http") == true else {
            throw section.invalid("base_url", "must be an http(s) URL")
        }
        guard let model = try section.string("model") else { throw section.invalid("model", "is required") }
        self.init(name: name, baseURL: url, model: model,
                  apiKeyEnv: try section.string("api_key_env"), apiKeyFile: try section.string("api_key_file"))
        if try section.string("api_key") != nil {
            // A key written into config.toml would end up in dotfile repos and backups.
            throw section.invalid("api_key", "is not read from config.toml; use api_key_env or api_key_file (chmod 600)")
        }
        if let model = try section.string("transcription_model") { transcriptionModel = model }
        if let vision = try section.bool("vision") { self.vision = vision }
        embeddingModel = try section.string("embedding_model")
    }
}

/// `[weather]`: an Open-Meteo-compatible service.
package struct WeatherSettings: Sendable, Equatable {
    /// nil: on whenever a remote companion is in use (the place is already being shared).
    package var enabled: Bool?
    /// Forecast API root (recent days).
    package var baseURL = "https://api.open-meteo.com/v1"
    /// Historical API root (older photos).
    package var archiveURL = "https://archive-api.open-meteo.com/v1"
}

/// A configuration file that cannot be used.
package enum ConfigError: Error, Equatable {
    case invalid(String)
}

/// One table of the TOML file, with typed reads that name the key on error.
struct Section {
    let table: TOMLTable
    let path: String
    let origin: String

    func invalid(_ key: String, _ problem: String) -> ConfigError {
        .invalid("\(origin): \(path)\(key) \(problem)")
    }

    func section(_ key: String) throws(ConfigError) -> Section? {
        guard let value = table[key] else { return nil }
        guard let inner = value.table else { throw invalid(key, "must be a table") }
        return Section(table: inner, path: "\(path)\(key).", origin: origin)
    }

    func string(_ key: String) throws(ConfigError) -> String? {
        guard let value = table[key] else { return nil }
        guard let text = value.string else { throw invalid(key, "must be a string") }
        return text
    }

    func strings(_ key: String) throws(ConfigError) -> [String]? {
        guard let value = table[key] else { return nil }
        guard let array = value.array else { throw invalid(key, "must be a list of names") }
        var names: [String] = []
        for item in array {
            guard let name = item.string else { throw invalid(key, "must be a list of names") }
            names.append(name)
        }
        return names
    }

    func bool(_ key: String) throws(ConfigError) -> Bool? {
        guard let value = table[key] else { return nil }
        guard let flag = value.bool else { throw invalid(key, "must be true or false") }
        return flag
    }

    func positive(_ key: String) throws(ConfigError) -> Int? {
        guard let value = table[key] else { return nil }
        guard let number = value.int, number > 0 else { throw invalid(key, "must be a positive whole number") }
        return number
    }

    func count(_ key: String) throws(ConfigError) -> Int? {
        guard let value = table[key] else { return nil }
        guard let number = value.int, (0...10).contains(number) else { throw invalid(key, "must be a whole number from 0 to 10") }
        return number
    }

    func positiveNumber(_ key: String) throws(ConfigError) -> Double? {
        guard let value = table[key] else { return nil }
        guard let number = value.double ?? value.int.map(Double.init), number > 0 else {
            throw invalid(key, "must be a positive number")
        }
        return number
    }
}
