import Foundation

/// The daily nudge (seed 004, FR-006/FR-008): at a time of day, when nothing was written
/// yet that day, a desktop notification and a line in the next terminal opened. Its time,
/// message and pause are synced settings, so every device of a person nudges alike; when it
/// was last sent belongs to this device.
package struct Reminder: Sendable, Equatable {
    /// A time of day, `HH:MM`.
    package struct Time: Sendable, Equatable, CustomStringConvertible {
        package let hour: Int
        package let minute: Int

        /// Reads `21:00`, `7:05`; nil for anything else.
        package init?(_ text: String) {
            guard let match = text.trimmingCharacters(in: .whitespaces).wholeMatch(of: /(\d{1,2}):(\d{2})/),
                  let hour = Int(match.1), let minute = Int(match.2), hour < 24, minute < 60 else { return nil }
            self.hour = hour
            self.minute = minute
        }

        package var description: String { Timestamps.pad(hour) + ":" + Timestamps.pad(minute) }
    }

    package var time: Time?
    package var message: String?
    package var paused = false

    package init(time: Time? = nil, message: String? = nil, paused: Bool = false) {
        self.time = time
        self.message = message
        self.paused = paused
    }

    static let timeKey = "remind.time", messageKey = "remind.message", pausedKey = "remind.paused"
    static let lastSentKey = "remind.last_sent"

    /// The reminder as the diary's settings hold it.
    package static func load(_ store: DiaryStore) throws -> Reminder {
        Reminder(time: try store.setting(timeKey).flatMap(Time.init), message: try store.setting(messageKey).flatMap { $0.isEmpty ? nil : $0 },
                 paused: try store.setting(pausedKey) == "true")
    }

    /// Stores what changed (each a synced setting); `time` nil means off.
    package func save(to store: DiaryStore, comparedWith old: Reminder) throws {
        if time != old.time { try store.setSetting(Self.timeKey, time?.description ?? "") }
        if message != old.message { try store.setSetting(Self.messageKey, message ?? "") }
        if paused != old.paused { try store.setSetting(Self.pausedKey, paused ? "true" : "false") }
    }

    /// When this device last sent the nudge.
    package static func lastSent(_ store: DiaryStore) throws -> Date? {
        try store.deviceSetting(lastSentKey).flatMap(Timestamps.parseRFC3339)
    }

    /// What firing now should do.
    package enum Decision: Sendable, Equatable {
        case send(String)
        case off
        case paused
        case writtenToday
    }

    /// Nothing while off or paused, nothing once a page was written on `day`; else the message.
    package func decide(pagesWritten: Int, language: Language) -> Decision {
        guard time != nil else { return .off }
        if paused { return .paused }
        if pagesWritten > 0 { return .writtenToday }
        return .send(message ?? Phrase.defaultReminder.text(language))
    }

    /// Records that the nudge went out, and leaves its line for the next terminal.
    package static func recordSent(_ text: String, at date: Date, store: DiaryStore) throws {
        try store.setDeviceSetting(lastSentKey, Timestamps.rfc3339(date, zone: .current))
        try FileManager.default.createDirectory(at: store.paths.stateDirectory, withIntermediateDirectories: true)
        try Data((text + "\n").utf8).write(to: noticeFile(store.paths), options: .atomic)
    }

    /// The line waiting for the next terminal, taken (read once, then gone); nil when none.
    package static func takeNotice(_ paths: DiaryPaths) -> String? {
        let file = noticeFile(paths)
        guard let data = FileManager.default.contents(atPath: file.path) else { return nil }
        _ = unlink(file.path)
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    static func noticeFile(_ paths: DiaryPaths) -> URL { paths.stateDirectory.appendingPathComponent("remind-notice") }
}

/// How the nudge is scheduled: a systemd user timer where a user systemd runs (a missed one
/// fires at the next login), else a crontab line the person adds themselves.
package enum ReminderSchedule {
    package static let unitName = "innerbloom-remind"

    /// The service the timer starts.
    package static func service(executable: String, home: String) -> String {
        """
        [Unit]
        Description=InnerBloom Diary daily nudge

        [Service]
        Type=oneshot
        Environment=DIARY_HOME=\(quoted(home))
        ExecStart=\(quoted(executable)) remind fire

        """
    }

    /// The timer: every day at the time, and at login when the machine was off then.
    package static func timer(_ time: Reminder.Time) -> String {
        """
        [Unit]
        Description=InnerBloom Diary daily nudge at \(time)

        [Timer]
        OnCalendar=*-*-* \(time):00
        Persistent=true

        [Install]
        WantedBy=timers.target

        """
    }

    /// The crontab line for machines without a user systemd.
    package static func crontabLine(_ time: Reminder.Time, executable: String, home: String) -> String {
        "\(time.minute) \(time.hour) * * * DIARY_HOME=\(shellQuoted(home)) \(shellQuoted(executable)) remind fire"
    }

    // systemd splits ExecStart on spaces; quoting keeps a path with spaces whole.
    private static func quoted(_ text: String) -> String {
        text.contains(" ") ? "\"" + text.replacingOccurrences(of: "\"", with: "\\\"") + "\"" : text
    }

    private static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
