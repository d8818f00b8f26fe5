import Foundation

// The empty states and date/cursor complaints of searching (F-006 … F-009).
extension Phrase {
    package static let emptyDiary = Phrase("目前還沒有日記", "There are no diary pages yet.")

    static let emptyTag = Phrase("這個分類還沒有日記", "There are no pages with this tag yet.")

    static let noMatch = Phrase("找不到符合的日記", "No pages match.")

    package static let allTag = Phrase("全部", "All")

    package static let noHistory = Phrase("這篇日記沒有更早的版本", "This page has no earlier versions.")

    package static let noFeelings = Phrase("這段時間的日記還沒有心情標籤", "No pages in this time carry a feeling tag yet.")

    package static let nothingRelated = Phrase("沒有和這篇相關的更早日記", "No earlier pages relate to this one.")

    /// Why an earlier page was recalled: the words both share, its meaning, or the day.
    package static func recalledBecause(_ recollection: Recollection) -> Phrase {
        if recollection.sameDay { return Phrase("↳ 往年的今天", "↳ this day in an earlier year") }
        if recollection.matched.isEmpty { return Phrase("↳ 意思相近", "↳ close in meaning") }
        let close = recollection.meaning != nil
        return Phrase("↳ 共同的字詞：" + recollection.matched.joined(separator: "、") + (close ? "；意思也相近" : ""),
                      "↳ shared words: " + recollection.matched.joined(separator: ", ") + (close ? "; close in meaning too" : ""))
    }

    /// The embedder named by `[memory] embeddings` is missing or failed; recall uses words.
    package static let meaningUnavailable = Phrase("暫時無法依意思找回從前的日記，這次只依字詞",
        "Can't recall earlier pages by meaning right now; using their words this time.")

    /// The person did not agree to send pages to the embedder.
    package static let meaningDeclined = Phrase("好的，日記不會送去建立意思索引，這次只依字詞找回從前的日記",
        "All right: no page is sent to be embedded; earlier pages are recalled by their words this time.")

    /// Pages given meaning vectors on this device by `diary-save --embed`.
    package static func pagesEmbedded(_ made: Int, model: String) -> Phrase {
        Phrase("已為 \(made) 篇日記建立意思索引（\(model)，只存在這台裝置）",
               "Made meaning vectors for \(made) page\(made == 1 ? "" : "s") (\(model); kept on this device only).")
    }

    static let emptyTrash = Phrase("回收桶是空的", "The trash is empty.")

    package static func badDate(text: String) -> Phrase {
        Phrase("看不懂這個日期：\(TerminalText.quoted(text))（可用 2026、2026-11、2026-11-21、today、yesterday）",
            "Can't read the date \(TerminalText.quoted(text)) (use 2026, 2026-11, 2026-11-21, today or yesterday).")
    }

    package static func moreResults(cursor: String) -> Phrase {
        Phrase("還有更多；下一頁：--after \(cursor)", "More pages follow; next page: --after \(cursor)")
    }

    static func badCursor(text: String) -> Phrase {
        Phrase("看不懂 --after 的值：\(TerminalText.quoted(text))（請貼上前一頁給的值，並用相同的 --sort）",
            "Can't read the --after value \(TerminalText.quoted(text)) (paste the one the previous page gave, with the same --sort).")
    }
}

extension SearchError: ReportableError {
    package var phrase: Phrase {
        switch self {
        case let .badDate(text): return .badDate(text: text)
        case let .badCursor(text): return .badCursor(text: text)
        }
    }

    package var exitStatus: Int32 { ExitStatus.usage }
}

extension MeaningUnavailable: ReportableError {
    package var phrase: Phrase { .meaningUnavailable }
    package var exitStatus: Int32 { ExitStatus.tryAgain }
}
