import DiaryKit
import Foundation

// Fills a diary with a deterministic corpus through DiaryKit, the way the commands write:
// a draft, six chat messages, a saved page with 3–8 tags, spread over ten years.
// Usage: diary-corpus HOME COUNT [SEED]

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

let arguments = CommandLine.arguments
guard arguments.count >= 3, let count = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: diary-corpus HOME COUNT [SEED]\n".utf8))
    exit(64)
}
var random = SplitMix64(state: arguments.count > 3 ? UInt64(arguments[3]) ?? 42 : 42)

let places = ["海邊", "公園", "咖啡店", "辦公室", "山上", "夜市", "圖書館", "老家", "車站", "市場"]
let doings = ["散步", "喝咖啡", "加班", "爬山", "吃火鍋", "看書", "跑步", "聊天", "拍照", "發呆"]
let feelings = ["很開心", "有點焦慮", "好放鬆", "有點難過", "好累", "很感動", "有點孤單", "充滿期待"]
let people = ["朋友", "媽媽", "同事", "自己", "家人", "老同學"]
let english = ["coffee with Mei", "a long walk", "rainy afternoon", "finished the report", "sunset run"]
let tagPool = ["旅行", "海邊", "朋友", "家人", "工作", "美食", "咖啡", "寵物", "運動", "散步", "自然", "雨天",
               "學習", "音樂", "電影", "閱讀", "開心", "放鬆", "焦慮", "難過", "疲憊", "感動", "期待", "懷念"]

@MainActor func pick<T>(_ items: [T]) -> T { items[Int(random.next() % UInt64(items.count))] }
@MainActor func sentence() -> String {
    var text = "今天和\(pick(people))在\(pick(places))\(pick(doings))，\(pick(feelings))。"
    if random.next() % 5 == 0 { text += " \(pick(english))." }
    return text
}

let store = try DiaryStore.open(DiaryPaths(homeFlag: arguments[1], environment: ProcessInfo.processInfo.environment))
let zone = TimeZone(identifier: "Asia/Taipei")!
let tenYears = 10.0 * 365 * 86_400
let end = Date(timeIntervalSince1970: 1_795_000_000)
let started = Date()
for index in 0..<count {
    let when = end.addingTimeInterval(-Double(random.next() % UInt64(tenYears)))
    let id = try store.createEntry(NewEntry(occurredAt: when, timeZone: zone, note: sentence(), persona: "warm", media: []))
    for turn in 0..<6 {
        try store.appendMessage(entryId: id, author: turn % 2 == 0 ? .person : .companion,
                                text: sentence(), persona: "warm", provider: turn % 2 == 0 ? nil : "offline")
    }
    var tags: [String] = []
    let wanted = 3 + Int(random.next() % 6)
    while tags.count < wanted { let tag = pick(tagPool); if !tags.contains(tag) { tags.append(tag) } }
    try store.savePage(entryId: id, title: String(sentence().prefix(12)), summary: sentence() + sentence(), tags: tags,
                       persona: "warm", provider: "offline", usageDay: Timestamps.localDate(when, zone: zone))
    if (index + 1) % 1000 == 0 {
        FileHandle.standardError.write(Data("\(index + 1) entries, \(Int(Date().timeIntervalSince(started))) s\n".utf8))
    }
}
