import ArgumentParser
import DiaryCLI
import DiaryKit
import SyncSession
import Foundation

/// `diary-sync remind`: the daily nudge — set, pause, resume, off, show; `fire` is what the
/// timer runs, `notice` what a shell runs when it opens.
struct RemindCommand: DiaryCommand {
    static let configuration = CommandConfiguration(
        commandName: "remind",
        abstract: "A daily nudge to write: remind 21:00 [--message …], pause, resume, off; alone, show it.",
        discussion: """
            Installs a systemd user timer (a missed nudge fires at the next login) or, without a user \
            systemd, prints the crontab line to add. When it fires and no page was written today, a \
            desktop notification (notify-send) is shown and the next terminal opened says it once \
            (add `diary-sync remind notice` to your shell's startup file). The time, message and pause \
            sync to your other devices.
            """)

    @OptionGroup package var global: GlobalOptions

    @Argument(help: ArgumentHelp("A time (HH:MM), or pause, resume, off; fire and notice are for the timer and the shell.",
                                 valueName: "time|action"))
    var action: String?

    @Option(name: .long, help: ArgumentHelp("The words of the nudge.", valueName: "text"))
    var message: String?

    init() {}

    func execute(_ context: CommandContext) async throws {
        // The shell runs this at every start: it reads one small file and never opens the diary.
        let named = action.flatMap(ReminderAction.init(rawValue:))
        if named == .notice {
            if let line = Reminder.takeNotice(context.paths) { Output.standardError(line) }
            return
        }
        let store = try context.openStore()
        let current = try Reminder.load(store)
        var next = current
        switch (named, action) {
        case (nil, nil):
            if let message { next.message = message } else { return try show(current, store: store, context: context) }
        case (.pause, _): next.paused = true
        case (.resume, _): next.paused = false
        case (.off, _):
            next = Reminder()
            try next.save(to: store, comparedWith: current)
            Self.uninstall(context)
            return context.say(.reminderOff)
        case (.fire, _): return try fire(current, store: store, context: context)
        case (.notice, _): return  // answered above, before the diary is opened
        case let (nil, text?):
            guard let time = Reminder.Time(text) else { throw InputError.usage(.badReminder(text)) }
            next.time = time
            if let message { next.message = message }
        }
        guard let time = next.time else { throw InputError.usage(.badReminder(action ?? "--message")) }
        try next.save(to: store, comparedWith: current)
        if named == .pause { return context.say(.reminderPaused) }
        if named == .resume { context.say(.reminderResumed) }
        let how = try Self.install(time, context: context)
        context.say(.reminderSet(time: time.description, how: how.text(context.language)))
    }

    private func show(_ reminder: Reminder, store: DiaryStore, context: CommandContext) throws {
        let lastSent = try Reminder.lastSent(store).map { Timestamps.rfc3339($0, zone: .current) }
        if context.json {
            try Output.json(.object([("kind", .string("reminder")), ("time", .optional(reminder.time?.description)),
                                     ("message", .optional(reminder.message)), ("paused", .bool(reminder.paused)),
                                     ("last_sent_at", .optional(lastSent))]))
        } else {
            try Output.line(Phrase.reminderStatus(time: reminder.time?.description, paused: reminder.paused, lastSent: lastSent)
                .text(context.language))
        }
    }

    /// What the timer runs: send the nudge unless it is off, paused, or a page was written today.
    private func fire(_ reminder: Reminder, store: DiaryStore, context: CommandContext) throws {
        // DIARY_NOW lets a test fire "at" a given moment.
        let now = context.environment["DIARY_NOW"].flatMap(Timestamps.parseRFC3339) ?? Date()
        let day = Timestamps.localDate(now, zone: .current)
        guard case let .send(text) = reminder.decide(pagesWritten: try store.pagesWritten(on: day), language: context.language) else { return }
        try Reminder.recordSent(text, at: now, store: store)
        let runtime = context.environment["XDG_RUNTIME_DIR"].map { $0 + "/bus" }
        let sessionBus = context.environment["DBUS_SESSION_BUS_ADDRESS"] != nil || runtime.map { FileManager.default.fileExists(atPath: $0) } == true
        guard sessionBus, let notifier = Self.onPath("notify-send", context) else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: notifier)
        process.arguments = ["--app-name=InnerBloom Diary", "InnerBloom", text]
        try? process.run()
        process.waitUntilExit()
    }

    /// Where the timer's units go: `DIARY_SYSTEMD_USER_DIR` (tests; systemctl is then not
    /// run), else the user's systemd folder when a user systemd answers; nil otherwise.
    private static func unitFolder(_ context: CommandContext) -> (folder: URL, systemctl: Bool)? {
        if let folder = context.environment["DIARY_SYSTEMD_USER_DIR"] { return (URL(fileURLWithPath: folder), false) }
        guard onPath("systemctl", context) != nil, run(["systemctl", "--user", "show-environment"], context) else { return nil }
        let config = context.environment["XDG_CONFIG_HOME"].map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: context.environment["HOME"] ?? NSHomeDirectory()).appendingPathComponent(".config")
        return (config.appendingPathComponent("systemd/user"), true)
    }

    private static func install(_ time: Reminder.Time, context: CommandContext) throws -> Phrase {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.path
        let binary = executable.hasPrefix("/") ? executable : FileManager.default.currentDirectoryPath + "/" + executable
        guard let place = unitFolder(context) else {
            try Output.line(ReminderSchedule.crontabLine(time, executable: binary, home: context.paths.home.path))
            return .reminderByCron
        }
        try FileManager.default.createDirectory(at: place.folder, withIntermediateDirectories: true)
        let name = ReminderSchedule.unitName
        try Data(ReminderSchedule.service(executable: binary, home: context.paths.home.path).utf8)
            .write(to: place.folder.appendingPathComponent("\(name).service"), options: .atomic)
        try Data(ReminderSchedule.timer(time).utf8).write(to: place.folder.appendingPathComponent("\(name).timer"), options: .atomic)
        if place.systemctl {
            _ = run(["systemctl", "--user", "daemon-reload"], context)
            _ = run(["systemctl", "--user", "enable", "--now", "\(name).timer"], context)
        }
        return .reminderBySystemd
    }

    private static func uninstall(_ context: CommandContext) {
        guard let place = unitFolder(context) else { return }
        let name = ReminderSchedule.unitName
        if place.systemctl { _ = run(["systemctl", "--user", "disable", "--now", "\(name).timer"], context) }
        for suffix in ["service", "timer"] { _ = unlink(place.folder.appendingPathComponent("\(name).\(suffix)").path) }
        if place.systemctl { _ = run(["systemctl", "--user", "daemon-reload"], context) }
    }

    private static func onPath(_ tool: String, _ context: CommandContext) -> String? {
        (context.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map { "\($0)/\(tool)" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs a program quietly; true when it exits 0.
    private static func run(_ arguments: [String], _ context: CommandContext) -> Bool {
        guard let path = onPath(arguments[0], context) else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = Array(arguments.dropFirst())
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}

/// The words `diary-sync remind` takes instead of a time.
private enum ReminderAction: String {
    case pause, resume, off
    /// Run by the timer.
    case fire
    /// Run by the shell at start.
    case notice
}
