import DiaryKit
import Foundation
import GRDB

// A deterministic diary corpus for the benchmarks, written through DiaryKit's bulk import
// and, optionally, the same entries in three other shapes for comparison tools:
//
//   diary-corpus HOME COUNT [--seed N] [--jrnl FILE] [--markdown DIR] [--floor FILE]
//                           [--batch N] [--media-total-bytes N]
//
//   HOME        the diary home (diary.sqlite), filled through DiaryStore.importEntries
//   --jrnl      a jrnl plain-text journal ("[YYYY-MM-DD HH:MM:SS AM] Title", body, @tags)
//   --markdown  one Markdown file per entry under DIR/YYYY/ (for ripgrep)
//   --floor     a plain SQLite file: doc, tag and entry_tag tables and an FTS5 table `f`
//               with the built-in unicode61 tokenizer whose columns hold the token stream
//               of the diary's own tokenizer, so the sqlite3 CLI can run the raw query
//   --media-total-bytes  N bytes of photos and videos (2G, 500M, … accepted), stored
//               content-addressed under HOME/media and listed on the entries (Media.swift);
//               default 0, none. The entries' text is the same with or without media.
//
// Entries are saved pages in zh-Hant with some English: a note, six chat messages
// (person and companion in turn), a title, a two-sentence summary, an analysis line and
// 3–8 tags from a pool of 24, dated over ten years in Asia/Taipei, oldest first (a diary
// is written in time order). The same seed gives the same entries whatever is written.

struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

// MARK: - Arguments

struct Options {
    var home = ""
    var count = 0
    var seed: UInt64 = 42
    var jrnl: String?
    var markdown: String?
    var floor: String?
    var batch = 10000
    var mediaTotalBytes: Int64 = 0
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("diary-corpus: \(message)\n".utf8))
    FileHandle.standardError.write(Data("usage: diary-corpus HOME COUNT [--seed N] [--jrnl FILE] [--markdown DIR] [--floor FILE] [--batch N] [--media-total-bytes N]\n".utf8))
    exit(64)
}

func parseOptions() -> Options {
    var options = Options()
    var positional: [String] = []
    var rest = CommandLine.arguments.dropFirst()
    while let argument = rest.popFirst() {
        func value() -> String {
            guard let next = rest.popFirst() else { fail("\(argument) needs a value") }
            return next
        }
        switch argument {
        case "--seed":
            guard let seed = UInt64(value()) else { fail("bad --seed") }
            options.seed = seed
        case "--jrnl": options.jrnl = value()
        case "--markdown": options.markdown = value()
        case "--floor": options.floor = value()
        case "--batch":
            guard let batch = Int(value()) else { fail("bad --batch") }
            options.batch = batch
        case "--media-total-bytes":
            guard let bytes = MediaPlan.parseBytes(value()) else { fail("bad --media-total-bytes") }
            options.mediaTotalBytes = bytes
        default:
            if argument.hasPrefix("--") { fail("unknown option \(argument)") }
            positional.append(argument)
        }
    }
    guard positional.count == 2, let count = Int(positional[1]), count > 0, options.batch > 0 else { fail("need HOME and COUNT") }
    options.home = positional[0]
    options.count = count
    return options
}

// MARK: - Text

let places = ["海邊", "公園", "咖啡店", "辦公室", "山上", "夜市", "圖書館", "老家", "車站", "市場",
              "河濱", "書店", "學校", "超市", "廚房", "陽台", "捷運上", "電影院", "溫泉", "機場"]
let doings = ["散步", "喝咖啡", "加班", "爬山", "吃火鍋", "看書", "跑步", "聊天", "拍照", "發呆",
              "做飯", "騎腳踏車", "寫日記", "看電影", "聽音樂", "逛街", "游泳", "練琴", "整理房間", "追劇"]
let feelings = ["很開心", "有點焦慮", "好放鬆", "有點難過", "好累", "很感動", "有點孤單", "充滿期待",
                "很平靜", "有點煩躁", "超滿足", "心情複雜", "很感恩", "有點緊張", "很自在", "又開心又累"]
let people = ["朋友", "媽媽", "爸爸", "同事", "自己", "家人", "老同學", "室友", "男朋友", "妹妹"]
let times = ["早上", "中午", "下午", "傍晚", "晚上", "深夜"]
let weathers = ["下雨", "出太陽", "很悶熱", "有點冷", "颳大風", "多雲"]
let english = ["coffee with Mei", "a long walk", "rainy afternoon", "finished the report", "sunset run",
               "deadline week", "new playlist", "movie night", "slow morning", "farmers market",
               "coffee again", "read two chapters"]
let tagPool = ["旅行", "海邊", "朋友", "家人", "工作", "美食", "咖啡", "寵物", "運動", "散步", "自然", "雨天",
               "學習", "音樂", "電影", "閱讀", "開心", "放鬆", "焦慮", "難過", "疲憊", "感動", "期待", "懷念"]

/// One generated page, in the shapes every writer needs.
struct Page {
    var occurredAt: Date
    var note: String
    var title: String
    var summary: String
    var analysis: String
    var tags: [String]
    var lines: [(author: Author, text: String, at: Date)]
}

struct Generator {
    var random: SplitMix64
    let start: Date
    let step: Double

    init(seed: UInt64, count: Int, end: Date, years: Double) {
        random = SplitMix64(state: seed)
        let span = years * 365.25 * 86_400
        start = end.addingTimeInterval(-span)
        step = span / Double(count)
    }

    mutating func pick<T>(_ items: [T]) -> T { items[Int(random.next() % UInt64(items.count))] }
    mutating func chance(_ oneIn: UInt64) -> Bool { random.next() % oneIn == 0 }
    mutating func unit() -> Double { Double(random.next() >> 11) / Double(1 << 53) }

    mutating func personSentence() -> String {
        var text: String
        switch random.next() % 4 {
        case 0: text = "今天\(pick(times))和\(pick(people))在\(pick(places))\(pick(doings))，\(pick(feelings))。"
        case 1: text = "\(pick(times))\(pick(weathers))，我一個人在\(pick(places))\(pick(doings))，\(pick(feelings))。"
        case 2: text = "想起上次和\(pick(people))去\(pick(places))\(pick(doings))，還是\(pick(feelings))。"
        default: text = "最近常常\(pick(doings))，在\(pick(places))的時候\(pick(feelings))。"
        }
        if chance(5) { text += " \(pick(english))." }
        return text
    }

    mutating func companionSentence() -> String {
        var text: String
        switch random.next() % 3 {
        case 0: text = "聽起來你在\(pick(places))\(pick(doings))的時候\(pick(feelings))，想多說一點嗎？"
        case 1: text = "和\(pick(people))一起\(pick(doings))，好像對你很重要。那時候你在想什麼？"
        default: text = "\(pick(weathers))的日子去\(pick(places))\(pick(doings))也很好。要不要記下此刻的感覺？"
        }
        if chance(8) { text += " Sounds like \(pick(english))." }
        return text
    }

    /// The page at position `index` (oldest first): its moment falls in the index-th of
    /// `count` equal slices of the ten years, somewhere inside it.
    mutating func page(_ index: Int) -> Page {
        let when = start.addingTimeInterval((Double(index) + unit()) * step)
        let note = personSentence()
        var lines: [(author: Author, text: String, at: Date)] = []
        for turn in 0..<6 {
            let author: Author = turn % 2 == 0 ? .person : .companion
            let text = author == .person ? personSentence() : companionSentence()
            lines.append((author, text, when.addingTimeInterval(Double(60 * (turn + 1)))))
        }
        let place = pick(places), doing = pick(doings)
        let title = chance(2) ? "\(place)\(doing)" : "和\(pick(people))的\(pick(times))"
        let summary = personSentence() + personSentence()
        let analysis = "情緒：\(pick(feelings))；地點：\(place)；人物：\(pick(people))；活動：\(doing)。"
        var tags: [String] = []
        let wanted = 3 + Int(random.next() % 6)
        while tags.count < wanted {
            let tag = pick(tagPool)
            if !tags.contains(tag) { tags.append(tag) }
        }
        return Page(occurredAt: when, note: note, title: title, summary: summary, analysis: analysis, tags: tags, lines: lines)
    }
}

// MARK: - Writers

let zone = TimeZone(identifier: "Asia/Taipei")!

func formatter(_ format: String) -> DateFormatter {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = zone
    formatter.dateFormat = format
    return formatter
}

/// jrnl's plain-text journal: a "[date] title" line, the body, a blank line. jrnl's default
/// timeformat is "%F %r" (2024-03-01 09:05:00 PM); tags are @words preceded by a space.
final class JrnlWriter {
    let handle: FileHandle
    let stamp = formatter("yyyy-MM-dd hh:mm:ss a")
    var buffer = ""

    init(path: String) throws {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        guard let handle = FileHandle(forWritingAtPath: path) else { fail("cannot write \(path)") }
        self.handle = handle
    }

    func add(_ page: Page) {
        buffer += "[\(stamp.string(from: page.occurredAt))] \(page.title)\n"
        buffer += page.summary + "\n" + page.note + "\n"
        for line in page.lines { buffer += (line.author == .person ? "我：" : "夥伴：") + line.text + "\n" }
        buffer += page.analysis + "\n"
        buffer += page.tags.map { "@" + $0 }.joined(separator: " ") + "\n\n"
    }

    func flush() {
        handle.write(Data(buffer.utf8))
        buffer = ""
    }
}

/// One Markdown file per entry, DIR/YYYY/YYYY-MM-DD-NNNNNN.md.
struct MarkdownWriter {
    let directory: URL
    let day = formatter("yyyy-MM-dd")
    let minute = formatter("yyyy-MM-dd HH:mm")
    let year = formatter("yyyy")

    init(path: String) throws {
        directory = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func add(_ page: Page, index: Int) throws {
        let folder = directory.appendingPathComponent(year.string(from: page.occurredAt))
        if !FileManager.default.fileExists(atPath: folder.path) {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        var text = "# \(page.title)\n\n"
        text += "- date: \(minute.string(from: page.occurredAt)) (Asia/Taipei)\n"
        text += "- tags: \(page.tags.map { "#" + $0 }.joined(separator: " "))\n\n"
        text += "## 摘要\n\n\(page.summary)\n\n## 筆記\n\n\(page.note)\n\n## 分析\n\n\(page.analysis)\n\n## 對話\n\n"
        for line in page.lines { text += "- **\(line.author == .person ? "我" : "夥伴")**：\(line.text)\n" }
        let name = String(format: "%@-%06d.md", day.string(from: page.occurredAt), index)
        try Data(text.utf8).write(to: folder.appendingPathComponent(name))
    }
}

/// The floor: the same entries and the same token stream, in a plain SQLite file that any
/// sqlite3 can query (tokens are joined by spaces; unicode61 cuts them back apart exactly).
final class FloorWriter {
    let queue: DatabaseQueue
    var tagIds: [String: Int64] = [:]
    var tagCounts: [Int64: Int64] = [:]
    var tagLastUsed: [Int64: Int64] = [:]
    var lastKey: Int64 = .min
    let day = formatter("yyyy-MM-dd")

    init(path: String) throws {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: """
                PRAGMA journal_mode = OFF;
                PRAGMA synchronous = OFF;
                CREATE TABLE doc (
                    rowid INTEGER PRIMARY KEY,
                    id TEXT NOT NULL,
                    occurred_at INTEGER NOT NULL,
                    local_date TEXT NOT NULL,
                    title TEXT
                );
                CREATE INDEX doc_by_local_date ON doc(local_date);
                CREATE TABLE tag (
                    id INTEGER PRIMARY KEY,
                    name TEXT NOT NULL UNIQUE,
                    entry_count INTEGER NOT NULL,
                    last_used_at INTEGER
                );
                CREATE TABLE entry_tag (
                    entry_id INTEGER NOT NULL,
                    tag_id INTEGER NOT NULL,
                    PRIMARY KEY (tag_id, entry_id)
                ) WITHOUT ROWID;
                CREATE INDEX entry_tag_by_entry ON entry_tag(entry_id);
                CREATE VIRTUAL TABLE f USING fts5(
                    title, summary, note, transcript, tags, person_chat, analysis, companion_chat,
                    tokenize = 'unicode61'
                );
                """)
        }
    }

    static func stream(_ text: String) -> String {
        SearchableText.tokens(text, purpose: .document).joined(separator: " ")
    }

    /// Writes one batch in one transaction, like the diary's import.
    func add(_ pages: [Page], ids: [String]) throws {
        try queue.write { db in
            let doc = try db.makeStatement(sql: "INSERT INTO doc(rowid, id, occurred_at, local_date, title) VALUES (?, ?, ?, ?, ?)")
            let fts = try db.makeStatement(sql: """
                INSERT INTO f(rowid, title, summary, note, transcript, tags, person_chat, analysis, companion_chat)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            let link = try db.makeStatement(sql: "INSERT OR IGNORE INTO entry_tag(entry_id, tag_id) VALUES (?, ?)")
            for (page, id) in zip(pages, ids) {
                let millis = Timestamps.millis(page.occurredAt)
                let key = max(millis * 4096, lastKey + 1)
                lastKey = key
                try doc.execute(arguments: [key, id, millis, day.string(from: page.occurredAt), page.title])
                func chat(_ author: Author) -> String {
                    page.lines.filter { $0.author == author }.map(\.text).joined(separator: "\n")
                }
                try fts.execute(arguments: [key, Self.stream(page.title), Self.stream(page.summary), Self.stream(page.note), "",
                                            Self.stream(page.tags.joined(separator: " ")), Self.stream(chat(.person)),
                                            Self.stream(page.analysis), Self.stream(chat(.companion))])
                for name in page.tags {
                    let tagId: Int64
                    if let known = tagIds[name] {
                        tagId = known
                    } else {
                        tagId = Int64(tagIds.count + 1)
                        tagIds[name] = tagId
                    }
                    tagCounts[tagId, default: 0] += 1
                    tagLastUsed[tagId] = max(tagLastUsed[tagId] ?? .min, millis)
                    try link.execute(arguments: [key, tagId])
                }
            }
        }
    }

    func finish() throws {
        try queue.write { db in
            for (name, id) in tagIds {
                try db.execute(sql: "INSERT INTO tag(id, name, entry_count, last_used_at) VALUES (?, ?, ?, ?)",
                               arguments: [id, name, tagCounts[id] ?? 0, tagLastUsed[id]])
            }
        }
        try queue.writeWithoutTransaction { db in try db.execute(sql: "ANALYZE") }
    }
}

// MARK: - Main

let options = parseOptions()
func say(_ text: String) { FileHandle.standardError.write(Data((text + "\n").utf8)) }

let store = try DiaryStore.open(DiaryPaths(homeFlag: options.home, environment: ProcessInfo.processInfo.environment))
let jrnl = try options.jrnl.map(JrnlWriter.init(path:))
let markdown = try options.markdown.map(MarkdownWriter.init(path:))
let floor = try options.floor.map(FloorWriter.init(path:))

var generator = Generator(seed: options.seed, count: options.count, end: Date(timeIntervalSince1970: 1_795_000_000), years: 10)
var generating = 0.0, importing = 0.0, extras = 0.0
let started = Date()
var index = 0
var allIds: [String] = []
var allDates: [Date] = []
allIds.reserveCapacity(options.count)
allDates.reserveCapacity(options.count)
while index < options.count {
    let size = min(options.batch, options.count - index)
    var clock = Date()
    var pages: [Page] = []
    pages.reserveCapacity(size)
    for offset in 0..<size { pages.append(generator.page(index + offset)) }
    let entries = pages.map { page in
        ImportedEntry(occurredAt: page.occurredAt, timeZone: zone, note: page.note, analysis: page.analysis, persona: "warm",
                      provider: "offline", title: page.title, summary: page.summary, tags: page.tags,
                      messages: page.lines.map { ImportedEntry.Line(author: $0.author, text: $0.text, createdAt: $0.at) })
    }
    generating += Date().timeIntervalSince(clock)
    clock = Date()
    let ids = try store.importEntries(entries)
    importing += Date().timeIntervalSince(clock)
    allIds += ids
    allDates += pages.map(\.occurredAt)
    clock = Date()
    if let jrnl {
        for page in pages { jrnl.add(page) }
        jrnl.flush()
    }
    if let markdown {
        for (offset, page) in pages.enumerated() { try markdown.add(page, index: index + offset) }
    }
    try floor?.add(pages, ids: ids)
    extras += Date().timeIntervalSince(clock)
    index += size
    if index % 10_000 == 0 || index == options.count {
        say(String(format: "%d entries, %.1f s (importEntries %.1f s so far)", index, Date().timeIntervalSince(started), importing))
    }
}
try floor?.finish()
try jrnl?.handle.close()
say(String(format: "fill: %d entries in %.1f s (importEntries %.1f s in batches of %d, generating %.1f s)",
           options.count, generating + importing, importing, options.batch, generating))
if jrnl != nil || markdown != nil || floor != nil {
    say(String(format: "other shapes (jrnl, markdown, floor) written in %.1f s", extras))
}

if options.mediaTotalBytes > 0 {
    let clock = Date()
    let plan = MediaPlan.make(total: options.mediaTotalBytes, entries: options.count, seed: options.seed)
    let writer = try MediaWriter(root: store.paths.media, seed: options.seed)
    var writing = 0.0, listing = 0.0
    for (number, planned) in plan.enumerated() {
        var step = Date()
        let item = try writer.create(index: number, kind: planned.kind, bytes: planned.bytes, takenAt: allDates[planned.entry])
        writing += Date().timeIntervalSince(step)
        step = Date()
        try store.media.add(entryId: allIds[planned.entry], item: item)
        listing += Date().timeIntervalSince(step)
    }
    let elapsed = Date().timeIntervalSince(clock)
    let videos = plan.filter { $0.kind == .video }
    say(String(format: "media: %d files (%d photos, %d videos, largest %.1f MB), %lld bytes in %.1f s (%.0f MB/s; files %.1f s, addMedia %.1f s)",
               plan.count, plan.count - videos.count, videos.count, Double(plan.map(\.bytes).max() ?? 0) / 1e6,
               writer.written, elapsed, Double(writer.written) / 1e6 / elapsed, writing, listing))
}
