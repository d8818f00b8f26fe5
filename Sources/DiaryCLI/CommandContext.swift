import ArgumentParser
import DiaryKit
import Foundation

/// Options every command takes.
package struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The diary folder (default: $DIARY_HOME, else $XDG_DATA_HOME/diary).", valueName: "dir"))
    var home: String?

    @Option(name: .long, help: ArgumentHelp("Language of messages and replies: zh-Hant or en.", valueName: "lang"))
    package var lang: String?

    @Flag(name: .long, help: "Print JSON Lines, even on a terminal.")
    package var json = false

    @Flag(name: .long, help: "Print readable text, even when piped.")
    package var readable = false

    @Flag(name: [.short, .long], help: "Say nothing on stderr but errors.")
    package var quiet = false

    @Flag(name: .long, help: "Tell on stderr what is asked of the model and weather services (never a key).")
    package var verbose = false

    package init() {}
}

/// Everything a command needs from its surroundings: where the diary is, the config, the
/// language, and whether it talks to a terminal or a pipe.
package struct CommandContext {
    package let environment: [String: String]
    package let paths: DiaryPaths
    package let config: Config
    package let language: Language
    package let json: Bool
    package let quiet: Bool
    package let verbose: Bool
    package let stdinIsTerminal: Bool
    package let stdoutIsTerminal: Bool
    /// The diary, opened once here when it already exists: its synced language counts.
    private let existingStore: DiaryStore?

    init(_ options: GlobalOptions, forceText: Bool = false) throws {
        environment = ProcessInfo.processInfo.environment
        paths = DiaryPaths(homeFlag: options.home, environment: environment)
        stdinIsTerminal = isatty(STDIN_FILENO) == 1
        stdoutIsTerminal = isatty(STDOUT_FILENO) == 1
        quiet = options.quiet
        verbose = options.verbose
        if let flag = options.lang, Language(tag: flag) == nil {
            throw InputError.usage(.badOption(detail: "--lang \(flag) (zh-Hant, en)"))
        }
        config = try Config.load(from: paths.configFile)
        // A diary that cannot be opened is left for the command itself to report.
        existingStore = FileManager.default.fileExists(atPath: paths.database.path) ? try? DiaryStore.open(paths) : nil
        language = Language.resolve(flag: options.lang, setting: (try? existingStore?.setting(Language.settingKey)) ?? nil,
                                    config: config.language, environment: environment)
        if options.json { json = true } else if options.readable || forceText { json = false } else { json = !stdoutIsTerminal }
    }

    /// Opens the diary.
    package func openStore() throws -> DiaryStore { try existingStore ?? DiaryStore.open(paths) }

    /// A line for people, on stderr (unless `--quiet`).
    package func say(_ phrase: Phrase) {
        guard !quiet else { return }
        Output.standardError(phrase.text(language))
    }

    /// The media size limits from the config.
    package var mediaLimits: MediaLimits {
        MediaLimits(photoBytes: config.photoLimitBytes, videoBytes: config.videoLimitBytes, audioBytes: config.audioLimitBytes)
    }

    /// Which companion speaks for an entry, telling the person if a stored choice was unusable.
    package func persona(flag: String?, entryPersona: String?, store: DiaryStore) throws -> Persona {
        let choice = try PersonaChoice.resolve(flag: flag, entryPersona: entryPersona,
                                               setting: try store.setting("persona"), config: config.persona)
        if let notice = choice.notice { say(notice) }
        return choice.persona
    }
}

/// What every command in this toolkit carries: the global options, and whether `--text` was given.
package protocol DiaryCommandOptions {
    var global: GlobalOptions { get }
    /// True when `--text` was given on commands that have it.
    var forcesText: Bool { get }
}

extension DiaryCommandOptions {
    package var forcesText: Bool { false }
}

/// A command in this toolkit: it runs in a context, and its failures become a sentence on
/// stderr and a sysexits status.
package protocol DiaryCommand: AsyncParsableCommand, DiaryCommandOptions {
    func execute(_ context: CommandContext) async throws
}

extension DiaryCommand {
    /// Every command runs the same way: `execute` in a fresh context.
    package mutating func run() async throws {
        let context = try CommandRun.context(for: self)
        do {
            try await execute(context)
        } catch {
            throw CommandRun.failure(error, in: context)
        }
    }
}

/// A command like `DiaryCommand` whose work never waits on the network or a clock. It runs
/// without Swift's concurrency runtime, whose start (a worker thread, the global executor)
/// is a tenth to a fifth of a short command's time; `diary-find` is one.
package protocol LocalDiaryCommand: ParsableCommand, DiaryCommandOptions {
    func execute(_ context: CommandContext) throws
}

extension LocalDiaryCommand {
    /// As `DiaryCommand.run()`, without waiting.
    package mutating func run() throws {
        let context = try CommandRun.context(for: self)
        do {
            try execute(context)
        } catch {
            throw CommandRun.failure(error, in: context)
        }
    }
}

/// What every command does around its work.
enum CommandRun {
    /// A fresh context; without a usable one (bad --lang or config) the failure is told in the
    /// language the flag or locale asks for.
    static func context(for command: some DiaryCommandOptions) throws -> CommandContext {
        signal(SIGPIPE, SIG_IGN)
        do {
            return try CommandContext(command.global, forceText: command.forcesText)
        } catch {
            let language = Language.resolve(flag: command.global.lang, setting: nil, config: nil,
                                            environment: ProcessInfo.processInfo.environment)
            throw ExitCode(ErrorReport.report(error, language: language))
        }
    }

    /// A command's failure as a sentence on stderr and the status to exit with.
    static func failure(_ error: Error, in context: CommandContext) -> Error {
        if let exit = error as? ExitCode { return exit }
        return ExitCode(ErrorReport.report(error, language: context.language))
    }
}
