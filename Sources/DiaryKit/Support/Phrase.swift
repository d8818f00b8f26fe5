import Foundation

/// Every sentence the command-line tools say to a person, in zh-Hant and English.
///
/// The companion's own words live in `Companion/`; this is the tool's voice.
public enum Phrase: Sendable, Equatable {
    // Intake (F-001, F-002)
    case chooseMedia
    case photoUnreadable(MediaProblem)
    case videoUnreadable(MediaProblem)
    case fileMissing(path: String)
    case toolMissing(name: String)
    case textTooLong(limit: Int)
    case welcome(companion: String)
    // Conversation (F-003, F-004, F-005)
    case sendFailed
    case analysisDeferred
    case summaryFailed
    case saveFailed
    case nothingToRetry
    case draftDiscarded
    case draftKept
    case cannotDiscardSaved
    case chatHeader(companion: String)
    case personaSwitched(companion: String)
    case unknownPersona(name: String)
    case defaultPersonaUsed
    case unknownCommand(name: String)
    case mediaUnavailable
    // Voice memos (F-011)
    case audioUnreadable(MediaProblem)
    case notHeard
    case transcriptionUnavailable
    // Providers, consent and limits (F-003, F-014, F-020)
    case waitingForReply
    case cancelled
    case unknownProvider(name: String)
    case providerSettingUnreadable
    case providerKeyMissing(provider: String, variable: String)
    case answeredBy(provider: String)
    case offlineCompanionInUse
    case consentQuestion(provider: String, host: String)
    case consentNeeded(provider: String)
    case consentDeclined
    case turnLimitReached(limit: Int)
    case pageLimitReached(limit: Int)
    case usageUnknown
    // Choosing an entry
    case entryNotFound(reference: String)
    case entryAmbiguous(reference: String)
    case noOpenDraft
    case stdinNotJSON(line: Int)
    case stdinNotUTF8
    case tooManyEntries
    // Finding (F-006 … F-009)
    case emptyDiary
    case emptyTag
    case noMatch
    case allTag
    case badDate(text: String)
    case moreResults(cursor: String)
    case badCursor(text: String)
    // Store and configuration
    case databaseFromNewerVersion
    case databaseBusy
    case homeNotCreatable(path: String)
    case ioFailure
    case badConfig(detail: String)
    case badOption(detail: String)
    // Archives: backup, export, restore, import
    case archiveUnsafe(path: String, reason: String)
    case archiveMismatch(path: String)
    case archiveTooLarge(path: String)
    case archiveBadRecord(member: String, line: Int, field: String?)
    case archiveNewerFormat(version: Int)
    case archiveNotDiary
    case archiveCorrupt
    case archiveNotWritten
    case archiveUnreadableSource(path: String)
    case mediaFileCorrupt(path: String)
    case recordFromFuture(id: String)
    case recordContradicts(id: String)
    case archiveOutputIsTerminal
    case cannotCreateFile(path: String)
    case unknownFormat(name: String)
    case htmlNeedsFolder
    case nothingToExport
    case backupWritten(entries: Int, media: Int, size: String, path: String)
    case restoreDone(added: Int, updated: Int, unchanged: Int, conflicts: Int, files: Int)
    case progressLine(done: String, total: String?, files: Int, rate: String, eta: String?)
    // Sync (F-012, F-013, F-017…F-019)
    case syncNeedsLogin
    case syncFailedKept
    case permissionDenied
    case serverDataState
    case serverNotReady
    case serverTooNew(version: Int)
    case credentialsExposed(path: String)
    case badServerAddress(url: String)
    case passwordNeeded
    case passwordPrompt(user: String)
    case consentRequired
    case consentAccept
    case otherAccount
    case badUserName(name: String)
    case userExists(name: String)
    case notConfirmed
    case foreignAuth
    case synced(sent: Int, received: Int, conflicts: Int, mediaSent: Int, mediaFetched: Int, mediaWaiting: Int)
    case syncUpToDate
    case syncRefused(count: Int)
    case loggedIn(user: String, server: String)
    case loggedOut
    case localDiaryWiped
    case confirmWipe
    case confirmDeleteAccount(user: String)
    case accountDeleted(rows: Int64)
    case serverReady(version: Int)
    case userAdded(name: String, passwordShown: Bool)
    case watching(server: String)
    case watchOffline(seconds: Int)
    case syncStatusLine(server: String?, pending: Int, dead: Int, conflicts: Int, lastSync: String?, lastError: String?)
    case mediaTransfersWaiting(send: Int, fetch: Int)
    case deadLetterLine(table: String, row: String, error: String)
    case conflictLine(table: String, row: String, hlc: String, winner: String, source: String)
    case deadLettersRequeued(count: Int)

    /// The sentence in the given language.
    public func text(_ language: Language) -> String {
        let (zh, en) = pair
        return language == .en ? en : zh
    }

    private var pair: (String, String) {
        switch self {
        case .chooseMedia:
            return ("請先選擇照片或影片（只想寫字可用 --text-only）",
                    "Please choose a photo or a video first (or use --text-only to just write).")
        case let .photoUnreadable(problem):
            return ("照片讀取失敗，請換一張或稍後再試（\(problem.text(.zhHant))）",
                    "The photo could not be read. Try another one, or try again later (\(problem.text(.en))).")
        case let .videoUnreadable(problem):
            return ("影片讀取失敗，請換一段或稍後再試（\(problem.text(.zhHant))）",
                    "The video could not be read. Try another clip, or try again later (\(problem.text(.en))).")
        case let .fileMissing(path):
            return ("找不到檔案：\(path)", "No such file: \(path)")
        case let .toolMissing(name):
            return ("找不到需要的程式 \(name)，請先安裝（Debian：apt-get install ffmpeg）",
                    "The program \(name) is needed but not installed (Debian: apt-get install ffmpeg).")
        case let .textTooLong(limit):
            return ("文字太長，請簡短一點（最多 \(limit) 字）",
                    "That text is too long, please keep it shorter (at most \(limit) characters).")
        case let .welcome(companion):
            return ("嗨，我是 InnerBloom 夥伴\(companion)。這一刻想跟我聊聊嗎？用 diary-chat 開始，聊完用 diary-save 寫成日記。",
                    "Hi, I'm your InnerBloom companion \(companion). Want to tell me about this moment? Start with diary-chat; diary-save writes the page when you're done.")
        case .sendFailed:
            return ("傳送失敗，可用 --retry 重試", "Sending failed. Use --retry to try again.")
        case .analysisDeferred:
            return ("目前無法分析，已先保存草稿，稍後可再試",
                    "Can't look at it right now. Your draft is saved; try again later.")
        case .summaryFailed:
            return ("總結/標籤生成失敗，但聊天已保存。可稍後再生成。（diary-save --retry）",
                    "The page and tags could not be written, but your chat is saved. You can write them later (diary-save --retry).")
        case .saveFailed:
            return ("保存失敗，請稍後再試", "Saving failed. Please try again later.")
        case .nothingToRetry:
            return ("沒有需要重試的內容", "There is nothing to retry.")
        case .draftDiscarded:
            return ("已丟棄草稿", "Draft discarded.")
        case .draftKept:
            return ("草稿已保留，之後可用 diary-chat 接著聊。", "Draft kept. Continue any time with diary-chat.")
        case .cannotDiscardSaved:
            return ("這篇日記已經保存，不能用 --discard 丟棄", "This page is already saved; --discard only drops drafts.")
        case let .chatHeader(companion):
            return ("正在和 \(companion) 聊天。/save 保存、/cancel 丟棄草稿、/persona 名稱 換角色、Ctrl-D 先留著草稿。",
                    "Talking with \(companion). /save to write the page, /cancel to drop the draft, /persona NAME to switch, Ctrl-D to keep the draft.")
        case let .personaSwitched(companion):
            return ("接下來由 \(companion) 陪你聊", "From now on \(companion) keeps you company.")
        case let .unknownPersona(name):
            return ("沒有這個陪伴角色：\(name)（可選：warm、clear、fun、empath）",
                    "No such companion: \(name) (choose warm, clear, fun or empath).")
        case .defaultPersonaUsed:
            return ("已先使用預設陪伴角色", "Using the default companion for now.")
        case let .unknownCommand(name):
            return ("看不懂這個指令：\(name)（可用 /save、/cancel、/persona 名稱）",
                    "Unknown command: \(name) (use /save, /cancel, /persona NAME).")
        case .mediaUnavailable:
            return ("媒體無法讀取", "The media can't be read.")
        case let .audioUnreadable(problem):
            return ("錄音讀取失敗，請換一段或稍後再試（\(problem.text(.zhHant))）",
                    "The voice memo could not be read. Try another one, or try again later (\(problem.text(.en))).")
        case .notHeard:
            return ("聽不清楚，請再試一次（錄音已保存）", "Couldn't make out the recording. Please try again (the audio is kept).")
        case .transcriptionUnavailable:
            return ("離線夥伴沒辦法聽錄音；錄音已保存，設定連線的夥伴後可用 diary-chat --reanalyze 轉成文字",
                    "The offline companion can't listen to recordings. The audio is kept; set up an online companion, then diary-chat --reanalyze turns it into text.")
        case .waitingForReply:
            return ("正在等回覆…（Ctrl-C 取消）", "Waiting for a reply… (Ctrl-C to cancel)")
        case .cancelled:
            return ("已取消；你的訊息已保存，可用 --retry 再試", "Cancelled. Your message is saved; use --retry to try again.")
        case let .unknownProvider(name):
            return ("沒有這個模型供應商：\(name)（請在 config.toml 的 [providers.\(name)] 設定，或用 offline）",
                    "No such provider: \(name) (configure [providers.\(name)] in config.toml, or use offline).")
        case .providerSettingUnreadable:
            return ("設定讀取失敗，已使用預設模型", "Couldn't read the provider setting; using the default model.")
        case let .providerKeyMissing(provider, variable):
            return ("找不到 \(provider) 的金鑰（環境變數 \(variable) 沒有設定），這次先略過它",
                    "No key for \(provider) (the environment variable \(variable) is not set); skipping it this time.")
        case let .answeredBy(provider):
            if provider == "offline" {
                return ("連線的夥伴暫時沒有回應，這次先由離線夥伴回覆",
                        "The online companion isn't answering right now; the offline companion replied this time.")
            }
            return ("這次改由 \(provider) 回覆", "\(provider) answered this time.")
        case .offlineCompanionInUse:
            return ("目前使用離線夥伴（不連網）。想讓夥伴看懂照片，請設定模型供應商（見 man diary 的 THE COMPANION 一節）。",
                    "Using the offline companion (no network). To have the companion look at your photos, set up a model provider (see THE COMPANION in man diary).")
        case let .consentQuestion(provider, host):
            return ("要把照片、文字和對話送到 \(provider)（\(host)），讓 InnerBloom 夥伴回覆嗎？只需同意一次。[y/N] ",
                    "Send your photos, words and conversation to \(provider) (\(host)) so the InnerBloom companion can answer? You'll only be asked once. [y/N] ")
        case let .consentNeeded(provider):
            return ("還沒同意把內容送到 \(provider)：請在終端機上執行一次 diary-chat 並同意，或在 config.toml 的 [companion] 設 consent = true",
                    "You haven't agreed to send content to \(provider): run diary-chat once on a terminal and agree, or set consent = true under [companion] in config.toml.")
        case .consentDeclined:
            return ("好的，這次由離線夥伴陪你，什麼都不會送出", "All right: the offline companion keeps you company this time, and nothing is sent.")
        case let .turnLimitReached(limit):
            return ("這篇日記的陪伴次數用完了（每篇 \(limit) 次）。聊天都已保存，可以用 diary-save 把它寫成日記。",
                    "This entry has had all its companion replies (\(limit) per entry). Your chat is saved; diary-save writes the page.")
        case let .pageLimitReached(limit):
            return ("今天的日記總結次數用完了（每天 \(limit) 篇）。聊天都已保存，明天再用 diary-save 寫成日記吧。",
                    "Today's pages are used up (\(limit) a day). Your chat is saved; write the page with diary-save tomorrow.")
        case .usageUnknown:
            return ("目前無法確認用量，請稍後再試", "Can't check your usage right now. Please try again later.")
        case let .entryNotFound(reference):
            return ("找不到這篇日記：\(reference)", "No diary entry matches \(reference).")
        case let .entryAmbiguous(reference):
            return ("「\(reference)」對應到不只一篇日記，請多打幾個字", "\(reference) matches more than one entry; type more of its id.")
        case .noOpenDraft:
            return ("沒有進行中的草稿，請先用 diary-new 建立一篇", "There is no open draft. Start one with diary-new.")
        case let .stdinNotJSON(line):
            return ("標準輸入第 \(line) 行不是有效的 JSON Lines，沒有做任何變更",
                    "Line \(line) of standard input is not valid JSON Lines; nothing was changed.")
        case .stdinNotUTF8:
            return ("標準輸入不是 UTF-8 文字，沒有做任何變更", "Standard input is not UTF-8 text; nothing was changed.")
        case .tooManyEntries:
            return ("一次只能處理一篇日記，請指定其中一篇", "This works on one entry at a time; name just one.")
        case .emptyDiary:
            return ("目前還沒有日記", "There are no diary pages yet.")
        case .emptyTag:
            return ("這個分類還沒有日記", "There are no pages with this tag yet.")
        case .noMatch:
            return ("找不到符合的日記", "No pages match.")
        case .allTag:
            return ("全部", "All")
        case let .badDate(text):
            return ("看不懂這個日期：\(text)（可用 2026、2026-11、2026-11-21、today、yesterday）",
                    "Can't read the date \(text) (use 2026, 2026-11, 2026-11-21, today or yesterday).")
        case let .moreResults(cursor):
            return ("還有更多；下一頁：--after \(cursor)", "More pages follow; next page: --after \(cursor)")
        case let .badCursor(text):
            return ("看不懂 --after 的值：\(text)（請貼上前一頁給的值，並用相同的 --sort）",
                    "Can't read the --after value \(text) (paste the one the previous page gave, with the same --sort).")
        case .databaseFromNewerVersion:
            return ("這份日記資料庫來自較新版本的 InnerBloom Diary，請先更新程式；資料沒有被更動",
                    "This diary was written by a newer InnerBloom Diary. Please update; nothing was changed.")
        case .databaseBusy:
            return ("日記正被其他程式使用中，請稍後再試", "The diary is busy in another program. Please try again shortly.")
        case let .homeNotCreatable(path):
            return ("無法建立日記資料夾：\(path)", "Cannot create the diary folder: \(path)")
        case .ioFailure:
            return ("讀寫失敗，請稍後再試；已保存的內容不受影響", "A read or write failed. Try again later; what was saved is safe.")
        case let .badConfig(detail):
            return ("設定檔有誤：\(detail)", "The configuration has a problem: \(detail)")
        case let .badOption(detail):
            return ("參數有誤：\(detail)", "Invalid option: \(detail)")
        case let .archiveUnsafe(path, reason):
            return ("封存檔不安全，已拒絕，日記沒有任何改變：\(path)（\(Self.unsafeReason(reason, .zhHant))）",
                    "The archive is unsafe and was refused; the diary is unchanged: \(path) (\(Self.unsafeReason(reason, .en))).")
        case let .archiveMismatch(path):
            return ("封存檔內容與清單不符（可能損壞或被改過），已拒絕，日記沒有任何改變：\(path)",
                    "The archive does not match its manifest (damaged or altered) and was refused; the diary is unchanged: \(path)")
        case let .archiveTooLarge(path):
            return ("封存檔超過大小上限（可能是壓縮炸彈），已拒絕，日記沒有任何改變：\(path)",
                    "The archive is over the size limits (possibly a decompression bomb) and was refused; the diary is unchanged: \(path)")
        case let .archiveBadRecord(member, line, field):
            let detail = field.map { "，欄位 \($0)" } ?? "，不是 JSON"
            let english = field.map { ", field \($0)" } ?? ", not JSON"
            return ("封存檔的資料有誤，已拒絕，日記沒有任何改變：\(member) 第 \(line) 行\(detail)",
                    "The archive holds invalid data and was refused; the diary is unchanged: \(member) line \(line)\(english)")
        case let .archiveNewerFormat(version):
            return ("這個封存檔來自較新的版本（格式 \(version)），請先更新 InnerBloom Diary",
                    "This archive comes from a newer version (format \(version)); please update InnerBloom Diary first.")
        case .archiveNotDiary:
            return ("這不是 InnerBloom 日記的封存檔，也不是 Day One 的匯出檔",
                    "This is neither an InnerBloom Diary archive nor a Day One export.")
        case .archiveCorrupt:
            return ("封存檔損壞或不完整，已拒絕，日記沒有任何改變",
                    "The archive is damaged or incomplete and was refused; the diary is unchanged.")
        case .archiveNotWritten:
            return ("封存檔寫入失敗（磁碟已滿或輸出中斷），這份備份不完整，請勿使用",
                    "The archive could not be written (disk full or output closed); this copy is incomplete, do not use it.")
        case let .archiveUnreadableSource(path):
            return ("無法讀取檔案：\(path)", "Cannot read the file: \(path)")
        case let .mediaFileCorrupt(path):
            return ("媒體檔案已損壞（內容與名稱不符），備份中止：\(path)",
                    "A media file is damaged (its bytes no longer match its name); the backup stopped: \(path)")
        case let .recordFromFuture(id):
            return ("資料的時間遠在未來，已拒絕，日記沒有任何改變：\(id)",
                    "A record is dated far in the future and was refused; the diary is unchanged: \(id)")
        case let .recordContradicts(id):
            return ("資料與日記裡已有的內容矛盾，已拒絕，日記沒有任何改變：\(id)",
                    "A record contradicts what the diary holds and was refused; the diary is unchanged: \(id)")
        case let .cannotCreateFile(path):
            return ("無法建立檔案或資料夾（資料夾不存在、沒有權限，或 HTML 匯出的資料夾不是空的）：\(path)",
                    "Cannot create the file or folder (no such folder, no permission, or the HTML export folder is not empty): \(path)")
        case .archiveOutputIsTerminal:
            return ("封存檔不能直接輸出到終端機，請用 -o 檔名 或導向到檔案（> diary.tar）",
                    "An archive cannot be written to the terminal; use -o FILE or redirect it (> diary.tar).")
        case let .unknownFormat(name):
            return ("不認得的格式：\(name)（可用 tar、tar.gz、tar.zst、tar.xz、zip、dayone、html）",
                    "Unknown format: \(name) (use tar, tar.gz, tar.zst, tar.xz, zip, dayone or html).")
        case .htmlNeedsFolder:
            return ("HTML 匯出需要用 -o 指定資料夾", "The HTML export needs a folder: -o FOLDER.")
        case .nothingToExport:
            return ("沒有要匯出的日記", "There is nothing to export.")
        case let .backupWritten(entries, media, size, path):
            return ("已寫入 \(path)：\(entries) 篇日記、\(media) 個媒體檔，共 \(size)",
                    "Wrote \(path): \(entries) entries, \(media) media files, \(size).")
        case let .restoreDone(added, updated, unchanged, conflicts, files):
            return ("已合併：新增 \(added) 篇、更新 \(updated) 篇、未變 \(unchanged) 篇，保留 \(conflicts) 個衝突版本，加入 \(files) 個媒體檔",
                    "Merged: \(added) added, \(updated) updated, \(unchanged) unchanged, \(conflicts) conflicting versions kept, \(files) media files added.")
        case let .progressLine(done, total, files, rate, eta):
            let zhTotal = total.map { " / \($0)" } ?? ""
            return ("\(done)\(zhTotal) · \(files) 個檔案 · \(rate)/s" + (eta.map { " · 剩約 \($0)" } ?? ""),
                    "\(done)\(zhTotal) · \(files) files · \(rate)/s" + (eta.map { " · about \($0) left" } ?? ""))
        case .syncNeedsLogin:
            return ("尚未登入雲端同步，請先執行 diary-sync login（日記都安全地存在本機）",
                    "Not logged in to sync; run diary-sync login first (the diary is safe on this device).")
        case .syncFailedKept:
            return ("雲端同步失敗，已保留在本機，稍後會再試", "Sync failed; everything is kept on this device and will be tried again later.")
        case .permissionDenied:
            return ("沒有權限（請確認帳號與密碼）", "Permission denied (check the user name and password).")
        case .serverDataState:
            return ("資料狀態異常，請重試", "The server's data is in an unexpected state; please try again.")
        case .serverNotReady:
            return ("伺服器還沒有日記的資料表；請管理者先執行 diary-sync server-init",
                    "The server has no diary tables yet; its operator should run diary-sync server-init first.")
        case let .serverTooNew(version):
            return ("伺服器的資料表版本（\(version)）比這個工具新，請更新 diary 工具",
                    "The server's tables (version \(version)) are newer than this tool; update the diary tools.")
        case let .credentialsExposed(path):
            return ("登入資料檔其他人也能讀取，為了安全已拒絕使用：\(path)（請執行 chmod 600，或重新登入）",
                    "The credentials file can be read by others, so it was not used: \(path) (run chmod 600, or log in again).")
        case let .badServerAddress(url):
            return ("伺服器位址看不懂：\(url)（應為 postgres://使用者@主機/資料庫）",
                    "Cannot understand the server address: \(url) (expected postgres://user@host/database).")
        case .passwordNeeded:
            return ("需要密碼：請在終端機輸入，或用 --password-stdin 從標準輸入提供",
                    "A password is needed: type it on a terminal, or give it on standard input with --password-stdin.")
        case let .passwordPrompt(user):
            return ("\(user) 的密碼：", "Password for \(user): ")
        case .consentRequired:
            return ("需要先同意這台伺服器的說明：請在終端機回答，或加上 --accept-consent",
                    "The server's terms must be accepted first: answer on a terminal, or add --accept-consent.")
        case .consentAccept:
            return ("同意並開始同步嗎？[y/N] ", "Accept and start syncing? [y/N] ")
        case .otherAccount:
            return ("這本日記已和另一個帳號同步過；要換帳號請先執行 diary-sync logout --wipe-local",
                    "This diary already syncs with another account; to switch, run diary-sync logout --wipe-local first.")
        case let .badUserName(name):
            return ("帳號名稱只能用小寫英文字母、數字和底線，且以字母開頭：\(name)",
                    "A user name may only hold lowercase letters, digits and underscores, starting with a letter: \(name)")
        case let .userExists(name):
            return ("伺服器上已經有這個帳號：\(name)", "That login already exists on the server: \(name)")
        case .notConfirmed:
            return ("沒有確認，什麼都沒有改變", "Not confirmed; nothing was changed.")
        case .foreignAuth:
            return ("這台伺服器的帳號由平台自己的登入系統管理（例如 Supabase Auth），不能用 user-add 建立",
                    "This server's accounts belong to its platform's own sign-in (such as Supabase Auth); user-add cannot create them.")
        case let .synced(sent, received, conflicts, mediaSent, mediaFetched, mediaWaiting):
            var zh = "已同步：送出 \(sent) 筆、收到 \(received) 筆"
            var en = "Synced: \(sent) sent, \(received) received"
            if conflicts > 0 { zh += "，保留 \(conflicts) 個衝突版本"; en += ", \(conflicts) conflicting versions kept" }
            if mediaSent + mediaFetched > 0 { zh += "，媒體上傳 \(mediaSent) 個、下載 \(mediaFetched) 個"; en += ", media \(mediaSent) up, \(mediaFetched) down" }
            if mediaWaiting > 0 { zh += "；\(mediaWaiting) 個媒體還在另一台裝置上，之後會自動補上"; en += "; \(mediaWaiting) media files are still on another device and will follow" }
            return (zh, en + ".")
        case .syncUpToDate:
            return ("已是最新，沒有需要同步的變更", "Up to date; nothing to sync.")
        case let .syncRefused(count):
            return ("伺服器拒絕了 \(count) 筆變更，已保留在本機；用 diary-sync status 查看",
                    "The server refused \(count) changes; they are kept on this device (see diary-sync status).")
        case let .loggedIn(user, server):
            return ("已登入 \(server)（\(user)），這台裝置會和你的其他裝置同步", "Logged in to \(server) as \(user); this device will sync with your others.")
        case .loggedOut:
            return ("已登出；日記仍保留在這台裝置", "Logged out; the diary stays on this device.")
        case .localDiaryWiped:
            return ("已登出，並清除這台裝置上的日記", "Logged out, and the diary on this device was cleared.")
        case .confirmWipe:
            return ("確定要清除這台裝置上的所有日記與媒體嗎？未同步的變更會永遠消失。輸入 yes 確認：",
                    "Really clear every page and media file on this device? Changes not yet synced are lost for good. Type yes to confirm: ")
        case let .confirmDeleteAccount(user):
            return ("確定要刪除伺服器上 \(user) 的所有日記、聊天與媒體嗎？這無法復原（本機的日記會保留）。輸入帳號名稱確認：",
                    "Really delete every page, chat and media file of \(user) on the server? This cannot be undone (the diary on this device stays). Type the user name to confirm: ")
        case let .accountDeleted(rows):
            return ("已刪除伺服器上的帳號資料（\(rows) 筆），只留下不含身分的刪除紀錄；這台裝置已登出",
                    "The account's data was deleted from the server (\(rows) rows); only an anonymous deletion record remains. This device is logged out.")
        case let .serverReady(version):
            return ("伺服器已準備好（資料表版本 \(version)）", "The server is ready (tables version \(version)).")
        case let .userAdded(name, shown):
            return ("已建立帳號 \(name)" + (shown ? "；密碼只會顯示這一次" : ""), "Created the login \(name)" + (shown ? "; the password is shown this once only." : "."))
        case let .watching(server):
            return ("正在和 \(server) 同步，按 Ctrl-C 結束", "Syncing with \(server); press Ctrl-C to stop.")
        case let .watchOffline(seconds):
            return ("連不上伺服器，\(seconds) 秒後再試（資料都安全地存在本機）",
                    "Cannot reach the server; trying again in \(seconds) s (everything is safe on this device).")
        case let .syncStatusLine(server, pending, dead, conflicts, lastSync, lastError):
            var zh = server.map { "伺服器：\($0)\n" } ?? "尚未登入雲端同步\n"
            var en = server.map { "Server: \($0)\n" } ?? "Not logged in to sync\n"
            zh += "等待同步：\(pending) 筆；無法同步：\(dead) 筆；衝突版本：\(conflicts) 個\n上次同步：\(lastSync ?? "從未")"
            en += "Waiting: \(pending); refused: \(dead); conflicting versions kept: \(conflicts)\nLast sync: \(lastSync ?? "never")"
            if let lastError { zh += "\n上次錯誤：\(lastError)"; en += "\nLast error: \(lastError)" }
            return (zh, en)
        case let .mediaTransfersWaiting(send, fetch):
            return ("媒體：待上傳 \(send) 個、待下載 \(fetch) 個", "Media: \(send) to send, \(fetch) to fetch.")
        case let .deadLetterLine(table, row, error):
            return ("無法同步：\(table) \(row)（\(error)）", "Refused: \(table) \(row) (\(error))")
        case let .conflictLine(table, row, hlc, winner, source):
            return ("\(table) \(row)：保留了 \(hlc) 的版本（勝出的是 \(winner)，來自 \(source)）",
                    "\(table) \(row): kept version \(hlc) (the winner is \(winner), from \(source))")
        case let .deadLettersRequeued(count):
            return ("已把 \(count) 筆無法同步的變更放回佇列", "Put \(count) refused changes back in the queue.")
        }
    }
}

extension Phrase {
    static func unsafeReason(_ reason: String, _ language: Language) -> String {
        let english = language == .en
        switch reason {
        case "absolutePath": return english ? "an absolute path" : "絕對路徑"
        case "parentReference": return english ? "a path that climbs out with .." : "含有 .. 的路徑"
        case "link": return english ? "a symbolic or hard link" : "符號連結或硬連結"
        case "device": return english ? "a device or special file" : "裝置或特殊檔案"
        case "duplicate": return english ? "the same name twice" : "重複的檔名"
        case "misplacedManifest": return english ? "the manifest is not first" : "清單不在最前面"
        default: return english ? "a strange name" : "奇怪的檔名"
        }
    }
}

/// Why a photo or video could not be taken in.
public enum MediaProblem: Sendable, Equatable {
    case tooLarge(limitMB: Int)
    case unrecognized
    case notAudio
    case damaged
    case empty

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
        }
    }
}
