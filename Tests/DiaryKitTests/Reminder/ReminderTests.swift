import Foundation
import GRDB
import Testing
@testable import DiaryKit
@testable import DiaryTestSupport

/// The daily nudge: its time, its schedule files and when it stays silent.
@Suite struct ReminderTests {
    @Test func timesAreReadAsHoursAndMinutes() {
        #expect(Reminder.Time("21:00")?.description == "21:00")
        #expect(Reminder.Time(" 7:05")?.description == "07:05")
        for bad in ["25:00", "21:60", "21", "9pm", "", "21:00:00"] { #expect(Reminder.Time(bad) == nil, "\(bad)") }
    }

    @Test func theTimerFiresDailyAndCatchesUpAfterAMissedOne() {
        let timer = ReminderSchedule.timer(Reminder.Time("7:05")!)
        #expect(timer.contains("OnCalendar=*-*-* 07:05:00\n"))
        #expect(timer.contains("Persistent=true\n"))
        let service = ReminderSchedule.service(executable: "/opt/my tools/diary-sync", home: "/home/a/diary")
        #expect(service.contains("ExecStart=\"/opt/my tools/diary-sync\" remind fire\n"))
        #expect(service.contains("Environment=DIARY_HOME=/home/a/diary\n"))
        #expect(ReminderSchedule.crontabLine(Reminder.Time("21:30")!, executable: "/usr/bin/diary-sync", home: "/h/it's")
                == "30 21 * * * DIARY_HOME='/h/it'\\''s' '/usr/bin/diary-sync' remind fire")
    }

    @Test func itStaysSilentWhenOffPausedOrWrittenToday() throws {
        var reminder = Reminder()
        #expect(reminder.decide(pagesWritten: 0, language: .zhHant) == .off)
        reminder.time = Reminder.Time("21:00")
        #expect(reminder.decide(pagesWritten: 0, language: .en) == .send(Phrase.defaultReminder.en))
        #expect(reminder.decide(pagesWritten: 1, language: .en) == .writtenToday)
        reminder.message = "今天想記下什麼？"
        #expect(reminder.decide(pagesWritten: 0, language: .en) == .send("今天想記下什麼？"))
        reminder.paused = true
        #expect(reminder.decide(pagesWritten: 0, language: .en) == .paused)
    }

    @Test func settingsSyncAndTheNoticeIsReadOnce() throws {
        let diary = try TestDiary()
        let old = try Reminder.load(diary.store)
        let set = Reminder(time: Reminder.Time("21:00"), message: "寫一點吧", paused: true)
        try set.save(to: diary.store, comparedWith: old)
        #expect(try Reminder.load(diary.store) == set)
        let queued = try diary.store.read { db in try String.fetchAll(db, sql: "SELECT row_id FROM outbox WHERE table_name = 'setting' ORDER BY row_id") }
        #expect(queued == ["remind.message", "remind.paused", "remind.time"], "the nudge follows the person to every device")

        let sent = Date(timeIntervalSince1970: 1_795_000_000)
        try Reminder.recordSent("寫一點吧", at: sent, store: diary.store)
        #expect(try Reminder.lastSent(diary.store) == sent)
        #expect(Reminder.takeNotice(diary.store.paths) == "寫一點吧")
        #expect(Reminder.takeNotice(diary.store.paths) == nil)
    }
}
