import Foundation

// What the tools say about the conversation, voice memos, providers, consent and limits
// (F-003 … F-005, F-011, F-014, F-020). The companion's replies themselves are in Prompts/.
extension Phrase {
    static let sendFailed = Phrase("傳送失敗，可用 --retry 重試", "Sending failed. Use --retry to try again.")

    static let analysisDeferred = Phrase("目前無法分析，已先保存草稿，稍後可再試",
        "Can't look at it right now. Your draft is saved; try again later.")

    package static let summaryFailed = Phrase("總結/標籤生成失敗，但聊天已保存。可稍後再生成。（diary-save --retry）",
        "The page and tags could not be written, but your chat is saved. You can write them later (diary-save --retry).")

    static let saveFailed = Phrase("保存失敗，請稍後再試", "Saving failed. Please try again later.")

    package static let nothingToRetry = Phrase("沒有需要重試的內容", "There is nothing to retry.")

    package static let draftDiscarded = Phrase("已丟棄草稿", "Draft discarded.")

    package static let draftKept = Phrase("草稿已保留，之後可用 diary-chat 接著聊。", "Draft kept. Continue any time with diary-chat.")

    static let cannotDiscardSaved = Phrase("這篇日記已經保存，不能用 --discard 丟棄", "This page is already saved; --discard only drops drafts.")

    package static func chatHeader(companion: String) -> Phrase {
        Phrase("正在和 \(companion) 聊天。/save 保存、/cancel 丟棄草稿、/persona 名稱 換角色、Ctrl-D 先留著草稿。",
            "Talking with \(companion). /save to write the page, /cancel to drop the draft, /persona NAME to switch, Ctrl-D to keep the draft.")
    }

    package static func personaSwitched(companion: String) -> Phrase {
        Phrase("接下來由 \(companion) 陪你聊", "From now on \(companion) keeps you company.")
    }

    package static func unknownPersona(name: String) -> Phrase {
        Phrase("沒有這個陪伴角色：\(TerminalText.quoted(name))（可選：warm、clear、fun、empath）",
            "No such companion: \(TerminalText.quoted(name)) (choose warm, clear, fun or empath).")
    }

    static let defaultPersonaUsed = Phrase("已先使用預設陪伴角色", "Using the default companion for now.")

    package static func unknownCommand(name: String) -> Phrase {
        Phrase("看不懂這個指令：\(TerminalText.quoted(name))（可用 /save、/cancel、/persona 名稱）",
            "Unknown command: \(TerminalText.quoted(name)) (use /save, /cancel, /persona NAME).")
    }

    package static let mediaUnavailable = Phrase("媒體無法讀取", "The media can't be read.")

    static func audioUnreadable(_ problem: MediaProblem) -> Phrase {
        Phrase("錄音讀取失敗，請換一段或稍後再試（\(problem.text(.zhHant))）",
            "The voice memo could not be read. Try another one, or try again later (\(problem.text(.en))).")
    }

    package static let notHeard = Phrase("聽不清楚，請再試一次（錄音已保存）", "Couldn't make out the recording. Please try again (the audio is kept).")

    static let transcriptionUnavailable = Phrase("離線夥伴沒辦法聽錄音；錄音已保存，設定連線的夥伴後可用 diary-chat --reanalyze 轉成文字",
        "The offline companion can't listen to recordings. The audio is kept; set up an online companion, then diary-chat --reanalyze turns it into text.")

    package static let waitingForReply = Phrase("正在等回覆…（Ctrl-C 取消）", "Waiting for a reply… (Ctrl-C to cancel)")

    package static let cancelled = Phrase("已取消；你的訊息已保存，可用 --retry 再試", "Cancelled. Your message is saved; use --retry to try again.")

    package static func unknownProvider(name: String) -> Phrase {
        Phrase("沒有這個模型供應商：\(TerminalText.quoted(name))（請在 config.toml 的 [providers.\(TerminalText.quoted(name))] 設定，或用 offline）",
            "No such provider: \(TerminalText.quoted(name)) (configure [providers.\(TerminalText.quoted(name))] in config.toml, or use offline).")
    }

    package static let providerSettingUnreadable = Phrase("設定讀取失敗，已使用預設模型", "Couldn't read the provider setting; using the default model.")

    package static func providerKeyMissing(provider: String, variable: String) -> Phrase {
        Phrase("找不到 \(provider) 的金鑰（環境變數 \(variable) 沒有設定），這次先略過它",
            "No key for \(provider) (the environment variable \(variable) is not set); skipping it this time.")
    }

    static func answeredBy(provider: String) -> Phrase {
        if provider == "offline" {
            return Phrase("連線的夥伴暫時沒有回應，這次先由離線夥伴回覆",
                    "The online companion isn't answering right now; the offline companion replied this time.")
        }
        return Phrase("這次改由 \(provider) 回覆", "\(provider) answered this time.")
    }

    package static let offlineCompanionInUse = Phrase("目前使用離線夥伴（不連網）。想讓夥伴看懂照片，請設定模型供應商（見 man diary 的 THE COMPANION 一節）。",
        "Using the offline companion (no network). To have the companion look at your photos, set up a model provider (see THE COMPANION in man diary).")

    package static func consentQuestion(provider: String, host: String) -> Phrase {
        Phrase("要把照片、文字、對話和相關的舊日記片段送到 \(provider)（\(host)），讓 InnerBloom 夥伴回覆嗎？只需同意一次。[y/N] ",
            "Send your photos, words, conversation and bits of related earlier pages to \(provider) (\(host)) so the InnerBloom companion can answer? You'll only be asked once. [y/N] ")
    }

    package static func consentNeeded(provider: String) -> Phrase {
        Phrase("還沒同意把內容送到 \(provider)：請在終端機上執行一次 diary-chat 並同意，或在 config.toml 的 [companion] 設 consent = true",
            "You haven't agreed to send content to \(provider): run diary-chat once on a terminal and agree, or set consent = true under [companion] in config.toml.")
    }

    package static let consentDeclined = Phrase("好的，這次由離線夥伴陪你，什麼都不會送出", "All right: the offline companion keeps you company this time, and nothing is sent.")

    static func turnLimitReached(limit: Int) -> Phrase {
        Phrase("這篇日記的陪伴次數用完了（每篇 \(limit) 次）。聊天都已保存，可以用 diary-save 把它寫成日記。",
            "This entry has had all its companion replies (\(limit) per entry). Your chat is saved; diary-save writes the page.")
    }

    static func pageLimitReached(limit: Int) -> Phrase {
        Phrase("今天的日記總結次數用完了（每天 \(limit) 篇）。聊天都已保存，明天再用 diary-save 寫成日記吧。",
            "Today's pages are used up (\(limit) a day). Your chat is saved; write the page with diary-save tomorrow.")
    }

    static let usageUnknown = Phrase("目前無法確認用量，請稍後再試", "Can't check your usage right now. Please try again later.")

    package static let memorySuggested = Phrase("可以考慮記進 memory.md 的事（diary-chat --memory-file 打開它）：",
        "Worth adding to memory.md (diary-chat --memory-file opens it):")

    static let nothingToReflect = Phrase("這段時間還沒有保存的日記可以回顧", "There are no saved pages to look back on in these days.")

    static func tokensUsedUp(limit: Int) -> Phrase {
        Phrase("今天連線夥伴的用量到了上限（每天 \(limit) 個 token），今天先由離線夥伴陪你，明天就恢復。",
            "Today's online companion usage is used up (\(limit) tokens a day); the offline companion keeps you company until tomorrow.")
    }
}

extension CompanionError: ReportableError {
    package var phrase: Phrase {
        switch self {
        case .providerFailed: return .sendFailed
        case .pageNotWritten: return .summaryFailed
        case .nothingToRetry: return .nothingToRetry
        case let .unknownPersona(name): return .unknownPersona(name: name)
        case let .textTooLong(limit): return .textTooLong(limit: limit)
        case let .unknownProvider(name): return .unknownProvider(name: name)
        case .notHeard: return .notHeard
        case .transcriptionUnavailable: return .transcriptionUnavailable
        case .analysisUnavailable: return .analysisDeferred
        case let .consentNeeded(provider): return .consentNeeded(provider: provider)
        case let .turnLimitReached(limit): return .turnLimitReached(limit: limit)
        case let .pageLimitReached(limit): return .pageLimitReached(limit: limit)
        case .usageUnknown: return .usageUnknown
        case .cancelled: return .cancelled
        case .nothingToReflect: return .nothingToReflect
        }
    }

    package var exitStatus: Int32 {
        switch self {
        case .providerFailed, .pageNotWritten, .notHeard, .analysisUnavailable, .pageLimitReached, .usageUnknown:
            return ExitStatus.tryAgain
        case .nothingToRetry: return ExitStatus.dataError
        case .unknownPersona, .textTooLong, .unknownProvider: return ExitStatus.usage
        case .transcriptionUnavailable, .turnLimitReached: return ExitStatus.unavailable
        case .consentNeeded: return ExitStatus.permission
        case .cancelled: return ExitStatus.interrupted
        case .nothingToReflect: return ExitStatus.nothingFound
        }
    }
}
