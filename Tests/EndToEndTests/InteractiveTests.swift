import Foundation
import Testing

/// A pseudo terminal: the tool sees a terminal on stdin and stdout; the test types and reads.
final class PseudoTerminal: @unchecked Sendable {
    let primary: Int32
    let secondary: Int32

    // glibc declares the pty calls only under _XOPEN_SOURCE, which Swift's Glibc module
    // does not set, so they are looked up at run time.
    private static func function<T>(_ name: String, as type: T.Type) -> T {
        unsafeBitCast(dlsym(dlopen(nil, RTLD_NOW), name), to: type)
    }

    init() throws {
        typealias IntCall = @convention(c) (Int32) -> Int32
        typealias NameCall = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?
        let openPrimary = Self.function("posix_openpt", as: IntCall.self)
        let grant = Self.function("grantpt", as: IntCall.self)
        let unlock = Self.function("unlockpt", as: IntCall.self)
        let secondaryName = Self.function("ptsname", as: NameCall.self)
        primary = openPrimary(O_RDWR | O_NOCTTY)
        guard primary >= 0, grant(primary) == 0, unlock(primary) == 0, let name = secondaryName(primary) else {
            throw POSIXError(.ENOTTY)
        }
        secondary = open(String(cString: name), O_RDWR | O_NOCTTY)
        guard secondary >= 0 else { throw POSIXError(.ENOTTY) }
    }

    deinit {
        close(primary)
        close(secondary)
    }

    func type(_ text: String) {
        _ = text.utf8CString.withUnsafeBufferPointer { write(primary, $0.baseAddress, $0.count - 1) }
    }

    /// Starts a tool with this terminal as its stdin, stdout and stderr; as its controlling
    /// terminal too when `controlling` (in a session of its own, through setsid), so that
    /// what it asks on /dev/tty (passwords, passphrases) comes here.
    func launch(_ tool: String, _ arguments: [String] = [], in sandbox: Sandbox, controlling: Bool = false) throws -> Process {
        let process = Process()
        let binary = Sandbox.binaries.appendingPathComponent(tool)
        if controlling {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
            process.arguments = ["--ctty", "--wait", binary.path] + arguments
        } else {
            process.executableURL = binary
            process.arguments = arguments
        }
        process.environment = sandbox.environment
        let handle = FileHandle(fileDescriptor: secondary, closeOnDealloc: false)
        process.standardInput = handle
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        return process
    }

    /// Reads until `marker` shows up (or the time runs out); returns everything read.
    func read(until marker: String, seconds: Double = 20) -> String {
        var collected = Data()
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            var poller = pollfd(fd: primary, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            let count = Foundation.read(primary, &buffer, buffer.count)
            if count <= 0 { break }
            collected.append(contentsOf: buffer[0..<count])
            if String(decoding: collected, as: UTF8.self).contains(marker) { break }
        }
        return String(decoding: collected, as: UTF8.self)
    }
}

@Suite("Interactive chat on a terminal")
struct InteractiveTests {
    @Test("history, a turn, /persona, /save — driven through a pseudo terminal")
    func interactiveChat() throws {
        let sandbox = try Sandbox()
        _ = try sandbox.pipeline([("diary-new", ["--text-only", "--text", "下雨天"]), ("diary-chat", ["-m", "在家看書"])])
        let terminal = try PseudoTerminal()
        let process = try terminal.launch("diary-chat", in: sandbox)

        let opening = terminal.read(until: "> ")
        #expect(opening.contains("阿暖"), "the header names the companion")
        #expect(opening.contains("在家看書"), "the history is shown first")
        terminal.type("其實有點孤單\n")
        let reply = terminal.read(until: "> ")
        #expect(reply.contains("孤單"), "\(reply)")
        terminal.type("/persona fun\n")
        #expect(terminal.read(until: "> ").contains("阿樂"))
        terminal.type("再聊一句\n")
        #expect(terminal.read(until: "> ").contains("阿樂："))
        terminal.type("/save\n")
        let page = terminal.read(until: "已保存")
        #expect(page.contains("已保存"), "\(page)")
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(try sandbox.sql("SELECT status FROM entry") == "saved")
        #expect(try sandbox.sql("SELECT persona FROM message ORDER BY seq DESC LIMIT 1") == "fun", "later turns record the new companion")
        #expect(try sandbox.sql("SELECT persona FROM message WHERE text = '其實有點孤單'") == "warm", "earlier turns keep theirs")
    }

    @Test("Ctrl-D keeps the draft")
    func endOfInputKeepsDraft() throws {
        let sandbox = try Sandbox()
        _ = try sandbox.run("diary-new", ["--text-only", "--text", "還沒想好"])
        let terminal = try PseudoTerminal()
        let process = try terminal.launch("diary-chat", in: sandbox)
        _ = terminal.read(until: "> ")
        terminal.type("\u{04}")
        #expect(terminal.read(until: "草稿已保留").contains("草稿已保留"))
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(try sandbox.sql("SELECT status FROM entry") == "chatting")
    }
}
