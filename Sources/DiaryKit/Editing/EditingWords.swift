import Foundation

/// Why an edited page could not be taken, or why a page was not changed.
package indirect enum EditingError: Error, Equatable, Sendable {
    /// The header has no `---` line after it.
    case missingSeparator
    /// A header line that is not `field: value` of a known field (1-based line).
    case badLine(Int)
    /// The time on this line cannot be read.
    case badTime(Int)
    /// This line is not UTF-8 text, or holds a NUL byte (1-based line).
    case notText(Int)
    /// A tag on this line is longer than a tag's name keeps.
    case tagTooLong(Int)
    /// The editor could not be started (the command that was tried).
    case editorNotFound(String)
    /// The text the person typed was kept in a file, because of `reason`.
    case kept(EditingError, path: String)
    /// The person changed this page by hand; the companion does not silently write over it.
    case editedByPerson(String)
}

// Editing pages by hand (`diary-save --edit` and the field flags).
extension Phrase {
    static let editorHelp = Phrase("""
        修改這篇日記：改好後存檔並關閉編輯器；什麼都不改就關閉，日記不會有任何變更。
        「---」以上是標題、時間（可加時區，例如 Asia/Taipei 或 +08:00）、地點和標籤（用逗號分隔），以下是日記內容。
        以 # 開頭的行會被略過。
        """, """
        Edit this page, then save and close the editor; close it without changes and nothing changes.
        Above the --- line: title, when (a zone may follow, e.g. Asia/Taipei or +08:00), place and tags (comma-separated); below it, the page.
        Lines starting with # are ignored.
        """)

    package static func pageEdited(count: Int) -> Phrase {
        Phrase("已更新 \(count) 篇日記", count == 1 ? "Updated 1 page." : "Updated \(count) pages.")
    }

    package static let pageUnchanged = Phrase("沒有變更，日記維持原樣", "Nothing changed; the page is as it was.")

    package static func trashed(count: Int, days: Int) -> Phrase {
        Phrase("已把 \(count) 篇日記移到回收桶；\(days) 天內可用 diary-save --undelete 取回",
            "Moved \(count) page\(count == 1 ? "" : "s") to the trash; diary-save --undelete brings \(count == 1 ? "it" : "them") back within \(days) days.")
    }

    package static func untrashed(count: Int) -> Phrase {
        Phrase("已從回收桶取回 \(count) 篇日記", "Brought \(count) page\(count == 1 ? "" : "s") back from the trash.")
    }

    package static func purged(count: Int, files: Int) -> Phrase {
        Phrase("已永久刪除 \(count) 篇日記，並移除 \(files) 個不再使用的檔案",
            "Deleted \(count) page\(count == 1 ? "" : "s") for good and removed \(files) file\(files == 1 ? "" : "s") no page uses any more.")
    }

    package static let purgeNamesNothing = Phrase("沒有指定要永久刪除哪些日記，回收桶維持原樣；要清空整個回收桶，請加上 --all",
        "No page was named, so the trash is as it was; to empty the whole trash, add --all.")

    package static let purgeQuestion = Phrase("回收桶裡的日記會被永久刪除，無法復原。確定嗎？", "The pages in the trash will be deleted for good. Are you sure?")

    package static func starred(count: Int, on: Bool) -> Phrase {
        on ? Phrase("已為 \(count) 篇日記加上星號", "Starred \(count) page\(count == 1 ? "" : "s").")
            : Phrase("已取消 \(count) 篇日記的星號", "Unstarred \(count) page\(count == 1 ? "" : "s").")
    }

    package static let moved = Phrase("已移動這篇日記；用 diary-find --sort manual 看你的順序",
        "Moved the page; diary-find --sort manual shows your order.")

    package static func tagRenamed(from: String, to: String, count: Int) -> Phrase {
        Phrase("已把 \(count) 篇日記的 #\(from) 改為 #\(to)", "Renamed #\(from) to #\(to) on \(count) page\(count == 1 ? "" : "s").")
    }

    package static func tidyPreview(pages: Int, tags: Int) -> Phrase {
        Phrase("--tidy-tags 會從 \(pages) 篇日記拿掉 \(tags) 個填充標籤；沒有任何變更",
            "--tidy-tags would take \(tags) filler tag\(tags == 1 ? "" : "s") off \(pages) page\(pages == 1 ? "" : "s"); nothing was changed.")
    }

    package static func tagsTidied(pages: Int, tags: Int) -> Phrase {
        Phrase("已從 \(pages) 篇日記拿掉 \(tags) 個填充標籤；diary-save --tidy-tags --undo 可以放回去",
            "Took \(tags) filler tag\(tags == 1 ? "" : "s") off \(pages) page\(pages == 1 ? "" : "s"); diary-save --tidy-tags --undo puts them back.")
    }

    package static func tidiedTagsRestored(pages: Int) -> Phrase {
        Phrase("已把填充標籤放回 \(pages) 篇日記", "Put the filler tags back on \(pages) page\(pages == 1 ? "" : "s").")
    }

    package static let replaceQuestion = Phrase("這篇日記你親手改過。要讓 InnerBloom 夥伴依聊天重寫嗎？（你改的版本會留在歷史紀錄裡）",
        "You edited this page by hand. Let the InnerBloom companion rewrite it from the chat? (Your version stays in its history.)")

    static func editedByPerson(id: String) -> Phrase {
        Phrase("這篇日記你親手改過，InnerBloom 夥伴不會直接覆蓋；確定要重寫請加 --replace：\(id)",
            "You edited this page by hand, so the InnerBloom companion will not write over it; add --replace to rewrite it: \(id)")
    }

    static let missingSeparator = Phrase("找不到分隔標頭與內容的 --- 行", "The --- line between the header and the page is missing.")

    static func badHeaderLine(_ line: Int) -> Phrase {
        Phrase("第 \(line) 行看不懂（應為「欄位: 內容」，欄位是 標題、時間、地點、標籤）",
            "Line \(line) cannot be read (it should be \"field: value\" with title, when, place or tags).")
    }

    static func badHeaderTime(_ line: Int) -> Phrase {
        Phrase("第 \(line) 行的時間看不懂（例如 2026-11-20 18:30 Asia/Taipei）",
            "The time on line \(line) cannot be read (e.g. 2026-11-20 18:30 Asia/Taipei).")
    }

    static func editorNotFound(_ command: String) -> Phrase {
        Phrase("無法開啟編輯器「\(TerminalText.quoted(command))」；請設定 VISUAL 或 EDITOR", "Cannot start the editor \"\(TerminalText.quoted(command))\"; set VISUAL or EDITOR.")
    }

    static func editTagTooLong(_ line: Int) -> Phrase {
        Phrase("第 \(line) 行有標籤超過 \(TagName.longest) 個字", "Line \(line) has a tag longer than \(TagName.longest) characters.")
    }

    static func editLineNotText(_ line: Int) -> Phrase {
        Phrase("第 \(line) 行不是 UTF-8 文字（或含有 NUL 字元）；請用 UTF-8 存檔",
            "Line \(line) is not UTF-8 text (or holds a NUL byte); save the file as UTF-8.")
    }

    static func editKept(_ reason: Phrase, path: String) -> Phrase {
        Phrase("\(reason.zhHant)；日記沒有變更，你打的內容保存在 \(path)",
            "\(reason.en) The page is unchanged; what you typed is kept in \(path)")
    }
}

extension EditingError: ReportableError {
    package var phrase: Phrase {
        switch self {
        case .missingSeparator: return .missingSeparator
        case let .badLine(line): return .badHeaderLine(line)
        case let .badTime(line): return .badHeaderTime(line)
        case let .notText(line): return .editLineNotText(line)
        case let .tagTooLong(line): return .editTagTooLong(line)
        case let .editorNotFound(command): return .editorNotFound(command)
        case let .kept(reason, path): return .editKept(reason.phrase, path: path)
        case let .editedByPerson(id): return .editedByPerson(id: id)
        }
    }

    package var exitStatus: Int32 {
        switch self {
        case .editorNotFound: return ExitStatus.unavailable
        default: return ExitStatus.dataError
        }
    }
}
