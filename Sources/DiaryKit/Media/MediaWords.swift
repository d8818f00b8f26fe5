import Foundation

// What intake says about photos, videos and voice memos (F-001, F-002, F-011).
extension Phrase {
    package static func garbageFound(count: Int, bytes: Int64) -> Phrase {
        Phrase("有 \(count) 個沒有日記使用的檔案（\(bytes) 位元組）；不加 --dry-run 即可移除",
            "\(count) file\(count == 1 ? "" : "s") no page uses (\(bytes) bytes); run without --dry-run to remove them.")
    }

    package static func garbageRemoved(count: Int, bytes: Int64) -> Phrase {
        Phrase("已移除 \(count) 個沒有日記使用的檔案（\(bytes) 位元組）",
            "Removed \(count) file\(count == 1 ? "" : "s") no page uses (\(bytes) bytes).")
    }

    package static let chooseMedia = Phrase("請先選擇照片或影片（只想寫字可用 --text-only）",
        "Please choose a photo or a video first (or use --text-only to just write).")

    static func photoUnreadable(_ problem: MediaProblem) -> Phrase {
        Phrase("照片讀取失敗，請換一張或稍後再試（\(problem.text(.zhHant))）",
            "The photo could not be read. Try another one, or try again later (\(problem.text(.en))).")
    }

    static func videoUnreadable(_ problem: MediaProblem) -> Phrase {
        Phrase("影片讀取失敗，請換一段或稍後再試（\(problem.text(.zhHant))）",
            "The video could not be read. Try another clip, or try again later (\(problem.text(.en))).")
    }

    package static func fileMissing(path: String) -> Phrase {
        Phrase("找不到檔案：\(TerminalText.quoted(path))", "No such file: \(TerminalText.quoted(path))")
    }

    static func toolMissing(name: String) -> Phrase {
        Phrase("找不到需要的程式 \(name)，請先安裝（Debian：apt-get install ffmpeg）",
            "The program \(name) is needed but not installed (Debian: apt-get install ffmpeg).")
    }

    static func textTooLong(limit: Int) -> Phrase {
        Phrase("文字太長，請簡短一點（最多 \(limit) 字）",
            "That text is too long, please keep it shorter (at most \(limit) characters).")
    }

    package static func welcome(companion: String) -> Phrase {
        Phrase("嗨，我是 InnerBloom 夥伴\(companion)。這一刻想跟我聊聊嗎？用 diary-chat 開始，聊完用 diary-save 寫成日記。",
            "Hi, I'm your InnerBloom companion \(companion). Want to tell me about this moment? Start with diary-chat; diary-save writes the page when you're done.")
    }
}

/// Why a photo or video could not be taken in.
public enum MediaProblem: Sendable, Equatable {
    case tooLarge(limitMB: Int)
    case unrecognized
    case notAudio
    case damaged
    case empty
    /// A folder was given.
    case folder
    /// A pipe, a device or a socket was given.
    case notAFile

    /// The reason in the given language.
    public func text(_ language: Language) -> String {
        switch (self, language) {
        case let (.tooLarge(limit), .zhHant): return "超過 \(limit) MB 上限"
        case let (.tooLarge(limit), .en): return "larger than the \(limit) MB limit"
        case (.unrecognized, .zhHant): return "不是支援的照片或影片格式"
        case (.unrecognized, .en): return "not a supported photo or video format"
        case (.notAudio, .zhHant): return "不是支援的錄音格式：m4a、mp3、wav、ogg、flac、webm"
        case (.notAudio, .en): return "not a supported recording: m4a, mp3, wav, ogg, flac or webm"
        case (.damaged, .zhHant): return "檔案損壞或不完整"
        case (.damaged, .en): return "the file is damaged or incomplete"
        case (.empty, .zhHant): return "檔案是空的"
        case (.empty, .en): return "the file is empty"
        case (.folder, .zhHant): return "這是資料夾，不是檔案"
        case (.folder, .en): return "that is a folder, not a file"
        case (.notAFile, .zhHant): return "這不是一般檔案（是管線或裝置）"
        case (.notAFile, .en): return "that is not a regular file (a pipe or a device)"
        }
    }
}

extension MediaError: ReportableError {
    package var phrase: Phrase {
        switch self {
        case let .missing(path): return .fileMissing(path: path)
        case let .unreadable(.video?, problem): return .videoUnreadable(problem)
        case let .unreadable(.audio?, problem): return .audioUnreadable(problem)
        case let .unreadable(_, problem): return .photoUnreadable(problem)
        case let .toolMissing(name): return .toolMissing(name: name)
        case let .cannotStore(path): return .homeNotCreatable(path: path)
        }
    }

    package var exitStatus: Int32 {
        switch self {
        case .missing: return ExitStatus.noInput
        case .unreadable: return ExitStatus.dataError
        case .toolMissing: return ExitStatus.unavailable
        case .cannotStore: return ExitStatus.cannotCreate
        }
    }
}
