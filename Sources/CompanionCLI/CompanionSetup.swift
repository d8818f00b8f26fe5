import CompanionClient
import DiaryCLI
import DiaryKit
import SyncSession
import Foundation

extension CommandContext {
    /// The conversation for a command that talks with the companion: providers resolved
    /// (flag, cached server choice, config, environment, failover), the person's consent
    /// before anything leaves the machine, and the notices that go with it.
    func conversation(_ store: DiaryStore, providerFlag: String? = nil, memory: Bool = true) throws -> Conversation {
        let log = verbose ? RequestLog { Output.standardError("· " + $0) } : .silent
        // An unreadable credentials file only leaves the gateway out; diary-sync says why.
        let gateway = try? CompanionGateway.signedIn(paths: paths, store: store)
        let lineup = try CompanionLineup.resolve(
            config: config, environment: environment, flag: providerFlag,
            remoteChoice: Result { try store.setting("companion.provider") },
            gateway: gateway.map { gateway in
                HostedGateway(url: gateway.url, model: gateway.model, premium: gateway.premium) { Secret(try await gateway.accessToken()) }
            },
            offline: OfflineCompanion(environment: environment), log: log)
        lineup.notices.forEach(say)
        if lineup.offlineByDefault, (try? store.deviceSetting("notice.offline")) == nil {
            say(.offlineCompanionInUse)
            try? store.setDeviceSetting("notice.offline", Timestamps.rfc3339(Date(), zone: .current))
        }
        let embeddings = memory ? try embeddingSettings(log: log) : nil
        let (providers, embeddingsAgreed) = try consented(lineup.providers, embeddings: embeddings?.provider, store: store)
        var conversation = Conversation(store: store, providers: providers, language: language, textLimit: config.textLimit)
        conversation.limits = UsageLimits(turnsPerEntry: config.turnsPerEntry, pagesPerDay: config.pagesPerDay, tokensPerDay: config.tokensPerDay)
        if providers.first?.name == HostedGateway.name { conversation.serverUsage = gateway }
        conversation.memory = memory ? MemoryScope(rawValue: config.memoryScope) ?? .pages : .off
        if let embeddings, embeddingsAgreed {
            conversation.embedder = RemoteEmbedder(settings: embeddings.provider, model: embeddings.model, key: embeddings.key,
                                                   timeout: config.companion.timeoutSeconds, retries: config.companion.retries, log: log)
        }
        // memory.md is brought up to date with the other devices' copy first; a file that
        // cannot be read or written only leaves it out.
        conversation.notes = MemoryNotes.forPrompt(try? MemoryNotes.reconcile(store, language: language))
        if config.weather.enabled ?? providers.contains(where: \.isRemote) {
            // A slow weather service must not hold up the greeting for long.
            conversation.weather = WeatherService(settings: config.weather, timeout: min(config.companion.timeoutSeconds, 8), log: log)
        }
        let mediaRoot = paths.media
        conversation.look = { entry in
            entry.picture.map { VisionFrames.pictures(of: $0, file: mediaRoot.appendingPathComponent($0.relativePath)) } ?? []
        }
        return conversation
    }

    /// The provider `[memory] embeddings` names, its model and key; nil (with a notice) when
    /// it has no `[providers.NAME]` table, is not on this machine under scope `titles`, or its
    /// key is missing, so recall stays with words. Nothing at all under scope `off`.
    func embeddingSettings(log: RequestLog) throws -> (provider: ProviderSettings, model: String, key: Secret?)? {
        guard config.memoryEmbeddings != nil, config.memoryScope != "off" else { return nil }
        guard let (provider, model) = config.embeddings,
              case let .found(key) = try CompanionLineup.key(for: provider, environment: environment) else {
            say(.meaningUnavailable)
            return nil
        }
        return (provider, model, key)
    }

    /// The providers the person agreed to send content to (F-privacy), and whether the
    /// embedder may have their pages: agreed in the config, or once on a terminal (remembered
    /// on this device per endpoint). Declining keeps the offline companion and words-only
    /// recall for this call; with no terminal to ask on, nothing is sent (a companion that
    /// needs consent is an error; an embedder is only left out).
    private func consented(_ providers: [any ChatProvider], embeddings: ProviderSettings?, store: DiaryStore) throws
        -> (providers: [any ChatProvider], embeddingsAgreed: Bool) {
        guard !config.companion.consent else { return (providers, true) }
        func agreed(_ settings: ProviderSettings) -> Bool {
            (try? store.deviceSetting("consent.\(settings.name)")) == settings.baseURL
        }
        let companions = providers.compactMap { ($0 as? RemoteCompanion)?.settings }.filter { !agreed($0) }
        var pending = companions
        if let embeddings, !agreed(embeddings), !pending.contains(where: { $0.name == embeddings.name }) { pending.append(embeddings) }
        guard let first = pending.first else { return (providers, true) }
        let host = URL(string: first.baseURL)?.host ?? first.baseURL
        guard let answer = askYesNo(.consentQuestion(provider: pending.map(\.name).joined(separator: ", "), host: host)) else {
            if let companion = companions.first { throw CompanionError.consentNeeded(provider: companion.name) }
            say(.meaningUnavailable)
            return (providers, false)
        }
        guard answer else {
            guard !companions.isEmpty else { say(.meaningDeclined); return (providers, false) }
            say(.consentDeclined)
            let offline = providers.filter { !$0.isRemote }
            return (offline.isEmpty ? [OfflineCompanion(environment: environment)] : offline, false)
        }
        for settings in pending {
            try store.setDeviceSetting("consent.\(settings.name)", settings.baseURL)
        }
        return (providers, true)
    }
}
