import Foundation

/// A sentence for a person, in zh-Hant and English: what happened and what to do. It
/// never holds a stack trace, a key or a raw SQL error.
///
/// Each capability declares its own sentences beside its code (`MediaWords`,
/// `CompanionWords`, `SearchWords`, `ArchiveWords`, `SyncWords`); the companion's replies
/// are not phrases but the companion's own words (`Companion/Prompts`).
public struct Phrase: Sendable, Equatable {
    /// The Traditional Chinese sentence (the default language).
    public let zhHant: String
    /// The English twin.
    public let en: String

    /// A sentence in both languages, zh-Hant first.
    public init(_ zhHant: String, _ en: String) {
        self.zhHant = zhHant
        self.en = en
    }

    /// The sentence in the given language.
    public func text(_ language: Language) -> String { language == .en ? en : zhHant }
}

/// An error that can tell a person what happened and how the command ends: every
/// capability's error type conforms beside its own words, so nothing maps errors centrally.
package protocol ReportableError: Error {
    /// The sentence for the person.
    var phrase: Phrase { get }
    /// The sysexits status the command exits with.
    var exitStatus: Int32 { get }
}

/// The exit statuses of every command (sysexits; each man page lists them).
package enum ExitStatus {
    package static let ok: Int32 = 0
    package static let nothingFound: Int32 = 1
    package static let usage: Int32 = 64
    package static let dataError: Int32 = 65
    package static let noInput: Int32 = 66
    package static let unavailable: Int32 = 69
    package static let cannotCreate: Int32 = 73
    package static let ioError: Int32 = 74
    package static let tryAgain: Int32 = 75
    package static let permission: Int32 = 77
    package static let configuration: Int32 = 78
    /// Ctrl-C, as shells report a SIGINT: 128 + 2.
    package static let interrupted: Int32 = 130
}

// Choosing an entry, the store and the configuration: words every command may say.
extension Phrase {
    package static func entryNotFound(reference: String) -> Phrase {
        Phrase("找不到這篇日記：\(TerminalText.quoted(reference))", "No diary entry matches \(TerminalText.quoted(reference)).")
    }

    static func entryAmbiguous(reference: String) -> Phrase {
        Phrase("「\(TerminalText.quoted(reference))」對應到不只一篇日記，請多打幾個字", "\(TerminalText.quoted(reference)) matches more than one entry; type more of its id.")
    }

    package static let noOpenDraft = Phrase("沒有進行中的草稿，請先用 diary-new 建立一篇", "There is no open draft. Start one with diary-new.")

    package static func stdinNotJSON(line: Int) -> Phrase {
        Phrase("標準輸入第 \(line) 行不是有效的 JSON Lines，沒有做任何變更",
            "Line \(line) of standard input is not valid JSON Lines; nothing was changed.")
    }

    package static let stdinNotUTF8 = Phrase("標準輸入不是 UTF-8 文字，沒有做任何變更", "Standard input is not UTF-8 text; nothing was changed.")

    package static let nameAnEntry = Phrase("請指定日記的 id（或從標準輸入傳入 diary-find 的結果）",
        "Name the entry by its id (or pipe diary-find's output in).")

    package static let tooManyEntries = Phrase("一次只能處理一篇日記，請指定其中一篇", "This works on one entry at a time; name just one.")

    static let databaseFromNewerVersion = Phrase("這份日記資料庫來自較新版本的 InnerBloom Diary，請先更新程式；資料沒有被更動",
        "This diary was written by a newer InnerBloom Diary. Please update; nothing was changed.")

    static let databaseBusy = Phrase("日記正被其他程式使用中，請稍後再試", "The diary is busy in another program. Please try again shortly.")

    static func homeNotCreatable(path: String) -> Phrase {
        Phrase("無法建立日記資料夾：\(path)", "Cannot create the diary folder: \(path)")
    }

    package static let ioFailure = Phrase("讀寫失敗，請稍後再試；已保存的內容不受影響", "A read or write failed. Try again later; what was saved is safe.")

    static func badConfig(detail: String) -> Phrase {
        Phrase("設定檔有誤：\(TerminalText.quoted(detail))", "The configuration has a problem: \(TerminalText.quoted(detail))")
    }

    package static func badOption(detail: String) -> Phrase {
        Phrase("參數有誤：\(TerminalText.quoted(detail))", "Invalid option: \(TerminalText.quoted(detail))")
    }

    static func recordFromFuture(id: String) -> Phrase {
        Phrase("資料的時間遠在未來，已拒絕，日記沒有任何改變：\(id)",
            "A record is dated far in the future and was refused; the diary is unchanged: \(id)")
    }

    static func trashNeedsSavedPage(id: String) -> Phrase {
        Phrase("這篇還沒寫成日記，不能放進回收桶；要捨棄草稿請用 diary-save --discard：\(id)",
            "This entry has no page yet, so it cannot go to the trash; drop a draft with diary-save --discard: \(id)")
    }

    static func pageInTrash(id: String) -> Phrase {
        Phrase("這篇日記在回收桶裡；要先用 diary-save --undelete 取回才能變更：\(id)",
            "This page is in the trash; take it out with diary-save --undelete before changing it: \(id)")
    }

    static func pageNotInTrash(id: String) -> Phrase {
        Phrase("回收桶裡找不到這篇日記：\(TerminalText.quoted(id))", "No page in the trash matches \(TerminalText.quoted(id)).")
    }

    static func recordContradicts(id: String) -> Phrase {
        Phrase("資料與日記裡已有的內容矛盾，已拒絕，日記沒有任何改變：\(id)",
            "A record contradicts what the diary holds and was refused; the diary is unchanged: \(id)")
    }
}

extension Phrase {
    package static func textHoldsNUL(field: String) -> Phrase {
        Phrase("這段文字（\(field)）含有 NUL 字元，不是文字，沒有保存；請不含它再輸入一次",
               "This text (\(field)) holds a NUL byte, which is not text; it was not kept. Type it again without it.")
    }

    static func tagTooLong(start: String) -> Phrase {
        Phrase("標籤最多 \(TagName.longest) 個字：「\(TerminalText.quoted(start))…」太長了；日記沒有變更",
               "A tag has at most \(TagName.longest) characters; \"\(TerminalText.quoted(start))…\" is longer. The page is unchanged.")
    }

    static func valueHasLineBreak(field: String) -> Phrase {
        Phrase("\(field) 只能是一行，不能有換行；日記沒有變更", "The \(field) must be one line, without a line break; the page is unchanged.")
    }
}

extension StoreError: ReportableError {
    package var phrase: Phrase {
        switch self {
        case .newerVersion: return .databaseFromNewerVersion
        case let .cannotCreateHome(path): return .homeNotCreatable(path: path)
        case .busy: return .databaseBusy
        case let .entryNotFound(reference): return .entryNotFound(reference: reference)
        case let .ambiguous(reference): return .entryAmbiguous(reference: reference)
        case .noOpenDraft: return .noOpenDraft
        case .alreadySaved: return .cannotDiscardSaved
        case .io: return .saveFailed
        case let .notSaved(id): return .trashNeedsSavedPage(id: id)
        case let .inTrash(id): return .pageInTrash(id: id)
        case let .notInTrash(id): return .pageNotInTrash(id: id)
        case let .clockFromFuture(id): return .recordFromFuture(id: id)
        case let .invalidRecord(id): return .recordContradicts(id: id)
        case let .lineBreak(field): return .valueHasLineBreak(field: field)
        case let .tagTooLong(start): return .tagTooLong(start: start)
        case let .notText(field): return .textHoldsNUL(field: field)
        }
    }

    package var exitStatus: Int32 {
        switch self {
        case .newerVersion: return ExitStatus.configuration
        case .cannotCreateHome: return ExitStatus.cannotCreate
        case .busy: return ExitStatus.tryAgain
        case .entryNotFound, .noOpenDraft, .notInTrash: return ExitStatus.noInput
        case .notSaved, .inTrash: return ExitStatus.dataError
        case .ambiguous: return ExitStatus.usage
        case .alreadySaved, .clockFromFuture, .invalidRecord, .lineBreak, .tagTooLong, .notText: return ExitStatus.dataError
        case .io: return ExitStatus.ioError
        }
    }
}

extension ConfigError: ReportableError {
    package var phrase: Phrase {
        switch self {
        case let .invalid(detail): return .badConfig(detail: detail)
        }
    }

    package var exitStatus: Int32 { ExitStatus.configuration }
}
