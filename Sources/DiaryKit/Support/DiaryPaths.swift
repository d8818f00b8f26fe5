import Foundation

/// Where the diary, its configuration and its credentials live (XDG, overridable).
public struct DiaryPaths: Sendable {
    /// The folder holding `diary.sqlite` and `media/`.
    public let home: URL
    /// The `config.toml` file (it need not exist).
    public let configFile: URL
    /// The folder for credentials and other private state.
    public let stateDirectory: URL

    /// `--home`, then `DIARY_HOME`, then `$XDG_DATA_HOME/diary`, then `~/.local/share/diary`.
    public init(homeFlag: String?, environment: [String: String]) {
        let userHome = URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory())
        func xdg(_ name: String, _ fallback: String) -> URL {
            if let value = environment[name], value.hasPrefix("/") { return URL(fileURLWithPath: value) }
            return userHome.appendingPathComponent(fallback)
        }
        if let flag = homeFlag ?? environment["DIARY_HOME"], !flag.isEmpty {
            home = URL(fileURLWithPath: flag)
        } else {
            home = xdg("XDG_DATA_HOME", ".local/share").appendingPathComponent("diary")
        }
        if let file = environment["DIARY_CONFIG"], !file.isEmpty {
            configFile = URL(fileURLWithPath: file)
        } else {
            configFile = xdg("XDG_CONFIG_HOME", ".config").appendingPathComponent("diary/config.toml")
        }
        stateDirectory = xdg("XDG_STATE_HOME", ".local/state").appendingPathComponent("diary")
    }

    /// The SQLite database.
    public var database: URL { home.appendingPathComponent("diary.sqlite") }
    /// The content-addressed media folder.
    public var media: URL { home.appendingPathComponent("media") }
    /// The content-addressed thumbnails folder.
    public var thumbnails: URL { home.appendingPathComponent("thumbs") }
}
