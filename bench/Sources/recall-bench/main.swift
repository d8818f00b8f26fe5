// What recall costs (issue 15): in process, the time Recall adds to a turn (median and p95
// over pages spread through the diary), and whole process, `diary-find --related ID`; and
// feelings over time by month, in process and `diary-find --trend --by month`.
// Usage: recall-bench DIARY_HOME BIN_DIR [PAGES]
import DiaryKit
import Foundation
#if canImport(Glibc)
import Glibc
#endif

let home = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "bench/out/search-100000/home"
let binaries = CommandLine.arguments.count > 2 ? CommandLine.arguments[2] : ".build/release"
let pages = CommandLine.arguments.count > 3 ? Int(CommandLine.arguments[3]) ?? 50 : 50

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}
/// Seconds one run of the program takes, from spawn to exit, its output to /dev/null.
/// posix_spawn directly: Foundation's Process adds some 30 ms of its own to each start.
func timed(_ program: String, _ arguments: [String]) -> Double {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    var status: Int32 = 0
    let started = DispatchTime.now().uptimeNanoseconds
    guard posix_spawn(&pid, program, &actions, nil, argv, environ) == 0 else { fatalError("cannot start \(program)") }
    waitpid(pid, &status, 0)
    return Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
}

func report(_ name: String, _ seconds: [Double]) {
    let ms = seconds.map { $0 * 1000 }
    print(name.padding(toLength: 44, withPad: " ", startingAt: 0)
          + String(format: " median %6.2f ms  p95 %6.2f ms  (n=%d)", percentile(ms, 0.5), percentile(ms, 0.95), ms.count))
}

let store = try DiaryStore.open(DiaryPaths(homeFlag: home, environment: [:]))
let total = try store.liveEntryCount()
// Pages spread through the diary, newest to oldest, one every total/pages.
var request = FindRequest()
request.statuses = [.saved]
var ids: [String] = []
var seen = 0
let step = max(1, total / pages)
_ = try Finder(store: store).forEachHit(request, pageSize: 2000) { hit, _ in
    if seen % step == 0 && ids.count < pages { ids.append(hit.entry.id) }
    seen += 1
}
print("diary: \(total) live entries; \(ids.count) pages asked about")

let recall = Recall(store: store)
var inProcess: [Double] = []
var picked = 0
for (index, id) in ids.enumerated() {
    let entry = try store.entry(id: id, includeMessages: true)
    let moment = Recall.Moment(entry)
    let started = DispatchTime.now().uptimeNanoseconds
    let found = try recall.recollections(for: moment)
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
    if index >= 3 { inProcess.append(elapsed) }  // the first few warm the page cache
    picked += found.count
}
report("recall in process (added to a turn)", inProcess)
print(String(format: "pages recalled per question: %.2f", Double(picked) / Double(max(1, ids.count))))

var whole: [Double] = []
for id in ids.prefix(20) {
    whole.append(timed(URL(fileURLWithPath: binaries).appendingPathComponent("diary-find").path, ["--home", home, "--related", id, "--json"]))
}
report("diary-find --related ID --json (whole process)", whole)

// Feelings over time across the whole diary, by month.
var trendInProcess: [Double] = []
for _ in 0..<12 {
    let started = DispatchTime.now().uptimeNanoseconds
    _ = try Finder(store: store).trend(by: .month, FindRequest(), language: .zhHant)
    trendInProcess.append(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9)
}
report("trend by month (in process)", Array(trendInProcess.dropFirst(2)))
var trendWhole: [Double] = []
for _ in 0..<12 {
    trendWhole.append(timed(URL(fileURLWithPath: binaries).appendingPathComponent("diary-find").path,
                            ["--home", home, "--trend", "--by", "month", "--json"]))
}
report("diary-find --trend --by month --json (whole)", Array(trendWhole.dropFirst(2)))

// Recall by meaning ([memory] embeddings): the moment's vector against every kept one.
// Random 384-dimension vectors stand in for a model's (e5-small's size): the scan costs the
// same whatever they say, and among 100,000 of them some always stand out, so the close
// pages are fetched too, as in a real diary.
let model = "bench-random-384"
func randomVector() -> [Float] { (0..<384).map { _ in Float.random(in: -1...1) } }
while true {
    let missing = try store.pagesToEmbed(model: model, limit: 5000)
    if missing.isEmpty { break }
    // Kept as the store keeps them: one signed byte per dimension.
    try store.keepVectors(model: model, missing.map { ($0.entryId, Data((0..<384).map { _ in UInt8.random(in: 0...255) })) })
}
print("vectors kept: \(try store.vectorCount(model: model))")
var meaningInProcess: [Double] = []
var close = 0
for (index, id) in ids.enumerated() {
    let moment = Recall.Moment(try store.entry(id: id, includeMessages: true))
    let started = DispatchTime.now().uptimeNanoseconds
    let found = try recall.recollections(for: moment, meaning: Recall.Meaning(model: model, vector: randomVector()))
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
    if index >= 3 { meaningInProcess.append(elapsed) }
    close += found.filter { $0.meaning != nil }.count
}
report("recall with meaning in process", meaningInProcess)
print(String(format: "pages close in meaning per question: %.2f", Double(close) / Double(max(1, ids.count))))
let config = FileManager.default.temporaryDirectory.appendingPathComponent("recall-bench-\(getpid()).toml")
try "[providers.bench]\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"\(model)\"\n[memory]\nembeddings = \"bench\"\n"
    .write(to: config, atomically: true, encoding: .utf8)
setenv("DIARY_CONFIG", config.path, 1)
var meaningWhole: [Double] = []
for id in ids.prefix(20) {
    meaningWhole.append(timed(URL(fileURLWithPath: binaries).appendingPathComponent("diary-find").path, ["--home", home, "--related", id, "--json"]))
}
report("diary-find --related ID with vectors (whole)", meaningWhole)
