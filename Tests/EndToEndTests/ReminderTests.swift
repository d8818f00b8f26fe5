import Foundation
import Testing

/// The daily nudge through the built `diary-sync`: the timer it installs, firing with an
/// injected clock and a stand-in `notify-send` on PATH, the line for the next terminal.
@Suite("The daily nudge")
struct ReminderTests {
    @Test("remind installs a timer systemd accepts, fires once a day unless paused or written, and tells the next terminal")
    func nudge() throws {
        let sandbox = try Sandbox()
        let units = sandbox.root.appendingPathComponent("units")
        let bin = sandbox.root.appendingPathComponent("bin")
        let sent = sandbox.root.appendingPathComponent("notified")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let notifier = try sandbox.makeFile("bin/notify-send", Data("#!/bin/sh\nprintf '%s|' \"$@\" >> '\(sent.path)'\necho >> '\(sent.path)'\n".utf8))
        chmod(notifier.path, 0o755)
        sandbox.extraEnvironment["DIARY_SYSTEMD_USER_DIR"] = units.path
        sandbox.extraEnvironment["PATH"] = bin.path + ":/usr/local/bin:/usr/bin:/bin"
        sandbox.extraEnvironment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent"

        let set = try sandbox.run("diary-sync", ["remind", "21:00", "--message", "今天想記下什麼？"])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stderr.contains("21:00"))
        let timer = units.appendingPathComponent("innerbloom-remind.timer"), service = units.appendingPathComponent("innerbloom-remind.service")
        #expect(try String(contentsOf: timer, encoding: .utf8).contains("OnCalendar=*-*-* 21:00:00"))
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") {
            let verify = Process()
            verify.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-analyze")
            verify.arguments = ["verify", timer.path, service.path]
            let errors = Pipe()
            verify.standardError = errors
            try verify.run()
            verify.waitUntilExit()
            let complaints = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(verify.terminationStatus == 0, "\(complaints)")
        }

        func fire(_ moment: String) throws -> [String] {
            try? FileManager.default.removeItem(at: sent)
            sandbox.extraEnvironment["DIARY_NOW"] = moment
            let fired = try sandbox.run("diary-sync", ["remind", "fire"])
            #expect(fired.status == 0, "\(fired.stderr)")
            #expect(fired.stdout.isEmpty)
            return ((try? String(contentsOf: sent, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
        #expect(try fire("2026-11-23T21:00:00+08:00") == ["--app-name=InnerBloom Diary|InnerBloom|今天想記下什麼？|"])
        let notice = try sandbox.run("diary-sync", ["remind", "notice"])
        #expect(notice.status == 0 && notice.stdout.isEmpty)
        #expect(notice.stderr == "今天想記下什麼？\n")
        #expect(try sandbox.run("diary-sync", ["remind", "notice"]).stderr.isEmpty, "said once")
        let status = try sandbox.run("diary-sync", ["status", "--json"]).lines[0]
        #expect((status["reminder"] as? [String: Any])?["last_sent_at"] as? String == "2026-11-23T21:00:00+08:00")

        #expect(try sandbox.run("diary-sync", ["remind", "pause"]).status == 0)
        #expect(try fire("2026-11-24T21:00:00+08:00").isEmpty, "nothing while paused")
        #expect(try sandbox.run("diary-sync", ["remind", "resume"]).status == 0)

        // A page written today: nothing to nudge about.
        sandbox.extraEnvironment["DIARY_NOW"] = nil
        let written = try sandbox.pipeline([("diary-new", ["--text-only", "--text", "今天寫了"]), ("diary-save", [])])
        #expect(written.allSatisfy { $0.status == 0 })
        let today = ISO8601DateFormatter.string(from: Date(), timeZone: TimeZone(identifier: "Asia/Taipei")!,
                                                formatOptions: [.withInternetDateTime])
        #expect(try fire(today).isEmpty, "nothing once a page is written today")

        #expect(try sandbox.run("diary-sync", ["remind", "off"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: timer.path))
        #expect(try sandbox.run("diary-sync", ["remind", "9pm"]).status == 64)
    }
}
