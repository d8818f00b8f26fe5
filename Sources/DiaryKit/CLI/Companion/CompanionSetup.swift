import CompanionClient
import DiaryCLI
import DiaryKit
import Foundation

extension CommandContext {
    /// The conversation for a command that talks with the companion: providers resolved
    /// (flag, cached server choice, config, environment, failover), the person's consent
    /// before anything leaves the machine, and the notices that go with it.
    func conversation(_ store: DiaryStore, providerFlag: String? = nil, memory: Bool = true) throws -> Conversation {
        let log = verbose ? RequestLog { Output.standardError("· " + $0) } : .silent
        let lineup = try CompanionLineup.resolve(
            config: config, environment: environment, flag: providerFlag,
            remoteChoice: Result { try store.setting("companion.provider") },
            offline: OfflineCompanion(environment: environment), log: log)
        lineup.notices.forEach(say)
        if lineup.offlineByDefault, (try? store.deviceSetting("notice.offline")) == nil {
            say(.offlineCompanionInUse)
            try? store.setDeviceSetting("notice.offline", Timestamps.rfc3339(Date(), zone: .current))
        }
        let providers = try consented(lineup.providers, store: store)
        var conversation = Conversation(store: store, providers: providers, language: language, textLimit: config.textLimit)
        conversation.limits = UsageLimits(turnsPerEntry: config.turnsPerEntry, pagesPerDay: config.pagesPerDay, tokensPerDay: config.tokensPerDay)
        conversation.memory = memory ? MemoryScope(rawValue: config.memoryScope) ?? .pages : .off
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

    /// The providers the person agreed to send content to (F-privacy): agreed in the config,
    /// or once on a terminal (remembered on this device per endpoint). Declining keeps the
    /// offline companion for this call; with no terminal to ask on, nothing is sent.
    private func consented(_ providers: [any ChatProvider], store: DiaryStore) throws -> [any ChatProvider] {
        guard !config.companion.consent else { return providers }
        let pending = providers.compactMap { $0 as? RemoteCompanion }.filter { remote in
            (try? store.deviceSetting("consent.\(remote.name)")) != remote.settings.baseURL
        }
        guard let first = pending.first else { return providers }
        let host = URL(string: first.settings.baseURL)?.host ?? first.settings.baseURL
        guard let agreed = askYesNo(.consentQuestion(provider: pending.map(\.name).joined(separator: ", "), host: host)) else {
            throw CompanionError.consentNeeded(provider: first.name)
        }
        guard agreed else {
            say(.consentDeclined)
            let offline = providers.filter { !$0.isRemote }
            return offline.isEmpty ? [OfflineCompanion(environment: environment)] : offline
        }
        for remote in pending {
            try store.setDeviceSetting("consent.\(remote.name)", remote.settings.baseURL)
        }
        return providers
    }
}
