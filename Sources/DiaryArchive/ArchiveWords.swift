import DiaryKit
import Foundation

// What backups, exports, restores and imports say.
extension Phrase {
    static func archiveUnsafe(path: String, reason: ArchiveError.UnsafeReason) -> Phrase {
        Phrase("封存檔不安全，已拒絕，日記沒有任何改變：\(TerminalText.quoted(path))（\(reason.text(.zhHant))）",
            "The archive is unsafe and was refused; the diary is unchanged: \(TerminalText.quoted(path)) (\(reason.text(.en))).")
    }

    static func archiveMismatch(path: String) -> Phrase {
        Phrase("封存檔內容與清單不符（可能損壞或被改過），已拒絕，日記沒有任何改變：\(TerminalText.quoted(path))",
            "The archive does not match its manifest (damaged or altered) and was refused; the diary is unchanged: \(TerminalText.quoted(path))")
    }

    static func archiveTooLarge(path: String) -> Phrase {
        Phrase("封存檔超過大小上限（可能是壓縮炸彈），已拒絕，日記沒有任何改變：\(TerminalText.quoted(path))",
            "The archive is over the size limits (possibly a decompression bomb) and was refused; the diary is unchanged: \(TerminalText.quoted(path))")
    }

    static func archiveBadRecord(member: String, line: Int, field: String?) -> Phrase {
        let detail = field.map { "，欄位 \($0)" } ?? "，不是 JSON"
        let english = field.map { ", field \($0)" } ?? ", not JSON"
        return Phrase("封存檔的資料有誤，已拒絕，日記沒有任何改變：\(TerminalText.quoted(member)) 第 \(line) 行\(detail)",
            "The archive holds invalid data and was refused; the diary is unchanged: \(TerminalText.quoted(member)) line \(line)\(english)")
    }

    static func archiveNewerFormat(version: Int) -> Phrase {
        Phrase("這個封存檔來自較新的版本（格式 \(version)），請先更新 InnerBloom Diary",
            "This archive comes from a newer version (format \(version)); please update InnerBloom Diary first.")
    }

    static let archiveNotDiary = Phrase("這不是 InnerBloom 日記的封存檔，也不是 Day One 或 jrnl 的匯出檔",
        "This is neither an InnerBloom Diary archive nor a Day One or jrnl export.")

    static let archiveCorrupt = Phrase("封存檔損壞或不完整，已拒絕，日記沒有任何改變",
        "The archive is damaged or incomplete and was refused; the diary is unchanged.")

    static let archiveNotWritten = Phrase("封存檔寫入失敗（磁碟已滿或輸出中斷），這份備份不完整，請勿使用",
        "The archive could not be written (disk full or output closed); this copy is incomplete, do not use it.")

    static func archiveUnreadableSource(path: String) -> Phrase {
        Phrase("無法讀取檔案：\(TerminalText.quoted(path))", "Cannot read the file: \(TerminalText.quoted(path))")
    }

    /// A Day One attachment kept although its bytes are not the MD5 its name gives.
    package static func dayOneFileMismatch(path: String) -> Phrase {
        Phrase("Day One 匯出檔裡的這個檔案和它的 MD5 檔名不符，仍依實際內容保留，請看看它是不是你要的：\(TerminalText.quoted(path))",
            "This file of the Day One export does not match the MD5 its name gives; it was kept as it is, check that it is the one you want: \(TerminalText.quoted(path))")
    }

    /// A Day One attachment of a kind the diary cannot keep yet.
    package static func dayOneCaseTwin(uuid: String) -> Phrase {
        Phrase("Day One 匯出檔裡這篇的 uuid 和另一篇只差在大小寫，已另存為一篇，沒有併入那一篇：\(TerminalText.quoted(uuid))",
            "This Day One entry's uuid differs from another's only in case; it was kept as a page of its own, not merged into that one: \(TerminalText.quoted(uuid))")
    }

    package static func dayOneFileLeftOut(path: String) -> Phrase {
        Phrase("Day One 匯出檔裡的這個附件沒有匯入（日記不能保存這種檔案，原檔仍在匯出檔裡）：\(TerminalText.quoted(path))",
            "This attachment of the Day One export was not imported (the diary cannot keep this type of file; it is still in the export): \(TerminalText.quoted(path))")
    }

    static func mediaFileCorrupt(path: String) -> Phrase {
        Phrase("媒體檔案已損壞（內容與名稱不符），備份中止：\(TerminalText.quoted(path))",
            "A media file is damaged (its bytes no longer match its name); the backup stopped: \(TerminalText.quoted(path))")
    }

    package static let archiveOutputIsTerminal = Phrase("封存檔不能直接輸出到終端機，請用 -o 檔名 或導向到檔案（> diary.tar）",
        "An archive cannot be written to the terminal; use -o FILE or redirect it (> diary.tar).")

    static func cannotCreateFile(path: String) -> Phrase {
        Phrase("無法建立檔案或資料夾（資料夾不存在、沒有權限，或 HTML 匯出的資料夾不是空的）：\(path)",
            "Cannot create the file or folder (no such folder, no permission, or the HTML export folder is not empty): \(path)")
    }

    package static func unknownFormat(name: String) -> Phrase {
        Phrase("不認得的格式：\(TerminalText.quoted(name))（可用 tar、tar.gz、tar.zst、tar.xz、zip、dayone、jrnl、html）",
            "Unknown format: \(TerminalText.quoted(name)) (use tar, tar.gz, tar.zst, tar.xz, zip, dayone, jrnl or html).")
    }

    package static let htmlNeedsFolder = Phrase("HTML 匯出需要用 -o 指定資料夾", "The HTML export needs a folder: -o FOLDER.")

    package static let nothingToExport = Phrase("沒有要匯出的日記", "There is nothing to export.")

    package static func backupWritten(entries: Int, media: Int, size: String, path: String) -> Phrase {
        Phrase("已寫入 \(path)：\(entries) 篇日記、\(media) 個媒體檔，共 \(size)",
            "Wrote \(path): \(entries) entries, \(media) media files, \(size).")
    }

    package static func restoreDone(added: Int, updated: Int, unchanged: Int, conflicts: Int, files: Int) -> Phrase {
        Phrase("已合併：新增 \(added) 篇、更新 \(updated) 篇、未變 \(unchanged) 篇，保留 \(conflicts) 個衝突版本，加入 \(files) 個媒體檔",
            "Merged: \(added) added, \(updated) updated, \(unchanged) unchanged, \(conflicts) conflicting versions kept, \(files) media files added.")
    }

    package static func progressLine(done: String, total: String?, files: Int, rate: String, eta: String?) -> Phrase {
        let zhTotal = total.map { " / \($0)" } ?? ""
        return Phrase("\(done)\(zhTotal) · \(files) 個檔案 · \(rate)/s" + (eta.map { " · 剩約 \($0)" } ?? ""),
            "\(done)\(zhTotal) · \(files) files · \(rate)/s" + (eta.map { " · about \($0) left" } ?? ""))
    }
}

extension ArchiveError.UnsafeReason {
    /// Why the member was refused, in the given language.
    package func text(_ language: Language) -> String {
        let english = language == .en
        switch self {
        case .absolutePath: return english ? "an absolute path" : "絕對路徑"
        case .parentReference: return english ? "a path that climbs out with .." : "含有 .. 的路徑"
        case .link: return english ? "a symbolic or hard link" : "符號連結或硬連結"
        case .device: return english ? "a device or special file" : "裝置或特殊檔案"
        case .duplicate: return english ? "the same name twice" : "重複的檔名"
        case .misplacedManifest: return english ? "the manifest is not first" : "清單不在最前面"
        case .strangeName: return english ? "a strange name" : "奇怪的檔名"
        }
    }
}

extension ArchiveError: ReportableError {
    package var phrase: Phrase {
        switch self {
        case let .cannotOpen(path): return .fileMissing(path: path)
        case let .cannotCreate(path): return .cannotCreateFile(path: path)
        case .corrupt: return .archiveCorrupt
        case .writeFailed, .unsupported: return .archiveNotWritten
        case let .cannotRead(path): return .archiveUnreadableSource(path: path)
        case let .unsafeMember(path, reason): return .archiveUnsafe(path: path, reason: reason)
        case let .manifestMismatch(path): return .archiveMismatch(path: path)
        case let .tooLarge(path): return .archiveTooLarge(path: path)
        case let .invalidRecord(member, line, field): return .archiveBadRecord(member: member, line: line, field: field)
        case let .newerFormat(version): return .archiveNewerFormat(version: version)
        case .notDiaryArchive: return .archiveNotDiary
        case let .mediaCorrupt(path): return .mediaFileCorrupt(path: path)
        }
    }

    package var exitStatus: Int32 {
        switch self {
        case .cannotOpen: return ExitStatus.noInput
        case .cannotCreate: return ExitStatus.cannotCreate
        case .writeFailed, .unsupported, .cannotRead, .mediaCorrupt: return ExitStatus.ioError
        case .corrupt, .unsafeMember, .manifestMismatch, .tooLarge, .invalidRecord, .newerFormat, .notDiaryArchive:
            return ExitStatus.dataError
        }
    }
}
