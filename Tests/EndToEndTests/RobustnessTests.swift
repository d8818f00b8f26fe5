import DiaryKit
import Foundation
import Testing

@Suite("Several processes, killed processes")
struct RobustnessTests {
    @Test("two diary-chat processes writing to one entry at once lose no message")
    func concurrentChats() async throws {
        let sandbox = try Sandbox()
        let new = try sandbox.run("diary-new", ["--text-only", "--text", "一起聊"])
        let id = try #require(new.lines.first?["id"] as? String)
        let rounds = 8
        try await withThrowingTaskGroup(of: [Int32].self) { group in
            for writer in ["甲", "乙"] {
                group.addTask {
                    var statuses: [Int32] = []
                    for round in 0..<rounds {
                        statuses.append(try sandbox.run("diary-chat", [id, "-m", "\(writer)-\(round)"]).status)
                    }
                    return statuses
                }
            }
            for try await statuses in group { #expect(statuses.allSatisfy { $0 == 0 }, "\(statuses)") }
        }
        let said = try sandbox.sql("SELECT text FROM message WHERE author = 'person' ORDER BY text").split(separator: "\n").map(String.init)
        let expected = ["甲", "乙"].flatMap { writer in (0..<rounds).map { "\(writer)-\($0)" } }.sorted()
        #expect(said == expected)
        #expect(try sandbox.sql("SELECT count(*) FROM message WHERE author = 'companion'") == "\(2 * rounds + 1)",
                "every message answered, one greeting")
        #expect(try sandbox.sql("PRAGMA integrity_check") == "ok")
    }

    @Test("SIGKILL in the middle of diary-save leaves a sound database with the chat intact")
    func killedSave() throws {
        let sandbox = try Sandbox()
        _ = try sandbox.run("diary-new", ["--text-only", "--text", "被打斷的一天"])
        for index in 0..<6 { _ = try sandbox.run("diary-chat", ["-m", "第 \(index) 句：和朋友在海邊散步，心情有點焦慮"]) }
        let messagesBefore = try sandbox.sql("SELECT id, text FROM message ORDER BY seq")
        var statuses: Set<String> = []
        for attempt in 0..<12 {
            let (process, _, _) = try sandbox.start("diary-save", [])
            // Spread the kills over start-up, the read, the write and the commit.
            usleep(UInt32(attempt * 4_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(try sandbox.sql("PRAGMA integrity_check") == "ok")
            #expect(try sandbox.searchIndexIsConsistent(), "the index is never half written")
            #expect(try sandbox.sql("SELECT id, text FROM message ORDER BY seq") == messagesBefore, "the chat is intact")
            let status = try sandbox.sql("SELECT status FROM entry")
            statuses.insert(status)
            #expect(["chatting", "saved"].contains(status))
            if status == "saved" {
                let tags = Int(try sandbox.sql("SELECT count(*) FROM entry_tag")) ?? 0
                // 焦慮, 旅行, 海邊, 朋友, 散步: all five or none.
                #expect(tags == 5, "a saved page has all its tags: the write was atomic")
            }
        }
        // Whatever happened, a later save finishes the page and the index agrees with the data.
        let finished = try sandbox.run("diary-save", [try sandbox.sql("SELECT id FROM entry")])
        #expect(finished.status == 0, "\(finished.stderr)")
        #expect(try sandbox.run("diary-find", ["焦慮", "--json"]).lines.count == 1)
        #expect(try sandbox.searchIndexIsConsistent())
    }

    @Test("the first pipeline in a brand-new diary succeeds even when the two processes create it at once, under load")
    func firstUseUnderLoad() throws {
        // Two busy loops, as the report had them: the processes start together and the first
        // one to open the new file is often paused half-way through making it.
        let load = try (0..<2).map { _ in
            let busy = Process()
            busy.executableURL = URL(fileURLWithPath: "/usr/bin/yes")
            busy.standardOutput = FileHandle.nullDevice
            // Not the test's own stderr: a survivor would keep the runner waiting for it to close.
            busy.standardError = FileHandle.nullDevice
            try busy.run()
            return busy
        }
        // SIGKILL: a child of the test runner may inherit a mask that blocks SIGTERM.
        defer {
            for busy in load {
                kill(busy.processIdentifier, SIGKILL)
                busy.waitUntilExit()
            }
        }
        var failures: [String] = []
        for index in 0..<50 {
            let sandbox = try Sandbox()
            let results = try sandbox.pipeline([("diary-new", ["--text-only", "--text", "第 \(index) 篇"]), ("diary-save", [])])
            for result in results where result.status != 0 { failures.append("\(index): \(result.status) \(result.stderr)") }
        }
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test("a piped diary-find and a whole-diary export stream: ten times the pages take about the same memory")
    func bigDiariesInFlatMemory() throws {
        let sandbox = try Sandbox()
        // Pages written through the store's bulk import; the binaries under test only read them.
        let store = try DiaryStore.open(DiaryPaths(homeFlag: sandbox.home.path, environment: [:]))
        let zone = try #require(TimeZone(identifier: "Asia/Taipei"))
        var written = 0
        func fill(upTo count: Int) throws {
            while written < count {
                let batch = (written..<min(count, written + 1_000)).map { n in
                    ImportedEntry(occurredAt: Date(timeIntervalSince1970: 1_600_000_000 + Double(n) * 3_600), timeZone: zone,
                                  note: "第 \(n) 天在海邊散步", persona: "warm", provider: "offline", title: "海邊 \(n)",
                                  summary: String(repeating: "今天的海邊風很大，心裡卻很安靜。", count: 12),
                                  tags: ["海邊", "散步", "第\(n % 40)週"], messages: [])
                }
                try store.importEntries(batch)
                written += batch.count
            }
        }
        let output = sandbox.root.appendingPathComponent("out")
        // Peak memory of each command, after checking it printed or wrote every page.
        func measure() throws -> [Int] {
            var peaks: [Int] = []
            for arguments in [["--json"], ["海邊", "--json"]] {
                let run = try sandbox.runMeasuringMemory("diary-find", arguments, output: output)
                #expect(run.status == 0)
                let lines = try String(contentsOf: output, encoding: .utf8).split(separator: "\n")
                #expect(lines.count == written, "diary-find \(arguments) printed every page")
                peaks.append(run.peakBytes)
            }
            for format in ["tar", "dayone", "jrnl"] {
                let archive = sandbox.root.appendingPathComponent("all.\(format)")
                let export = try sandbox.runMeasuringMemory("diary-sync", ["export", "--format", format, "-o", archive.path], output: output)
                #expect(export.status == 0)
                let summary = try String(contentsOf: output, encoding: .utf8)
                #expect(summary.contains("\"entries\":\(written)"), "\(format): \(summary)")
                peaks.append(export.peakBytes)
            }
            return peaks
        }
        try fill(upTo: 2_000)
        let small = try measure()
        try fill(upTo: 20_000)
        let large = try measure()
        // Held in memory, 18,000 more pages cost well over 100 MB (the report measured ≈ 9 KB a
        // page); streamed, what grows is SQLite's small page cache and the export's list of ids.
        let names = ["diary-find", "diary-find 海邊", "diary-sync export", "diary-sync export --format dayone", "diary-sync export --format jrnl"]
        for (name, (before, after)) in zip(names, zip(small, large)) {
            #expect(after - before < 16 << 20, "\(name): \(before >> 20) MB at 2,000 pages, \(after >> 20) MB at 20,000")
        }
    }
}
