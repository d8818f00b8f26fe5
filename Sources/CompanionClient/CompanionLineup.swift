import DiaryKit
import Foundation

/// The operator's companion gateway as the sync server names it (F-015): an
/// OpenAI-compatible endpoint that holds the model keys, reached with the person's own
/// session token, so no key is on the device.
public struct HostedGateway: Sendable {
    /// The name it goes by in `--provider` and the failover list.
    public static let name = "gateway"
    public var settings: ProviderSettings
    public var premium: Bool
    /// A live session token (renewed when it is about to expire).
    public var token: @Sendable () async throws -> Secret

    public init(url: String, model: String, premium: Bool, token: @escaping @Sendable () async throws -> Secret) {
        settings = ProviderSettings(name: Self.name, baseURL: url, model: model)
        self.premium = premium
        self.token = token
    }
}

/// The companions that may answer, in failover order, and what the person should be told
/// about how they were chosen.
package struct CompanionLineup: Sendable {
    package var providers: [any ChatProvider]
    package var notices: [Phrase]
    /// Nothing is configured, so the offline companion speaks (said once per diary).
    package var offlineByDefault: Bool

    /// The provider for the default OpenAI-compatible endpoint, made from the environment.
    static let environmentProvider = "openai"
    static let defaultModel = "gpt-4o-mini"

    /// Works out who answers: `--provider`, else the choice cached from the sync server
    /// (D-011; an unusable one falls back with 「設定讀取失敗，已使用預設模型」), else
    /// `[companion] provider`, else the operator's gateway (for a person signed in to a
    /// server that names one), else `OPENAI_API_KEY`/`OPENAI_BASE_URL`, else offline;
    /// then the failover order, which ends in `offline` unless configured otherwise.
    package static func resolve(config: Config, environment: [String: String], flag: String?,
                               remoteChoice: Result<String?, Error>, gateway: HostedGateway? = nil,
                               offline: any ChatProvider, log: RequestLog) throws -> CompanionLineup {
        var available = config.providers
        // A [providers.gateway] table of the person's own keeps its name.
        let gateway = gateway.flatMap { available[HostedGateway.name] == nil ? $0 : nil }
        if let gateway { available[HostedGateway.name] = gateway.settings }
        let envKey = environment["OPENAI_API_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        let envURL = environment["OPENAI_BASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
        if available[environmentProvider] == nil, envKey != nil || envURL != nil {
            available[environmentProvider] = ProviderSettings(
                name: environmentProvider, baseURL: envURL ?? "https://api.openai.com/v1",
                model: environment["DIARY_MODEL"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultModel,
                apiKeyEnv: envKey == nil ? nil : "OPENAI_API_KEY")
        }
        func known(_ name: String) -> Bool { name == "offline" || available[name] != nil }

        var notices: [Phrase] = []
        let configured = config.companion.provider
        if let configured, !known(configured) {
            throw ConfigError.invalid("[companion] provider = \"\(configured)\" has no [providers.\(configured)] table")
        }
        var remote: String?
        switch remoteChoice {
        case let .success(name?) where known(name): remote = name
        case .success(.some), .failure: notices.append(.providerSettingUnreadable)
        case .success(nil): break
        }
        let primary: String
        if let flag {
            guard known(flag) else { throw CompanionError.unknownProvider(flag) }
            primary = flag
        } else {
            primary = remote ?? configured ?? (gateway != nil ? HostedGateway.name : nil)
                ?? (available[environmentProvider] != nil ? environmentProvider : "offline")
        }
        let failover = config.companion.failover ?? ["offline"]
        for name in failover where !known(name) {
            throw ConfigError.invalid("[companion] failover names \"\(name)\", which has no [providers.\(name)] table")
        }

        var providers: [any ChatProvider] = []
        for name in [primary] + failover where !providers.contains(where: { $0.name == name }) {
            if name == "offline" { providers.append(offline); continue }
            if name == HostedGateway.name, let gateway {
                providers.append(RemoteCompanion(gateway: gateway, timeout: config.companion.timeoutSeconds,
                                                 retries: config.companion.retries, log: log))
                continue
            }
            let settings = available[name]!
            switch try key(for: settings, environment: environment) {
            case let .found(secret):
                providers.append(RemoteCompanion(settings: settings, key: secret, timeout: config.companion.timeoutSeconds,
                                                 retries: config.companion.retries, log: log))
            case let .missing(variable):
                notices.append(.providerKeyMissing(provider: name, variable: variable))
            }
        }
        if providers.isEmpty { providers = [offline] }
        let nothingConfigured = flag == nil && remote == nil && configured == nil && available.isEmpty
        return CompanionLineup(providers: providers, notices: notices, offlineByDefault: nothingConfigured)
    }

    package enum KeyLookup {
        case found(Secret?)
        case missing(variable: String)
    }

    /// The provider's key: from its environment variable, or from a file only its owner can
    /// read; none at all for endpoints that need none (a local Ollama or llama.cpp server).
    package static func key(for settings: ProviderSettings, environment: [String: String]) throws -> KeyLookup {
        if let file = settings.apiKeyFile {
            let path = (file as NSString).expandingTildeInPath
            var info = stat()
            guard stat(path, &info) == 0 else {
                throw ConfigError.invalid("providers.\(settings.name).api_key_file: \(path) does not exist")
            }
            guard info.st_mode & 0o077 == 0 else {
                throw ConfigError.invalid("providers.\(settings.name).api_key_file: \(path) can be read by others; run chmod 600 \(path)")
            }
            guard let data = FileManager.default.contents(atPath: path),
                  let text = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines),
                  !text.isEmpty else {
                throw ConfigError.invalid("providers.\(settings.name).api_key_file: \(path) is empty or unreadable")
            }
            return .found(Secret(text))
        }
        if let variable = settings.apiKeyEnv {
            guard let value = environment[variable], !value.isEmpty else { return .missing(variable: variable) }
            return .found(Secret(value))
        }
        return .found(nil)
    }
}
