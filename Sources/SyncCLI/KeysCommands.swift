import ArgumentParser
import DiaryCLI
import DiaryKit
import DiarySeal
import DiarySync
import SyncSession
import Foundation

/// How a login finds or makes a sealed diary's keys.
struct SealingOptions: ParsableArguments {
    @Option(name: .customLong("passphrase-file"), help: ArgumentHelp(
        "Read the diary passphrase from the first line of this file (for scripts; never give it as a flag).", valueName: "file"))
    var passphraseFile: String?

    @Option(name: .customLong("recovery-key"), help: ArgumentHelp(
        "Open the diary with its recovery key ('-': read it from standard input), then set a new passphrase.", valueName: "-|file"))
    var recoveryKey: String?

    @Flag(name: .customLong("no-seal"), help: "For a new account: sync in clear instead of sealed (the server can read the diary).")
    var noSeal = false

    init() {}

    /// The passphrase of an existing diary: from `file`, else asked once on the terminal.
    static func passphrase(file: String?, _ context: CommandContext) throws -> String {
        if let file { return try firstLine(of: file) }
        guard let typed = context.askSecret(.passphrasePrompt), !typed.isEmpty else { throw SealError.passphraseNeeded }
        return typed
    }

    /// A new passphrase: from `file`, else asked twice on the terminal.
    static func newPassphrase(file: String?, _ context: CommandContext) throws -> String {
        if let file { return try firstLine(of: file) }
        guard let typed = context.askSecret(.newPassphrasePrompt), !typed.isEmpty else { throw SealError.passphraseNeeded }
        guard let again = context.askSecret(.repeatPassphrasePrompt), again == typed else { throw SealError.passphrasesDiffer }
        return typed
    }

    /// The recovery key typed or kept in a file.
    func recovery() throws -> RecoveryKey? {
        guard let recoveryKey else { return nil }
        let text = recoveryKey == "-" ? (readLine(strippingNewline: true) ?? "") : try Self.firstLine(of: recoveryKey)
        return try RecoveryKey(text)
    }

    private static func firstLine(of path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else { throw SealError.secretFileUnreadable(path) }
        let line = String(decoding: data, as: UTF8.self).split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard !line.isEmpty else { throw SealError.passphraseNeeded }
        return String(line)
    }

    /// The keys this login brings to the device: the sealed diary opened with the passphrase
    /// (or the recovery key, and then a new passphrase), a new sealed diary for a new account
    /// (its recovery key printed once), or none for a diary in clear.
    func keys(for credentials: Credentials, context: CommandContext, store: DiaryStore) async throws -> DiaryKeys? {
        let account = credentials.userId
        // The login is not kept yet: its session is used as granted.
        switch try await SealedAccount.look(credentials, paths: store.paths, saved: false) {
        case let .sealed(envelope):
            if let recovery = try recovery() {
                let keys = try DiaryKeys.open(envelope, account: account, recoveryKey: recovery)
                let changed = try keys.rewrapped(envelope, passphrase: try Self.newPassphrase(file: passphraseFile, context))
                try await SealedAccount.put(changed, credentials, paths: store.paths, saved: false)
                context.say(.passphraseChanged)
                return keys
            }
            let keys = try DiaryKeys.open(envelope, account: account, passphrase: try Self.passphrase(file: passphraseFile, context))
            context.say(.diaryOpened)
            return keys
        case let .clear(hasChanges):
            if noSeal { return nil }
            if hasChanges {
                context.say(.stillInClear)
                return nil
            }
            let made = try DiaryKeys.create(account: account, passphrase: try Self.newPassphrase(file: passphraseFile, context))
            try await SealedAccount.put(made.envelope, credentials, paths: store.paths, saved: false)
            // Kept at once: from here on the server takes only sealed pages from this account.
            try KeyFile.save(made.keys, store.paths)
            context.say(.recoveryKeyShown)
            try Output.line(made.recoveryKey.text)
            return made.keys
        }
    }
}

/// `diary-sync keys`: a sealed diary's keys.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Show or change a sealed diary's keys: status, passphrase, rotate.",
        subcommands: [KeysStatusCommand.self, KeysPassphraseCommand.self, KeysRotateCommand.self],
        defaultSubcommand: KeysStatusCommand.self)

    init() {}
}

/// `diary-sync keys status`.
struct KeysStatusCommand: ServerTaskCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Whether the diary syncs sealed, its key ids, and whether this device holds the keys.")

    @OptionGroup package var global: GlobalOptions

    init() {}

    func perform(_ context: CommandContext) async throws {
        let store = try context.openStore()
        let credentials = try SyncRunner.credentials(context)
        let held = try KeyFile.load(store.paths, account: credentials.userId)
        guard case let .sealed(envelope) = try await SealedAccount.look(credentials, paths: store.paths) else {
            if context.json {
                try Output.json(.object([("kind", .string("keys")), ("sealed", .bool(false))]))
            } else {
                try Output.line(Phrase.syncsInClear.text(context.language))
            }
            return
        }
        if context.json {
            try Output.json(.object([
                ("kind", .string("keys")), ("sealed", .bool(true)), ("key_id", .string(envelope.keyId)),
                ("items_key", .int(Int64(envelope.currentItemsKey))), ("kdf", .string("argon2id13")),
                ("ops", .int(Int64(envelope.cost.operations))), ("mem", .int(Int64(envelope.cost.memory))),
                ("on_this_device", .bool(held?.keyId == envelope.keyId)),
                ("device_items_key", held.map { .int(Int64($0.currentItemsKey)) } ?? .null),
            ]))
        } else {
            try Output.line(Phrase.keysStatusLine(keyId: envelope.keyId, itemsKey: envelope.currentItemsKey,
                                                  operations: envelope.cost.operations, memoryMiB: envelope.cost.memory >> 20,
                                                  onThisDevice: held?.keyId == envelope.keyId).text(context.language))
        }
    }
}

/// `diary-sync keys passphrase`.
struct KeysPassphraseCommand: ServerTaskCommand {
    static let configuration = CommandConfiguration(
        commandName: "passphrase",
        abstract: "Change the diary passphrase (only the diary key is wrapped again; nothing else changes).")

    @OptionGroup package var global: GlobalOptions

    @Option(name: .customLong("passphrase-file"), help: ArgumentHelp("Read the new passphrase from this file (for scripts).", valueName: "file"))
    var passphraseFile: String?

    init() {}

    func perform(_ context: CommandContext) async throws {
        let (store, credentials, keys, envelope) = try await SealedKeysOnDevice.load(context)
        let changed = try keys.rewrapped(envelope, passphrase: try SealingOptions.newPassphrase(file: passphraseFile, context))
        try await SealedAccount.put(changed, credentials, paths: store.paths)
        context.say(.passphraseChanged)
    }
}

/// `diary-sync keys rotate`.
struct KeysRotateCommand: ServerTaskCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate", abstract: "Make a new items key for what is sealed from now on; older pages still open.")

    @OptionGroup package var global: GlobalOptions

    init() {}

    func perform(_ context: CommandContext) async throws {
        let (store, credentials, current, envelope) = try await SealedKeysOnDevice.load(context)
        var keys = try current.refreshed(from: envelope)
        let changed = try keys.rotate(envelope)
        try await SealedAccount.put(changed, credentials, paths: store.paths)
        try KeyFile.save(keys, store.paths)
        context.say(.itemsKeyRotated(number: keys.currentItemsKey))
    }
}

/// `diary-sync encrypt`.
struct EncryptCommand: ServerTaskCommand {
    static let configuration = CommandConfiguration(
        commandName: "encrypt",
        abstract: "Seal a diary that syncs in clear: from then on the server keeps only what it cannot read.",
        discussion: """
            Syncs once, then asks for a new diary passphrase (twice, or --passphrase-file), prints the \
            recovery key once, and replaces every page, chat, tag, setting and file on the server by its \
            sealed form; the clear copies, the versions kept by merges and the receipts are removed. \
            Meanwhile the server takes no changes from any device: they wait on their devices. Cut off at \
            any point, run it again to finish. Other devices then log in again with the passphrase. \
            Backups the server's operator made before still hold the clear diary.
            """)

    @OptionGroup package var global: GlobalOptions

    @Option(name: .customLong("passphrase-file"), help: ArgumentHelp(
        "Read the diary passphrase (new, or the one already chosen when resuming) from this file.", valueName: "file"))
    var passphraseFile: String?

    init() {}

    func perform(_ context: CommandContext) async throws {
        let store = try context.openStore()
        let credentials = try SyncRunner.credentials(context)
        let account = credentials.userId
        let sealing = AccountSealing(store: store, credentials: credentials)
        // New keys this device made on an earlier run that was cut off: the same again.
        var pending = try PendingKeys.load(store.paths, account: account)
        let keys: DiaryKeys, envelope: KeyEnvelope
        if let pending {
            (keys, envelope) = (pending.keys, pending.envelope)
        } else {
            switch try await sealing.stage() {
            case let .sealed(sealed):
                guard try KeyFile.load(store.paths, account: account)?.keyId == sealed.keyId else { throw SealError.needsKeys }
                context.say(.alreadySealed)
                return
            case let .sealing(sealed):
                envelope = sealed
                if let held = try KeyFile.load(store.paths, account: account), held.keyId == sealed.keyId {
                    keys = held
                } else {
                    keys = try DiaryKeys.open(sealed, account: account, passphrase: try SealingOptions.passphrase(file: passphraseFile, context))
                    try KeyFile.save(keys, store.paths)
                }
            case .clear:
                try await sealing.prepare()
                let made = try DiaryKeys.create(account: account, passphrase: try SealingOptions.newPassphrase(file: passphraseFile, context))
                try PendingKeys.save(made.keys, envelope: made.envelope, recoveryKey: made.recoveryKey, store.paths)
                pending = made
                (keys, envelope) = (made.keys, made.envelope)
            }
        }
        let outcome = try await sealing.seal(keys, envelope: envelope) {
            // The server holds the envelope: the keys are this device's now, and the recovery
            // key is shown (again, if a run was cut off before the pending keys were dropped).
            guard let pending else { return }
            try KeyFile.save(pending.keys, store.paths)
            context.say(.recoveryKeyShown)
            try Output.line(pending.recoveryKey.text)
            PendingKeys.remove(store.paths)
        }
        context.say(.diarySealed(pages: outcome.pages, settings: outcome.settings, files: outcome.files))
    }
}

/// The keys on this device and the envelope on the server, for the commands that change them.
enum SealedKeysOnDevice {
    static func load(_ context: CommandContext) async throws -> (DiaryStore, Credentials, DiaryKeys, KeyEnvelope) {
        let store = try context.openStore()
        let credentials = try SyncRunner.credentials(context)
        guard case let .sealed(envelope) = try await SealedAccount.look(credentials, paths: store.paths) else { throw SealError.notSealed }
        guard let keys = try KeyFile.load(store.paths, account: credentials.userId) else { throw SealError.needsKeys }
        return (store, credentials, keys, envelope)
    }
}
