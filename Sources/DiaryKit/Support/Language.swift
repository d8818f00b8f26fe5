import Foundation

/// The languages people can read this tool in.
public enum Language: String, Sendable, CaseIterable {
    case zhHant = "zh-Hant"
    case en = "en"

    /// Parses `zh-Hant`, `zh_TW`, `en`, `en_US.UTF-8` and the like; nil when unknown.
    public init?(tag: String) {
        // "en", "en-GB", "en_US.UTF-8", "zh-Hant", "zh_TW.UTF-8"; not "english" or "fr".
        let lowered = tag.lowercased()
        let primary = lowered.prefix { $0 != "-" && $0 != "_" && $0 != "." }
        switch primary {
        case "en": self = .en
        case "zh": self = .zhHant
        default: return nil
        }
    }

    /// The synced setting that holds the person's language on every device (F-019).
    public static let settingKey = "language"

    /// `--lang`, else the synced setting, else the config's `language`, else the locale
    /// variables; zh-Hant by default.
    public static func resolve(flag: String?, setting: String?, config: String?, environment: [String: String]) -> Language {
        for choice in [flag, setting, config].compactMap({ $0 }) {
            if let language = Language(tag: choice) { return language }
        }
        // POSIX precedence: LC_ALL overrides LC_MESSAGES, which overrides LANG.
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let value = environment[name], !value.isEmpty {
                return Language(tag: value) ?? .zhHant
            }
        }
        return .zhHant
    }
}
