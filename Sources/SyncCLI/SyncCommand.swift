import ArgumentParser
import DiaryArchive
import DiaryCLI
import DiaryKit
import SyncSession
import DiarySync
import Foundation

/// `diary-sync`: sync, and archives (backup, export, restore, import).
package struct SyncCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "diary-sync",
        abstract: "Sync the diary across devices through Postgres or Supabase, and back it up.",
        discussion: """
            Every change is stored on this device first and queued; a sync sends the queue (push), \
            then takes what other devices sent (pull), then media. With no subcommand, diary-sync syncs \
            once. Offline, nothing is lost: the queue waits (exit 75) and the next sync sends it.
            """,
        version: DiaryVersion.current,
        subcommands: [SyncNowCommand.self, PushCommand.self, PullCommand.self, WatchCommand.self, SyncStatusCommand.self, SetCommand.self, RemindCommand.self, GarbageCommand.self,
                      SignupCommand.self, LoginCommand.self, KeysCommand.self, EncryptCommand.self, LogoutCommand.self, DeleteAccountCommand.self, ServerInitCommand.self, UserAddCommand.self, QuotaCommand.self,
                      BackupCommand.self, ExportCommand.self, RestoreCommand.self, ImportCommand.self],
        defaultSubcommand: SyncNowCommand.self)

    package init() {}
}

/// `diary-sync sync` (the default): push, pull, media, once.
struct SyncNowCommand: DiaryCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Send this device's changes, then take the other devices' (the default).")

    @OptionGroup package var global: GlobalOptions

    @Flag(name: .customLong("retry-refused"), help: "Put changes the server refused back in the queue first.")
    var retryRefused = false

    init() {}

    func execute(_ context: CommandContext) async throws {
        try await SyncRunner.once(context: context, steps: .all, retryRefused: retryRefused)
    }
}

/// `diary-sync push`: only send.
struct PushCommand: DiaryCommand {
    static let configuration = CommandConfiguration(commandName: "push", abstract: "Send this device's queued changes and media.")

    @OptionGroup package var global: GlobalOptions

    init() {}

    func execute(_ context: CommandContext) async throws { try await SyncRunner.once(context: context, steps: .push, retryRefused: false) }
}

/// `diary-sync pull`: only take.
struct PullCommand: DiaryCommand {
    static let configuration = CommandConfiguration(commandName: "pull", abstract: "Take the other devices' changes and media.")

    @OptionGroup package var global: GlobalOptions

    init() {}

    func execute(_ context: CommandContext) async throws { try await SyncRunner.once(context: context, steps: .pull, retryRefused: false) }
}

/// `diary-sync watch`: stay up and sync as things change.
struct WatchCommand: DiaryCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Stay connected: send local changes within a second, take other devices' as they happen.",
        discussion: """
            Over postgres:// it listens for the server's change notices, syncs on every (re)connect and \
            at least every 30 seconds, and reconnects by itself. Through Supabase it polls: 5 seconds \
            after anything moved, then less often, up to once a minute. Local changes go up within a \
            second either way. Prints one line per sync that moved something. Ctrl-C stops it.
            """)

    @OptionGroup package var global: GlobalOptions

    init() {}

    func execute(_ context: CommandContext) async throws {
        let store = try context.openStore()
        let credentials = try SyncRunner.credentials(context)
        context.say(.watching(server: credentials.server))
        let json = context.json
        let language = context.language
        let quiet = context.quiet
        let quotaSaid = Locked(false)
        let watcher = SyncWatcher(store: store, credentials: credentials, synced: { report in
            // Said once: every later round would find the space just as full.
            if report.mediaOverQuota > 0, !quiet, !quotaSaid.withLock({ said in defer { said = true }; return said }) {
                Output.standardError(Phrase.mediaSpaceFull(waiting: report.mediaOverQuota).text(language))
            }
            guard !report.isEmpty else { return }
            try? SyncRunner.print(report, json: json, language: language)
        }, problem: { _, pause in
            if !quiet { Output.standardError(Phrase.watchOffline(seconds: pause).text(language)) }
        })
        try await watcher.run()
    }
}

/// `diary-sync gc`: removes media files no page uses.
struct GarbageCommand: DiaryCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc",
        abstract: "Remove media files and thumbnails no page uses (left by a crash mid-copy).",
        discussion: """
            Files younger than an hour are left alone, so a copy in progress elsewhere is safe; a page \
            in the trash still uses its files. Prints each file removed.
            """)

    @OptionGroup package var global: GlobalOptions

    @Flag(name: .customLong("dry-run"), help: "Only list what would be removed.")
    var dryRun = false

    init() {}

    func execute(_ context: CommandContext) async throws {
        let store = try context.openStore()
        let garbage = try MediaGarbage.find(store: store)
        for item in garbage {
            if context.json {
                try Output.json(.object([("kind", .string("garbage")), ("path", .string(item.path)), ("bytes", .int(item.bytes))]))
            } else {
                try Output.line(item.path)
            }
        }
        let removed = dryRun ? 0 : MediaGarbage.remove(garbage)
        let bytes = garbage.reduce(0) { $0 + $1.bytes }
        context.say(dryRun ? .garbageFound(count: garbage.count, bytes: bytes) : .garbageRemoved(count: removed, bytes: bytes))
    }
}

/// `diary-sync status`: the queue, refused changes, conflicts, and the last sync.
struct SyncStatusCommand: DiaryCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show what waits to sync, what the server refused, conflicts kept, and the last sync.")

    @OptionGroup package var global: GlobalOptions

    @Flag(name: .customLong("text"), help: "Print readable text, even when piped (same as --readable).")
    var textOutput = false

    @Flag(name: .customLong("conflicts"), help: "List every version that lost a merge (kept, never dropped), newest first.")
    var conflicts = false

    init() {}

    var forcesText: Bool { textOutput }

    func execute(_ context: CommandContext) async throws {
        let store = try context.openStore()
        if conflicts {
            for conflict in try store.conflicts() {
                if context.json {
                    try Output.json(.object([
                        ("kind", .string("conflict")), ("table", .string(conflict.table)), ("row_id", .string(conflict.rowId)),
                        ("hlc", .string(conflict.hlc)), ("winner_hlc", .string(conflict.winnerHlc)), ("source", .string(conflict.source)),
                        ("kept_at", .string(Timestamps.rfc3339(conflict.keptAt, zone: .current))), ("version", conflict.version),
                    ]))
                } else {
                    try Output.line(Phrase.conflictLine(table: conflict.table, row: conflict.rowId, hlc: conflict.hlc,
                                                        winner: conflict.winnerHlc, source: conflict.source).text(context.language))
                }
            }
            return
        }
        let state = try store.ledger.state()
        let reminder = try Reminder.load(store)
        let credentials = try Credentials.load(context.paths)
        let lastSync = state.lastSyncAt.map { Timestamps.rfc3339($0, zone: .current) }
        if context.json {
            try Output.json(.object([
                ("kind", .string("summary")),
                ("logged_in", .bool(credentials != nil)),
                ("server", .optional(credentials?.server)),
                ("account", .optional(credentials?.account)),
                ("user_id", .optional(credentials?.userId)),
                ("pending", .int(Int64(state.pending))),
                ("refused", .array(state.deadLetters.map { letter in
                    .object([("table", .string(letter.table)), ("row_id", .string(letter.rowId)), ("error", .string(letter.error)),
                             ("failed_at", .string(Timestamps.rfc3339(letter.failedAt, zone: .current)))])
                })),
                ("conflicts", .int(Int64(state.conflicts))),
                ("rejected", .int(Int64(state.rejected))),
                ("media_to_send", .int(Int64(state.mediaToSend))),
                ("media_to_fetch", .int(Int64(state.mediaToFetch))),
                ("last_sync_at", .optional(lastSync)),
                ("last_error", .optional(state.lastError)),
                ("cursor", .int(state.cursor)),
                ("reminder", .object([("time", .optional(reminder.time?.description)), ("paused", .bool(reminder.paused)),
                                      ("last_sent_at", .optional(try Reminder.lastSent(store).map { Timestamps.rfc3339($0, zone: .current) }))])),
            ]))
            return
        }
        try Output.line(Phrase.syncStatusLine(server: credentials?.server, pending: state.pending,
                                              dead: state.deadLetters.count, conflicts: state.conflicts, lastSync: lastSync,
                                              lastError: state.lastError).text(context.language))
        try Output.line(Phrase.reminderStatus(time: reminder.time?.description, paused: reminder.paused,
                                              lastSent: try Reminder.lastSent(store).map { Timestamps.rfc3339($0, zone: .current) })
            .text(context.language))
        if state.mediaToSend + state.mediaToFetch > 0 {
            try Output.line(Phrase.mediaTransfersWaiting(send: state.mediaToSend, fetch: state.mediaToFetch).text(context.language))
        }
        for letter in state.deadLetters {
            try Output.line(Phrase.deadLetterLine(table: letter.table, row: letter.rowId, error: letter.error).text(context.language))
        }
        if state.rejected > 0 { try Output.line(Phrase.pulledRejected(count: state.rejected).text(context.language)) }
    }
}

/// `diary-sync set`: the settings that follow the person to every device (F-019).
struct SetCommand: DiaryCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Show or change the settings that sync to every device: persona, language.",
        discussion: """
            With no argument, prints both. `diary-sync set persona fun` makes 阿樂 the companion on \
            every device (a --persona flag still wins for one call); `diary-sync set language en` \
            makes every device speak English unless --lang says otherwise. Stored here first and \
            sent with the next sync.
            """)

    @OptionGroup package var global: GlobalOptions

    @Argument(help: ArgumentHelp("persona or language.", valueName: "key"))
    var key: String?

    @Argument(help: ArgumentHelp("warm, clear, fun or empath; zh-Hant or en.", valueName: "value"))
    var value: String?

    init() {}

    func execute(_ context: CommandContext) async throws {
        let store = try context.openStore()
        let keys = ["persona", Language.settingKey]
        if let key {
            guard keys.contains(key) else { throw InputError.usage(.badOption(detail: "\(key) (persona, language)")) }
            if let value {
                let valid = key == "persona" ? Persona.named(value)?.id : Language(tag: value)?.rawValue
                guard let valid else { throw InputError.usage(.badOption(detail: "\(key) \(value)")) }
                try store.setSetting(key, valid)
            }
        }
        for name in key.map({ [$0] }) ?? keys {
            let current = try store.setting(name)
            if context.json {
                try Output.json(.object([("kind", .string("setting")), ("key", .string(name)), ("value", .optional(current))]))
            } else {
                try Output.line("\(name) = \(current ?? "-")")
            }
        }
    }
}

/// The shared work of the sync commands.
/// A command that works on the server but is no sync (logins, keys, the operator's tasks): a
/// server out of reach is said as such, not as a sync whose changes wait for later.
protocol ServerTaskCommand: DiaryCommand {
    func perform(_ context: CommandContext) async throws
}

extension ServerTaskCommand {
    func execute(_ context: CommandContext) async throws {
        do {
            try await perform(context)
        } catch SyncError.offline {
            throw SyncError.unreachable
        }
    }
}

enum SyncRunner {
    /// This device's login, or "not logged in" (exit 77).
    static func credentials(_ context: CommandContext) throws -> Credentials {
        guard let credentials = try Credentials.load(context.paths) else { throw SyncError.notLoggedIn }
        return credentials
    }

    static func once(context: CommandContext, steps: SyncEngine.Steps, retryRefused: Bool) async throws {
        let store = try context.openStore()
        let credentials = try credentials(context)
        if retryRefused {
            let count = try store.ledger.requeueDeadLetters()
            if count > 0 { context.say(.deadLettersRequeued(count: count)) }
        }
        let engine = try SyncEngine(store: store, credentials: credentials)
        let report = try await engine.run(credentials, steps: steps)
        try print(report, json: context.json, language: context.language)
        if report.refused > 0 { context.say(.syncRefused(count: report.refused)) }
        if report.rejected > 0 { context.say(.pulledRejected(count: report.rejected)) }
        if report.mediaOverQuota > 0 { throw SyncError.mediaSpaceFull(waiting: report.mediaOverQuota) }
    }

    /// One line of what moved: JSON for programs, a sentence for people.
    static func print(_ report: SyncReport, json: Bool, language: Language) throws {
        if json {
            try Output.json(.object([
                ("kind", .string("sync")), ("at", .string(Timestamps.rfc3339Millis(Date(), zone: .current))),
                ("pushed", .int(Int64(report.pushed))), ("refused", .int(Int64(report.refused))),
                ("pulled", .int(Int64(report.pulled))), ("settings_pulled", .int(Int64(report.settingsPulled))),
                ("conflicts_kept", .int(Int64(report.conflictsKept))), ("media_sent", .int(Int64(report.mediaSent))),
                ("media_fetched", .int(Int64(report.mediaFetched))), ("media_waiting", .int(Int64(report.mediaWaiting))),
                ("media_over_quota", .int(Int64(report.mediaOverQuota))),
            ]))
        } else if report.isEmpty {
            // Held-back media are not "up to date"; the error that follows says why.
            if report.mediaOverQuota == 0 { try Output.line(Phrase.syncUpToDate.text(language)) }
        } else {
            try Output.line(Phrase.synced(sent: report.pushed, received: report.pulled + report.settingsPulled,
                                          conflicts: report.conflictsKept, mediaSent: report.mediaSent,
                                          mediaFetched: report.mediaFetched, mediaWaiting: report.mediaWaiting).text(language))
        }
    }
}
