// What our companion client costs per turn, against a local fake of an OpenAI-compatible
// provider whose own latency we set: in-process (Conversation.send) and whole-process
// (`diary-chat -m` through a pipe), time to the first streamed token, and prompt size
// (estimated tokens) at turn 1, 10 and 50.
// Usage: companion-bench BIN_DIR [TURNS]
import CompanionClient
import DiaryKit
import FakeServers
import Foundation

let binaries = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : ".build/release"
let turns = CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2]) ?? 40 : 40
let serverDelay = 0.050
let reply = "下雨的傍晚，海看起來好安靜。你那時在想什麼？有沒有什麼讓你特別在意的？"

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}
func report(_ name: String, _ seconds: [Double]) {
    let ms = seconds.map { $0 * 1000 }
    let label = name.padding(toLength: 42, withPad: " ", startingAt: 0)
    print(label + String(format: " median %6.1f ms  p95 %6.1f ms  (n=%d)", percentile(ms, 0.5), percentile(ms, 0.95), ms.count))
}

let fake = try await FakeOpenAI.start()
let root = FileManager.default.temporaryDirectory.appendingPathComponent("companion-bench-\(UUID().uuidString)")
defer { try? FileManager.default.removeItem(at: root) }
let paths = DiaryPaths(homeFlag: root.appendingPathComponent("home").path, environment: [:])
let store = try DiaryStore.open(paths)
let provider = RemoteCompanion(settings: ProviderSettings(name: "fake", baseURL: fake.baseURL, model: "fake-model"),
                               key: Secret("sk-fake-test-key"), timeout: 30, retries: 0, log: .silent)
let conversation = Conversation(store: store, providers: [provider], language: .zhHant, textLimit: 500)

final class FirstToken: @unchecked Sendable {
    private let lock = NSLock()
    private var at: Date?
    func mark() { lock.withLock { if at == nil { at = Date() } } }
    var time: Date? { lock.withLock { at } }
}

// In-process: one timed turn on a fresh, already greeted entry each time.
var overhead: [Double] = [], firstToken: [Double] = []
for _ in 0..<turns {
    let id = try store.createEntry(NewEntry(occurredAt: Date(), timeZone: .current, note: "今天去海邊", persona: "warm", media: []))
    _ = try await conversation.open(entryId: id, persona: .warm)
    fake.enqueueChat(.delayed(seconds: serverDelay, .reply(reply, chunkSize: 4)))
    let first = FirstToken()
    let start = Date()
    _ = try await conversation.send(entryId: id, text: "風好大，但很舒服", persona: .warm, onText: { _ in first.mark() })
    overhead.append(Date().timeIntervalSince(start) - serverDelay)
    firstToken.append(first.time!.timeIntervalSince(start) - serverDelay)
}
print("server latency set to \(Int(serverDelay * 1000)) ms per request; figures below are on top of it")
report("in-process turn (store + HTTP + stream)", overhead)
report("in-process time to first token", firstToken)

// Whole process: `diary-chat ID -m …` with stdout on a pipe.
let config = root.appendingPathComponent("config/diary")
try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
try """
    [companion]
    provider = "fake"
    consent = true
    [providers.fake]
    base_url = "\(fake.baseURL)"
    model = "fake-model"
    api_key_env = "FAKE_KEY"
    """.write(to: config.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)
var processTimes: [Double] = []
for _ in 0..<turns {
    let id = try store.createEntry(NewEntry(occurredAt: Date(), timeZone: .current, note: "今天去海邊", persona: "warm", media: []))
    _ = try await conversation.open(entryId: id, persona: .warm)
    fake.enqueueChat(.delayed(seconds: serverDelay, .reply(reply, chunkSize: 4)))
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binaries).appendingPathComponent("diary-chat")
    process.arguments = [id, "-m", "風好大，但很舒服", "-q"]
    process.environment = ["DIARY_HOME": paths.home.path, "XDG_CONFIG_HOME": root.appendingPathComponent("config").path,
                           "FAKE_KEY": "sk-fake-test-key", "LANG": "zh_TW.UTF-8", "PATH": "/usr/bin:/bin"]
    process.standardOutput = FileHandle.nullDevice
    let start = Date()
    try process.run()
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        DispatchQueue.global().async { process.waitUntilExit(); done.resume() }
    }
    processTimes.append(Date().timeIntervalSince(start) - serverDelay)
}
report("diary-chat -m, whole process", processTimes)

// On a terminal (a pty from script(1)): time until the first streamed words show.
var terminalFirst: [Double] = []
for _ in 0..<turns {
    let id = try store.createEntry(NewEntry(occurredAt: Date(), timeZone: .current, note: "今天去海邊", persona: "warm", media: []))
    _ = try await conversation.open(entryId: id, persona: .warm)
    fake.enqueueChat(.delayed(seconds: serverDelay, .reply(reply, chunkSize: 4, gapMillis: 20)))
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
    process.arguments = ["-qfec", "\(binaries)/diary-chat \(id) -m 風好大 -q", "/dev/null"]
    process.environment = ["DIARY_HOME": paths.home.path, "XDG_CONFIG_HOME": root.appendingPathComponent("config").path,
                           "FAKE_KEY": "sk-fake-test-key", "LANG": "zh_TW.UTF-8", "PATH": "/usr/bin:/bin", "TERM": "dumb"]
    let output = Pipe()
    process.standardOutput = output
    process.standardInput = FileHandle.nullDevice
    let start = Date()
    try process.run()
    let first: Date = await withCheckedContinuation { done in
        DispatchQueue.global().async {
            _ = output.fileHandleForReading.availableData
            done.resume(returning: Date())
            _ = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
        }
    }
    // The fake waits 20 ms before each event: the role chunk, then the first words.
    terminalFirst.append(first.timeIntervalSince(start) - serverDelay - 0.040)
    while process.isRunning { try await Task.sleep(nanoseconds: 10_000_000) }
}
report("terminal: first words shown (process)", terminalFirst)

// Prompt size as one talk grows: condensing keeps it bounded.
let long = try store.createEntry(NewEntry(occurredAt: Date(), timeZone: .current, note: "今天去海邊", persona: "warm", media: []))
var sizes: [Int: Int] = [:]
for turn in 1...50 {
    _ = try await conversation.send(entryId: long, text: "第 \(turn) 句：今天走了很遠的路，看到很多海鳥，心情慢慢放鬆下來。", persona: .warm)
    if let last = fake.chatRequests.last(where: { $0.stream && $0.messages.last?.role == "user" }) {
        sizes[turn] = TokenEstimate.of(last.messages.map { JSON.object([("role", .string($0.role)), ("content", .string($0.text))]) })
    }
}
print("prompt size, estimated tokens: turn 1 \(sizes[1]!), turn 10 \(sizes[10]!), turn 20 \(sizes[20]!), turn 50 \(sizes[50]!)")
try await fake.shutdown()
