import Foundation

// The daily nudge's words (`diary-sync remind`).
extension Phrase {
    static let defaultReminder = Phrase("今天想記下什麼嗎？InnerBloom 夥伴在這裡陪你。", "Anything you'd like to keep from today? The InnerBloom companion is here.")

    package static func reminderSet(time: String, how: String) -> Phrase {
        Phrase("每天 \(time) 提醒你寫日記（\(how)）", "A daily nudge at \(time) (\(how)).")
    }

    package static let reminderBySystemd = Phrase("systemd 使用者計時器；錯過的會在下次登入時補上", "a systemd user timer; a missed one fires at the next login")

    package static let reminderByCron = Phrase("這台電腦沒有使用者 systemd；請用 crontab -e 加入上面這一行",
        "no user systemd here; add the line above with crontab -e")

    package static let reminderPaused = Phrase("提醒已暫停；diary-sync remind resume 可恢復", "The nudge is paused; diary-sync remind resume brings it back.")

    package static let reminderResumed = Phrase("提醒已恢復", "The nudge is back on.")

    package static let reminderOff = Phrase("已關閉每日提醒", "The daily nudge is off.")

    package static let reminderNotSet = Phrase("還沒有設定每日提醒；例如 diary-sync remind 21:00", "No daily nudge yet; e.g. diary-sync remind 21:00")

    package static func reminderStatus(time: String?, paused: Bool, lastSent: String?) -> Phrase {
        let zh = (time.map { "每日提醒：\($0)\(paused ? "（已暫停）" : "")" } ?? "每日提醒：未設定") + "；上次提醒：\(lastSent ?? "從未")"
        let en = (time.map { "Daily nudge: \($0)\(paused ? " (paused)" : "")" } ?? "Daily nudge: off") + "; last sent: \(lastSent ?? "never")"
        return Phrase(zh, en)
    }

    package static func badReminder(_ text: String) -> Phrase {
        Phrase("看不懂「\(TerminalText.quoted(text))」：請給時間（例如 21:00）或 pause、resume、off", "Can't read \(TerminalText.quoted(text)): give a time (like 21:00) or pause, resume, off.")
    }
}
