import Foundation
import Testing
@testable import DiaryKit
@testable import DiaryTestSupport

@Suite struct UUIDv7Tests {
    @Test func shapeVersionAndOrder() {
        let early = UUIDv7.make(at: Date(timeIntervalSince1970: 1_700_000_000))
        let late = UUIDv7.make(at: Date(timeIntervalSince1970: 1_800_000_000))
        #expect(UUIDv7.isWellFormed(early))
        #expect(Array(early)[14] == "7", "version nibble")
        #expect("89ab".contains(Array(early)[19]), "variant bits")
        #expect(early < late, "ids sort by time")
        #expect(UUIDv7.make() != UUIDv7.make())
    }
}

@Suite struct HybridClockTests {
    @Test func neverGoesBackAndSortsAsText() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let first = HybridTimestamp.next(after: nil, now: now, device: "a")
        let second = HybridTimestamp.next(after: first, now: now, device: "a")
        let behind = HybridTimestamp.next(after: second, now: now.addingTimeInterval(-3600), device: "a")
        #expect(second > first && behind > second)
        #expect(second.counter == 1 && behind.wallMillis == first.wallMillis)
        #expect(first.description < second.description && second.description < behind.description)
        #expect(HybridTimestamp(behind.description) == behind)
        let later = HybridTimestamp.next(after: behind, now: now.addingTimeInterval(1), device: "a")
        #expect(later.counter == 0 && later > behind)
    }
}

@Suite struct LanguageTests {
    @Test func flagThenConfigThenLocaleThenDefault() {
        #expect(Language.resolve(flag: "en", setting: "zh-Hant", config: "zh-Hant", environment: ["LANG": "zh_TW.UTF-8"]) == .en)
        #expect(Language.resolve(flag: nil, setting: nil, config: "en", environment: ["LANG": "zh_TW.UTF-8"]) == .en)
        #expect(Language.resolve(flag: nil, setting: "en", config: "zh-Hant", environment: ["LANG": "zh_TW.UTF-8"]) == .en,
                "the synced setting comes before this device's config, like the persona")
        #expect(Language.resolve(flag: nil, setting: nil, config: nil, environment: ["LANG": "en_GB.UTF-8"]) == .en)
        #expect(Language.resolve(flag: nil, setting: nil, config: nil, environment: ["LC_ALL": "zh_TW.UTF-8", "LANG": "en_US.UTF-8"]) == .zhHant)
        #expect(Language.resolve(flag: nil, setting: nil, config: nil, environment: ["LANG": "C.UTF-8"]) == .zhHant)
        #expect(Language.resolve(flag: nil, setting: nil, config: nil, environment: [:]) == .zhHant)
    }
}

@Suite struct PhraseTests {
    static let all: [Phrase] = [
        .chooseMedia, .photoUnreadable(.damaged), .videoUnreadable(.tooLarge(limitMB: 500)), .fileMissing(path: "x"),
        .toolMissing(name: "ffprobe"), .textTooLong(limit: 500), .welcome(companion: "阿暖"), .sendFailed, .analysisDeferred,
        .summaryFailed, .saveFailed, .nothingToRetry, .draftDiscarded, .draftKept, .cannotDiscardSaved,
        .chatHeader(companion: "c"), .personaSwitched(companion: "c"), .unknownPersona(name: "x"), .defaultPersonaUsed,
        .unknownCommand(name: "/x"), .mediaUnavailable, .entryNotFound(reference: "x"), .entryAmbiguous(reference: "x"),
        .noOpenDraft, .stdinNotJSON(line: 1), .stdinNotUTF8, .tooManyEntries, .emptyDiary, .emptyTag, .noMatch, .allTag,
        .badDate(text: "x"), .moreResults(cursor: "c"), .badCursor(text: "x"), .databaseFromNewerVersion, .databaseBusy,
        .homeNotCreatable(path: "/x"), .ioFailure, .badConfig(detail: "x"), .badOption(detail: "x"),
        .audioUnreadable(.notAudio), .notHeard, .transcriptionUnavailable, .waitingForReply, .cancelled,
        .unknownProvider(name: "x"), .providerSettingUnreadable, .providerKeyMissing(provider: "x", variable: "Y"),
        .answeredBy(provider: "offline"), .answeredBy(provider: "backup"), .offlineCompanionInUse,
        .consentQuestion(provider: "x", host: "h"), .consentNeeded(provider: "x"), .consentDeclined,
        .turnLimitReached(limit: 4), .pageLimitReached(limit: 1), .usageUnknown,
    ]

    @Test func everySentenceHasTwoLanguagesAndNeverSaysAI() {
        let broken = phrasesBreakingTheRules(Self.all)
        #expect(broken.isEmpty, "\(broken)")
    }

    @Test func seedWordsAreKept() {
        #expect(Phrase.chooseMedia.text(.zhHant).hasPrefix("請先選擇照片或影片"))
        #expect(Phrase.videoUnreadable(.damaged).text(.zhHant).hasPrefix("影片讀取失敗，請換一段或稍後再試"))
        #expect(Phrase.textTooLong(limit: 500).text(.zhHant).hasPrefix("文字太長，請簡短一點"))
        #expect(Phrase.sendFailed.text(.zhHant) == "傳送失敗，可用 --retry 重試")
        #expect(Phrase.summaryFailed.text(.zhHant).hasPrefix("總結/標籤生成失敗，但聊天已保存。可稍後再生成。"))
        #expect(Phrase.emptyDiary.text(.zhHant) == "目前還沒有日記")
        #expect(Phrase.emptyTag.text(.zhHant) == "這個分類還沒有日記")
        #expect(Phrase.noMatch.text(.zhHant) == "找不到符合的日記")
        #expect(Phrase.notHeard.text(.zhHant).hasPrefix("聽不清楚，請再試一次"))
        #expect(Phrase.analysisDeferred.text(.zhHant) == "目前無法分析，已先保存草稿，稍後可再試")
        #expect(Phrase.waitingForReply.text(.zhHant) == "正在等回覆…（Ctrl-C 取消）")
        #expect(Phrase.providerSettingUnreadable.text(.zhHant) == "設定讀取失敗，已使用預設模型")
        #expect(Phrase.usageUnknown.text(.zhHant) == "目前無法確認用量，請稍後再試")
    }
}

@Suite struct JSONTests {
    @Test func roundTripKeepsOrderAndEscapes() throws {
        let value = JSON.object([("kind", .string("entry")), ("text", .string("引號\"\\\n\u{01}")), ("n", .int(-3)),
                                 ("x", .double(1.5)), ("list", .array([.bool(true), .null]))])
        let text = value.serialized
        #expect(text.hasPrefix("{\"kind\":\"entry\""))
        #expect(JSON.parse(Data(text.utf8)) == value)
        let foundation = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        #expect(foundation?["text"] as? String == "引號\"\\\n\u{01}")
    }

    @Test func stringsAreEscapedExactlyWhereTheyMustBe() throws {
        let escapes: [(String, String)] = [("a\"b", #""a\"b""#), ("\\", #""\\""#), ("\n\r\t", #""\n\r\t""#),
                                           ("\u{01}\u{1F}", #""\u0001\u001f""#), ("\u{2028}x\u{2029}", #""\u2028x\u2029""#),
                                           ("海邊 😀 e\u{301}", "\"海邊 😀 e\u{301}\""), ("", #""""#), ("\u{2027}\u{202A}", "\"\u{2027}\u{202A}\"")]
        for (text, written) in escapes {
            #expect(JSON.string(text).serialized == written, "\(text.unicodeScalars.map(\.value))")
        }
        // Whatever the text, what is written reads back the same, by us and by Foundation.
        var generator = SystemRandomNumberGenerator()
        let pool: [Unicode.Scalar] = ["a", "\"", "\\", "\n", "\u{00}", "\u{1F}", "\u{7F}", "é", "\u{2028}", "\u{2029}", "海", "😀", "\u{301}", "/"]
        for _ in 0..<300 {
            var scalars = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...40, using: &generator) { scalars.append(pool.randomElement(using: &generator)!) }
            let text = String(scalars)
            let line = JSON.object([("t", .string(text))]).serialized
            #expect(JSON.parse(Data(line.utf8)) == .object([("t", .string(text))]))
            #expect((try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])?["t"] == text)
            #expect(!line.unicodeScalars.contains { $0.value < 0x20 || $0 == "\u{2028}" || $0 == "\u{2029}" })
        }
    }

    @Test func rejectsWhatIsNotJSON() {
        for bad in ["{", "{\"a\":}", "[1,]", "{'a':1}", "01", "\"\\x\"", "nul", "{\"a\":1} x", "\"\u{01}\""] {
            #expect(JSON.parse(Data(bad.utf8)) == nil, "\(bad)")
        }
        #expect(JSON.parse(Data([0xff, 0x22, 0x22])) == nil, "not UTF-8")
        #expect(JSON.parse(Data("\"\\ud83d\\ude00\"".utf8)) == .string("😀"))
        #expect(JSON.parse(Data(String(repeating: "[", count: 10_000).utf8)) == nil, "depth is bounded")
    }

    @Test func readsNumbersByJSONsGrammar() {
        let good: [(String, JSON)] = [("0", .int(0)), ("-0", .int(0)), ("7", .int(7)), ("-12", .int(-12)),
                                      ("9223372036854775807", .int(.max)), ("9223372036854775808", .double(9223372036854775808)),
                                      ("1.5", .double(1.5)), ("-0.25", .double(-0.25)), ("1e3", .double(1000)),
                                      ("2E-2", .double(0.02)), ("1.5e+2", .double(150)), ("[1,-2.5,3e1]", .array([.int(1), .double(-2.5), .double(30)]))]
        for (text, value) in good { #expect(JSON.parse(Data(text.utf8)) == value, "\(text)") }
        for bad in ["-", "01", "-01", "1.", ".5", "1e", "1e+", "+1", "1.2.3", "1ee2", "0x10", "1-2", "[1.]", "{\"a\":-}", "Infinity", "NaN"] {
            #expect(JSON.parse(Data(bad.utf8)) == nil, "\(bad)")
        }
    }
}

@Suite struct ConfigTests {
    @Test func readsKeysAndRejectsNonsense() throws {
        let config = try Config.parse("lang = \"en\"\npersona = \"fun\"\n[limits]\nphoto_mb = 5\nvideo_mb = 10\ntext_chars = 80\n")
        #expect(config.language == "en" && config.persona == "fun")
        #expect(config.photoLimitBytes == 5_000_000 && config.videoLimitBytes == 10_000_000 && config.textLimit == 80)
        #expect(try Config.parse("") == Config())
        #expect(throws: ConfigError.self) { try Config.parse("lang = \"fr\"") }
        #expect(throws: ConfigError.self) { try Config.parse("[limits]\nphoto_mb = -1") }
        #expect(throws: ConfigError.self) { try Config.parse("lang = ") }
    }

    @Test func providersCompanionWeatherAndLimits() throws {
        let config = try Config.parse("""
            [companion]
            provider = "main"
            failover = ["local", "offline"]
            consent = true
            timeout_seconds = 12.5
            retries = 1
            [providers.main]
            base_url = "https://api.example.com/v1"
            model = "m1"
            api_key_env = "MAIN_KEY"
            [providers.local]
            base_url = "http://127.0.0.1:11434/v1"
            model = "llava"
            vision = false
            [weather]
            enabled = false
            base_url = "http://127.0.0.1:9/v1"
            [limits]
            turns_per_entry = 4
            pages_per_day = 1
            """)
        #expect(config.companion == CompanionSettings(provider: "main", failover: ["local", "offline"], consent: true,
                                                      timeoutSeconds: 12.5, retries: 1))
        #expect(config.providers["main"]?.apiKeyEnv == "MAIN_KEY" && config.providers["main"]?.transcriptionModel == "whisper-1")
        #expect(config.providers["local"]?.vision == false && config.providers["local"]?.apiKeyEnv == nil)
        #expect(config.weather.enabled == false && config.weather.baseURL == "http://127.0.0.1:9/v1")
        #expect(config.turnsPerEntry == 4 && config.pagesPerDay == 1)
        #expect(Config().turnsPerEntry == nil && Config().pagesPerDay == nil, "limits are off by default")
        for bad in [
            "[providers.x]\nbase_url = \"https://a\"\nmodel = \"m\"\napi_key = \"sk-123\"",  // keys never in config.toml
            "[providers.x]\nbase_url = \"ftp://a\"\nmodel = \"m\"",
            "[providers.x]\nbase_url = \"https://a\"",
            "[providers.offline]\nbase_url = \"https://a\"\nmodel = \"m\"",
            "[companion]\nretries = 99",
            "[companion]\nfailover = \"offline\"",
        ] {
            #expect(throws: ConfigError.self, "\(bad)") { try Config.parse(bad) }
        }
        do {
            _ = try Config.parse("[providers.x]\nbase_url = \"https://a\"\nmodel = \"m\"\napi_key = \"sk-123\"")
        } catch let ConfigError.invalid(detail) {
            #expect(!detail.contains("sk-123"), "the refusal does not repeat the key")
        }
    }
}

@Suite struct TextTests {
    @Test func cjkRunsBecomeBigramsAndCharacters() {
        #expect(SearchableText.tokens("今天去海邊", purpose: .document) == ["今天", "天去", "去海", "海边", "边"],
                "pairs, the run's last character, folded to one script")
        #expect(SearchableText.tokens("今天去海邊", purpose: .query) == ["今天", "天去", "去海", "海边"])
        #expect(SearchableText.tokens("海", purpose: .query) == ["海"])
        #expect(SearchableText.tokens("Coffee，開心! Café ＡＢＣ", purpose: .document) == ["coffee", "开心", "心", "cafe", "abc"])
        #expect(SearchableText.tokens("iPhone15 和 2026", purpose: .document) == ["iphone15", "和", "2026"])
        #expect(SearchableText.pieces(of: "ＡＢＣ海") == [.word("abc"), .cjk("海")], "full width folds")
    }

    @Test func theShortWayToACharactersKindAgreesWithUnicode() {
        // The cutter answers Chinese punctuation without Unicode's property tables; every
        // character outside the CJK runs must get the kind the tables give it.
        let disagreeing = (UInt32(0x80)...0x3_FFFF).filter { scalar in
            let kind = SearchableText.kind(of: scalar)
            return kind != .cjk && kind != SearchableText.kindByProperties(of: scalar)
        }
        #expect(disagreeing.isEmpty, "\(disagreeing.prefix(5).map { String($0, radix: 16) })")
        #expect(SearchableText.tokens("「海邊」、今天…—〇〇七號", purpose: .query) == ["海边", "今天", "〇〇", "七号"],
                "brackets, commas, ellipses and dashes separate; 〇 is a number")
    }

    @Test func chineseFoldsToOneScript() {
        #expect(ChineseFolding.fold("開心發髮臺灣") == "开心发发台湾")
        #expect(ChineseFolding.fold("开心 coffee") == "开心 coffee", "simplified and Latin stay as they are")
        #expect(ChineseFolding.fold(ChineseFolding.fold("體驗")) == ChineseFolding.fold("體驗"), "folding twice changes nothing")
    }

    @Test func brokenTextCutsWithoutCrashing() {
        var bytes: [UInt8] = [0xE6, 0xB5, 0x41, 0xFF, 0xE6, 0xB5, 0xB7, 0xE9, 0x82]
        var tokens: [String] = []
        bytes.withUnsafeMutableBufferPointer { buffer in
            SearchableText.tokenize(UnsafeBufferPointer(buffer), purpose: .document) { token, start, end in
                #expect(start < end && end <= 9)
                tokens.append(String(decoding: token, as: UTF8.self))
                return true
            }
        }
        #expect(tokens == ["a", "海"])
    }

    @Test func tagNamesFold() {
        #expect(TagName.normalize("  旅行 ") == "旅行")
        #expect(TagName.normalize("＂旅行＂") == "旅行")
        #expect(TagName.normalize("#Travel  Notes") == "travel notes")
        #expect(TagName.normalize("ｔｒａｖｅｌ") == "travel")
        #expect(TagName.normalize("   ") == nil)
        // Tags already tidy (ASCII words, CJK ideographs) take a short way; it must agree.
        #expect(TagName.normalize("Pizza") == "pizza" && TagName.label("Pizza") == "Pizza")
        #expect(TagName.normalize("旅行") == "旅行" && TagName.label("旅行") == nil)
        #expect(TagName.normalize("#旅行") == "旅行" && TagName.normalize("C#") == "c#")
        #expect(TagName.normalize("\"quoted\"") == "quoted" && TagName.normalize("it's") == "it's")
        #expect(TagName.normalize(String(repeating: "長", count: 40)) == String(repeating: "長", count: 32))
        #expect(TagName.normalize("咖啡ｃｏｆｆｅｅ") == "咖啡coffee")
    }

    @Test func hybridClocksReadTheirTextForm() {
        let clock = HybridTimestamp("001763000000000.000042.device.with.dots")
        #expect(clock == HybridTimestamp(wallMillis: 1_763_000_000_000, counter: 42, device: "device.with.dots"))
        #expect(HybridTimestamp("5.6.d") == HybridTimestamp(wallMillis: 5, counter: 6, device: "d"))
        #expect(HybridTimestamp("+5.6.d") == HybridTimestamp(wallMillis: 5, counter: 6, device: "d"))
        for broken in ["", "5", "5.6", "5.6.", "a.6.d", "5.b.d", "99999999999999999999.1.d"] {
            #expect(HybridTimestamp(broken) == nil, "\(broken)")
        }
        #expect(HybridTimestamp(clock!.description) == clock)
    }

    @Test func wallClockArithmeticAgreesWithTheCalendar() {
        // Every 7 days and 13 hours over 1960–2101, in zones east, west and at odd offsets.
        for name in ["Asia/Taipei", "America/Los_Angeles", "Asia/Kathmandu", "Pacific/Kiritimati", "UTC"] {
            let zone = TimeZone(identifier: name)!
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            var seconds = -315_619_200.0
            while seconds < 4_133_980_800 {
                let date = Date(timeIntervalSince1970: seconds)
                let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
                let time = Timestamps.CivilTime(date, zone: zone)
                let computed: [Int] = [time.year, time.month, time.dayOfMonth, time.hour, time.minute, time.second]
                let expected: [Int] = [parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!, parts.second!]
                #expect(computed == expected, "\(name) \(date)")
                seconds += 7 * 86_400 + 13 * 3600 + 17
            }
        }
        #expect(Timestamps.localDate(moment("2024-02-29 23:59"), zone: TimeZone(identifier: "Asia/Taipei")!) == "2024-02-29")
        #expect(Timestamps.day(999, 1, 2) == "0999-01-02")
    }

    @Test func timesCarryTheirOffset() {
        let date = moment("2026-11-21 17:40")
        #expect(Timestamps.rfc3339(date, zone: TimeZone(identifier: "Asia/Taipei")!) == "2026-11-21T17:40:00+08:00")
        #expect(Timestamps.rfc3339(date, zone: TimeZone(identifier: "America/New_York")!) == "2026-11-21T04:40:00-05:00")
        #expect(Timestamps.localDate(moment("2026-01-01 00:30"), zone: TimeZone(identifier: "UTC")!) == "2025-12-31")
        let precise = date.addingTimeInterval(3.12)
        #expect(Timestamps.rfc3339Millis(precise, zone: TimeZone(identifier: "Asia/Kathmandu")!) == "2026-11-21T15:25:03.120+05:45")
        #expect(Timestamps.rfc3339Millis(precise, zone: TimeZone(identifier: "UTC")!) == "2026-11-21T09:40:03.120+00:00")
        #expect(Timestamps.rfc3339Millis(Date(timeIntervalSince1970: -0.001), zone: TimeZone(identifier: "UTC")!) == "1969-12-31T23:59:59.999+00:00")
        #expect(Timestamps.parseRFC3339(Timestamps.rfc3339Millis(precise, zone: TimeZone(identifier: "America/St_Johns")!))
            .map(Timestamps.millis) == Timestamps.millis(precise))
        #expect(Timestamps.parse("2026-11-21T09:40:00Z", zone: .current) == date)
        #expect(Timestamps.parse("2026-02-30", zone: .current) == nil)
    }
}

@Suite struct MonthGridTests {
    @Test func lengthsAndMondayFirstWeekdays() {
        #expect(MonthGrid(year: 2026, month: 11)?.firstWeekday == 6, "2026-11-01 is a Sunday")
        #expect(MonthGrid(year: 2026, month: 6)?.firstWeekday == 0, "2026-06-01 is a Monday")
        #expect(MonthGrid(year: 1970, month: 1)?.firstWeekday == 3, "a Thursday")
        #expect(MonthGrid(year: 1969, month: 12)?.firstWeekday == 0, "before 1970 too")
        let lengths = [(2024, 2), (2026, 2), (2000, 2), (1900, 2), (2026, 12), (2026, 4)].map { MonthGrid(year: $0.0, month: $0.1)?.length }
        #expect(lengths == [29, 28, 29, 28, 31, 30])
        #expect(MonthGrid("2026-3")?.days.first == "2026-03-01")
        #expect(MonthGrid("2026-3")?.days.count == 31)
        #expect(MonthGrid("2026-13") == nil && MonthGrid("march") == nil)
    }

    @Test func agreesWithTheCalendarOnEveryMonthOfFourCenturies() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        for year in stride(from: 1800, through: 2200, by: 7) {
            for month in 1...12 {
                let first = calendar.date(from: DateComponents(year: year, month: month, day: 1))!
                let grid = MonthGrid(year: year, month: month)!
                #expect(grid.length == calendar.range(of: .day, in: .month, for: first)!.count)
                #expect(grid.firstWeekday == (calendar.component(.weekday, from: first) + 5) % 7)
            }
        }
    }
}

@Suite struct DigestTests {
    @Test func knownVectorsAndStreamingInAnyPieces() {
        #expect(SHA256Stream.hex(of: []) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256Stream.hex(of: Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256Stream.hex(of: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        // A million 'a's, fed in uneven pieces that straddle block boundaries.
        var stream = SHA256Stream()
        let piece = [UInt8](repeating: 0x61, count: 9_973)
        var left = 1_000_000
        while left > 0 {
            let count = min(left, piece.count - left % 61)
            piece[..<count].withUnsafeBytes { stream.update($0) }
            left -= count
        }
        #expect(Hex.string(stream.finalize()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        #expect(Hex.string([0x00, 0x0f, 0xa5, 0xff]) == "000fa5ff")
    }
}

@Suite struct TerminalTextTests {
    @Test func controlsAreShownNotObeyed() {
        #expect(TerminalText.neutralized("a\u{1B}[2Jb\u{07}c\rd\u{7F}") == "a^[[2Jb^Gc^Md^?")
        #expect(TerminalText.neutralized("x\u{202E}y\u{2066}z\u{9B}") == "x<U+202E>y<U+2066>z<U+009B>")
        #expect(TerminalText.neutralized("行一\n\t行二 海邊 👨‍👩‍👧") == "行一\n\t行二 海邊 👨‍👩‍👧", "text, line feeds and tabs stay")
        #expect(TerminalText.neutralized("a\u{2}海\u{3}b", highlight: true) == "a\u{1B}[1;33m海\u{1B}[0mb")
        #expect(TerminalText.neutralized("a\u{2}海\u{3}b") == "a^B海^Cb")
    }

    @Test func quotesAreShort() {
        #expect(TerminalText.quoted(String(repeating: "字", count: 1_000_000)).count == 81)
        #expect(TerminalText.quoted("01a2\u{1B}") == "01a2^[")
    }
}

@Suite struct URLRedactionTests {
    @Test func passwordsAndSecretParametersNeverShow() {
        #expect(URLRedaction.shown("postgres://bob:a:b/c@d@db.example:6543/diary?sslmode=maybe") == "postgres://bob:…@db.example:6543/diary?sslmode=maybe")
        #expect(URLRedaction.shown("https://me:pw@proxy.example/v1?api-key=sk-123&deployment=x&Token=t")
                == "https://me:…@proxy.example/v1?api-key=…&deployment=x&Token=…")
        #expect(URLRedaction.shown("https://api.example/v1") == "https://api.example/v1")
        #expect(URLRedaction.shown("postgres://bob@db.example/diary") == "postgres://bob@db.example/diary", "a user name alone stays")
        #expect(URLRedaction.shown("bob:secret@db.example") == "bob:…@db.example", "no scheme: still no password")
    }
}
