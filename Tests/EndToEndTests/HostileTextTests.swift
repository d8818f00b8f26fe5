import Foundation
import Testing

/// Text that would work against the person's terminal, and input too large to echo: stored
/// text is shown, never obeyed, in readable output; JSON keeps it exact; messages quote
/// input briefly.
@Suite("Hostile text and huge input")
struct HostileTextTests {
    /// Retitles the window, rings the bell, clears the screen and reverses what follows.
    static let hostile = "海邊\u{1B}]0;pwned\u{07}\u{1B}[2J\u{202E}txt.exe\u{9B}31m"

    static func obeyable(_ text: String) -> Bool {
        text.unicodeScalars.contains { [0x1B, 0x07, 0x9B, 0x202E].contains($0.value) }
    }

    @Test("control and bidi characters in stored text never reach readable output; JSON keeps them exactly")
    func storedTextIsShownNotObeyed() throws {
        let sandbox = try Sandbox()
        let results = try sandbox.pipeline([("diary-new", ["--text-only", "--text", Self.hostile]),
                                            ("diary-chat", ["-m", "朋友說 \(Self.hostile)"]), ("diary-save", [])])
        for result in results { #expect(result.status == 0, "\(result.stderr)") }
        let id = try #require(results[2].lines.first?["id"] as? String)
        _ = try sandbox.run("diary-save", [id, "--add-tag", "tag\u{1B}[31m"])

        let readable: [(String, [String])] = [
            ("diary-find", ["--show", id, "--text"]), ("diary-find", ["海邊", "--text"]), ("diary-find", ["--tags", "--text"]),
            ("diary-find", ["--text"]), ("diary-find", ["--show", id, "--history", "--text"]),
            ("diary-chat", [id, "-m", "再說一次 \(Self.hostile)", "--text"]), ("diary-save", [id, "--star", "--text"]),
        ]
        for (tool, arguments) in readable {
            let result = try sandbox.run(tool, arguments)
            #expect(result.status == 0, "\(tool) \(arguments): \(result.stderr)")
            #expect(!Self.obeyable(result.stdout) && !Self.obeyable(result.stderr), "\(tool) \(arguments): \(result.stdout.debugDescription)")
            #expect(result.stdout.contains("^[") || result.stdout.contains("<U+202E>"), "shown, not dropped: \(result.stdout)")
        }
        let json = try sandbox.run("diary-find", ["--show", id])
        #expect((json.lines.first?["note"] as? String) == Self.hostile, "JSON keeps the stored text exactly")
    }

    @Test("a huge id is quoted in a few characters, on stderr, with the usual status")
    func hugeInputIsQuotedBriefly() throws {
        let sandbox = try Sandbox()
        let huge = String(repeating: "a", count: 1_000_000)
        let piped = try sandbox.run("diary-save", ["--star"], stdin: huge + "\n")
        #expect(piped.status == 66, "\(piped.stderr)")
        #expect(piped.stderr.contains("找不到這篇日記"))
        #expect(piped.stderr.count <= 200, "\(piped.stderr.count) characters")
        let argument = try sandbox.run("diary-find", ["--show", String(repeating: "b", count: 100_000)])
        #expect(argument.status == 1)
        #expect(argument.stderr.count <= 200 && argument.stderr.contains("找不到這篇日記"), "\(argument.stderr.prefix(300))")
    }

    @Test("a password in a server URL is never echoed, whatever characters it holds")
    func passwordsInURLsStayHidden() throws {
        let sandbox = try Sandbox()
        for password in ["pa:ss", "pa/ss", "p@ss", "a:b/c@d"] {
            let result = try sandbox.run("diary-sync", ["login", "--url", "postgres://bob:\(password)@db.example/diary?sslmode=maybe"],
                                         stdin: "")
            #expect(result.status == 64, "\(password): \(result.stderr)")
            #expect(result.stderr.contains("postgres://bob:…@db.example/diary"), "\(result.stderr)")
            #expect(!result.stderr.contains(password) && !result.stdout.contains(password), "\(result.stderr)")
        }
    }
}

