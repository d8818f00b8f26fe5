import ArgumentParser
import Foundation

/// `diary-sync`: sync, and archives (backup, export, restore, import).
public struct SyncCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "diary-sync",
        abstract: "Sync the diary across devices, and back it up.",
        discussion: "Every change is stored on this device first and queued for sync; nothing waits on the network.",
        subcommands: [SyncStatusCommand.self, BackupCommand.self, ExportCommand.self, RestoreCommand.self, ImportCommand.self],
        defaultSubcommand: SyncStatusCommand.self)

    public init() {}
}

/// `diary-sync status`: pending changes and whether this device is logged in.
struct SyncStatusCommand: DiaryCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show how many changes wait to be synced and whether this device is logged in.")

    @OptionGroup var global: GlobalOptions

    @Flag(name: .customLong("text"), help: "Print readable text, even when piped (same as --readable).")
    var textOutput = false

    init() {}

    var forcesText: Bool { textOutput }

    mutating func run() async throws { try await perform() }

    func execute(_ context: CommandContext) async throws {
        let store = try context.openStore()
        let status = try SyncStatus.read(store: store)
        if context.json {
            try Output.json(.object([
                ("kind", .string("summary")),
                ("pending", .int(Int64(status.pendingChanges))),
                ("logged_in", .bool(status.loggedIn)),
                ("last_sync_at", .optional(status.lastSyncAt.map { Timestamps.rfc3339($0, zone: .current) })),
            ]))
        } else {
            let phrase: Phrase = status.loggedIn ? .syncPending(pending: status.pendingChanges)
                                                 : .syncNotLoggedIn(pending: status.pendingChanges)
            try Output.line(phrase.text(context.language))
        }
    }
}
