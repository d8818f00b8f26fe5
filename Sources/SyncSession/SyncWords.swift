import DiaryKit
import Foundation

// What sync, logins and the server tasks say (F-012, F-013, F-017 … F-019).
extension Phrase {
    package static let syncNeedsLogin = Phrase("尚未登入雲端同步，請先執行 diary-sync login（日記都安全地存在本機）",
        "Not logged in to sync; run diary-sync login first (the diary is safe on this device).")

    package static let syncFailedKept = Phrase("雲端同步失敗，已保留在本機，稍後會再試", "Sync failed; everything is kept on this device and will be tried again later.")
    package static let serverUnreachable = Phrase("連不上伺服器（請確認網址，以及伺服器是否在運作）；這台裝置上的日記沒有任何改變，請稍後再試",
                                                  "Cannot reach the server (check the address, and that the server is running); nothing on this device was changed. Try again later.")

    package static let permissionDenied = Phrase("沒有權限（請確認帳號與密碼）", "Permission denied (check the user name and password).")

    package static let serverDataState = Phrase("資料狀態異常，請重試", "The server's data is in an unexpected state; please try again.")

    package static let serverNotReady = Phrase("伺服器還沒有日記的資料表；請管理者先執行 diary-sync server-init",
        "The server has no diary tables yet; its operator should run diary-sync server-init first.")

    package static func serverTooNew(version: Int) -> Phrase {
        Phrase("伺服器的資料表版本（\(version)）比這個工具新，請更新 diary 工具",
            "The server's tables (version \(version)) are newer than this tool; update the diary tools.")
    }

    package static func credentialsExposed(path: String) -> Phrase {
        Phrase("登入資料檔其他人也能讀取，為了安全已拒絕使用：\(path)（請執行 chmod 600，或重新登入）",
            "The credentials file can be read by others, so it was not used: \(path) (run chmod 600, or log in again).")
    }

    package static func badServerAddress(url: String) -> Phrase {
        Phrase("伺服器位址看不懂：\(TerminalText.quoted(url))（應為 postgres://使用者@主機/資料庫）",
            "Cannot understand the server address: \(TerminalText.quoted(url)) (expected postgres://user@host/database).")
    }

    package static let passwordNeeded = Phrase("需要密碼：請在終端機輸入，或用 --password-stdin 從標準輸入提供",
        "A password is needed: type it on a terminal, or give it on standard input with --password-stdin.")

    package static func passwordPrompt(user: String) -> Phrase {
        Phrase("\(user) 的密碼：", "Password for \(user): ")
    }

    package static let consentRequired = Phrase("需要先同意這台伺服器的說明：請在終端機回答，或加上 --accept-consent",
        "The server's terms must be accepted first: answer on a terminal, or add --accept-consent.")

    package static let consentAccept = Phrase("同意並開始同步嗎？[y/N] ", "Accept and start syncing? [y/N] ")

    package static let otherAccount = Phrase("這本日記已和另一個帳號同步過；要換帳號請先執行 diary-sync logout --wipe-local",
        "This diary already syncs with another account; to switch, run diary-sync logout --wipe-local first.")

    package static func badUserName(name: String) -> Phrase {
        Phrase("帳號名稱只能用小寫英文字母、數字和底線，且以字母開頭：\(TerminalText.quoted(name))",
            "A user name may only hold lowercase letters, digits and underscores, starting with a letter: \(TerminalText.quoted(name))")
    }

    package static func userExists(name: String) -> Phrase {
        Phrase("伺服器上已經有這個帳號：\(name)", "That login already exists on the server: \(name)")
    }

    package static let notConfirmed = Phrase("沒有確認，什麼都沒有改變", "Not confirmed; nothing was changed.")

    package static let foreignAuth = Phrase("這台伺服器的帳號由平台自己的登入系統管理（例如 Supabase Auth），不能用 user-add 建立",
        "This server's accounts belong to its platform's own sign-in (such as Supabase Auth); user-add cannot create them.")

    package static func synced(sent: Int, received: Int, conflicts: Int, mediaSent: Int, mediaFetched: Int, mediaWaiting: Int) -> Phrase {
        var zh = "已同步：送出 \(sent) 筆、收到 \(received) 筆"
        var en = "Synced: \(sent) sent, \(received) received"
        if conflicts > 0 { zh += "，保留 \(conflicts) 個衝突版本"; en += ", \(conflicts) conflicting versions kept" }
        if mediaSent + mediaFetched > 0 { zh += "，媒體上傳 \(mediaSent) 個、下載 \(mediaFetched) 個"; en += ", media \(mediaSent) up, \(mediaFetched) down" }
        if mediaWaiting > 0 { zh += "；\(mediaWaiting) 個媒體還在另一台裝置上，之後會自動補上"; en += "; \(mediaWaiting) media files are still on another device and will follow" }
        return Phrase(zh, en + ".")
    }

    package static let syncUpToDate = Phrase("已是最新，沒有需要同步的變更", "Up to date; nothing to sync.")

    package static func syncRefused(count: Int) -> Phrase {
        Phrase("伺服器拒絕了 \(count) 筆變更，已保留在本機；用 diary-sync status 查看",
            "The server refused \(count) changes; they are kept on this device (see diary-sync status).")
    }

    package static func loggedIn(user: String, server: String) -> Phrase {
        Phrase("已登入 \(server)（\(user)），這台裝置會和你的其他裝置同步", "Logged in to \(server) as \(user); this device will sync with your others.")
    }

    package static let loggedOut = Phrase("已登出；日記仍保留在這台裝置", "Logged out; the diary stays on this device.")

    package static let localDiaryWiped = Phrase("已登出，並清除這台裝置上的日記", "Logged out, and the diary on this device was cleared.")

    package static let confirmWipe = Phrase("確定要清除這台裝置上的所有日記與媒體嗎？未同步的變更會永遠消失。輸入 yes 確認：",
        "Really clear every page and media file on this device? Changes not yet synced are lost for good. Type yes to confirm: ")

    package static func confirmDeleteAccount(user: String) -> Phrase {
        Phrase("確定要刪除伺服器上 \(user) 的所有日記、聊天與媒體嗎？這無法復原（本機的日記會保留）。輸入帳號名稱確認：",
            "Really delete every page, chat and media file of \(user) on the server? This cannot be undone (the diary on this device stays). Type the user name to confirm: ")
    }

    package static func accountDeleted(rows: Int64) -> Phrase {
        Phrase("已刪除伺服器上的帳號資料（\(rows) 筆），只留下不含身分的刪除紀錄；這台裝置已登出",
            "The account's data was deleted from the server (\(rows) rows); only an anonymous deletion record remains. This device is logged out.")
    }

    package static func serverReady(version: Int) -> Phrase {
        Phrase("伺服器已準備好（資料表版本 \(version)）", "The server is ready (tables version \(version)).")
    }

    package static func userAdded(name: String, passwordShown shown: Bool) -> Phrase {
        Phrase("已建立帳號 \(name)" + (shown ? "；密碼只會顯示這一次" : ""), "Created the login \(name)" + (shown ? "; the password is shown this once only." : "."))
    }

    package static func watching(server: String) -> Phrase {
        Phrase("正在和 \(server) 同步，按 Ctrl-C 結束", "Syncing with \(server); press Ctrl-C to stop.")
    }

    package static func watchOffline(seconds: Int) -> Phrase {
        Phrase("連不上伺服器，\(seconds) 秒後再試（資料都安全地存在本機）",
            "Cannot reach the server; trying again in \(seconds) s (everything is safe on this device).")
    }

    package static func syncStatusLine(server: String?, pending: Int, dead: Int, conflicts: Int, lastSync: String?, lastError: String?) -> Phrase {
        var zh = server.map { "伺服器：\($0)\n" } ?? "尚未登入雲端同步\n"
        var en = server.map { "Server: \($0)\n" } ?? "Not logged in to sync\n"
        zh += "等待同步：\(pending) 筆；無法同步：\(dead) 筆；衝突版本：\(conflicts) 個\n上次同步：\(lastSync ?? "從未")"
        en += "Waiting: \(pending); refused: \(dead); conflicting versions kept: \(conflicts)\nLast sync: \(lastSync ?? "never")"
        if let lastError { zh += "\n上次錯誤：\(lastError)"; en += "\nLast error: \(lastError)" }
        return Phrase(zh, en)
    }

    package static func mediaTransfersWaiting(send: Int, fetch: Int) -> Phrase {
        Phrase("媒體：待上傳 \(send) 個、待下載 \(fetch) 個", "Media: \(send) to send, \(fetch) to fetch.")
    }

    package static func pulledRejected(count: Int) -> Phrase {
        Phrase("有 \(count) 筆從伺服器取回的資料無法讀取，已另外保留在這台裝置上，同步照常進行（可能來自較新版本，請更新程式）",
            "\(count) record\(count == 1 ? "" : "s") from the server could not be read and \(count == 1 ? "was" : "were") kept aside on this device; sync goes on (perhaps from a newer version: please update).")
    }

    package static func deadLetterLine(table: String, row: String, error: String) -> Phrase {
        Phrase("無法同步：\(table) \(row)（\(error)）", "Refused: \(table) \(row) (\(error))")
    }

    package static func conflictLine(table: String, row: String, hlc: String, winner: String, source: String) -> Phrase {
        Phrase("\(table) \(row)：保留了 \(hlc) 的版本（勝出的是 \(winner)，來自 \(source)）",
            "\(table) \(row): kept version \(hlc) (the winner is \(winner), from \(source))")
    }

    package static func mediaSpaceFull(waiting: Int) -> Phrase {
        Phrase("伺服器上你的媒體空間已經用完：日記頁都已同步，還有 \(waiting) 個媒體檔留在這台裝置上，等伺服器管理者放寬上限後會自動上傳",
            "Your media space on the server is used up: the pages are synced, and \(waiting) media file\(waiting == 1 ? "" : "s") stay\(waiting == 1 ? "s" : "") on this device until the server's operator raises the limit; \(waiting == 1 ? "it goes" : "they go") up by \(waiting == 1 ? "itself" : "themselves") then.")
    }

    package static func noSuchAccount(name: String) -> Phrase {
        Phrase("伺服器上沒有這個帳號：\(TerminalText.quoted(name))", "No such login on the server: \(TerminalText.quoted(name))")
    }

    package static func badSize(text: String) -> Phrase {
        Phrase("看不懂這個大小：\(TerminalText.quoted(text))（例如 500M、2G，或 none 表示不限）",
            "Cannot understand this size: \(TerminalText.quoted(text)) (e.g. 500M, 2G, or none for no limit).")
    }

    /// One line of `diary-sync quota`: whose limit, the limit, and what is used.
    package static func quotaLine(user: String?, limit: Int64?, used: Int64?) -> Phrase {
        let limitText = limit.map(ByteCount.text) ?? ""
        var zh = (user ?? "所有人的預設") + "：上限 " + (limit == nil ? "不限" : limitText)
        var en = (user ?? "Default for everyone") + ": limit " + (limit == nil ? "none" : limitText)
        if let used { zh += "，已用 \(ByteCount.text(used))"; en += ", \(ByteCount.text(used)) used" }
        return Phrase(zh, en)
    }

    package static func deadLettersRequeued(count: Int) -> Phrase {
        Phrase("已把 \(count) 筆無法同步的變更放回佇列", "Put \(count) refused changes back in the queue.")
    }
}

// Signing up and logging in through a Supabase project (F-017).
extension Phrase {
    package static func authRefused(_ refusal: AuthRefusal) -> Phrase {
        switch refusal {
        case .wrongPassword: return Phrase("電子郵件或密碼不對", "Wrong email or password.")
        case let .emailNotConfirmed(email):
            return Phrase("\(email) 還沒有確認：請打開確認信裡的連結，再登入一次",
                "\(email) is not confirmed yet: open the link in the confirmation email, then log in again.")
        case let .alreadyRegistered(email):
            return Phrase("\(email) 已經註冊過了，請用 diary-sync login 登入", "\(email) is already signed up; log in with diary-sync login.")
        case .weakPassword: return Phrase("密碼太短或太容易猜，請換一個更長的", "That password is too short or too easy to guess; choose a longer one.")
        case .wrongCode:
            return Phrase("驗證碼不對或已過期，請再要一次（diary-sync login --send-code）",
                "The code is wrong or has expired; ask for a new one (diary-sync login --send-code).")
        case let .unknownEmail(email):
            return Phrase("\(email) 還沒有帳號，請先執行 diary-sync signup", "\(email) has no account yet; run diary-sync signup first.")
        case let .badEmail(email):
            return Phrase("這不是可以用的電子郵件地址：\(TerminalText.quoted(email))", "That email address cannot be used: \(TerminalText.quoted(email))")
        case .tooManyRequests: return Phrase("嘗試太多次了，請稍後再試", "Too many tries; please wait a while and try again.")
        case .sessionEnded:
            return Phrase("登入已失效，請再登入一次（diary-sync login）；日記都安全地存在本機",
                "The login has ended; log in again (diary-sync login). The diary is safe on this device.")
        }
    }

    package static let anonKeyNeeded = Phrase("需要專案的 anon key：用 --anon-key 或環境變數 SUPABASE_ANON_KEY 提供",
        "The project's anon key is needed: give it with --anon-key or SUPABASE_ANON_KEY.")

    package static let schemaNotExposed = Phrase("伺服器的 API 還沒有開放 diary：請管理者在 Supabase 的 API 設定把 diary 加進 Exposed schemas",
        "The server's API does not expose diary yet: its operator should add diary to Exposed schemas in Supabase's API settings.")

    package static func confirmationSent(email: String) -> Phrase {
        Phrase("已寄出確認信到 \(email)：點信裡的連結後，用 diary-sync login 登入",
            "A confirmation email went to \(email): open its link, then log in with diary-sync login.")
    }

    package static func codeSent(email: String) -> Phrase {
        Phrase("已寄出一次性驗證碼到 \(email)", "A one-time code went to \(email).")
    }

    package static func emailPasswordPrompt(email: String) -> Phrase {
        Phrase("\(email) 的密碼（直接按 Enter 改用寄到信箱的驗證碼）：", "Password for \(email) (or press Enter to get a code by email): ")
    }

    package static func newPasswordPrompt(email: String) -> Phrase {
        Phrase("為 \(email) 設定密碼：", "Choose a password for \(email): ")
    }

    package static let codePrompt = Phrase("驗證碼：", "Code: ")
}

extension SyncError: ReportableError {
    package var phrase: Phrase { report.phrase }
    package var exitStatus: Int32 { report.status }

    /// The short note `diary-sync status` keeps as the last error (never shown as a sentence).
    package var statusNote: String {
        switch self {
        case .offline, .unreachable: return "offline"
        case .permissionDenied: return "permission denied"
        case .serverNotReady: return "server not initialised"
        case let .auth(refusal): return "login: \(refusal)"
        case let .serverState(state): return "server state \(state)"
        default: return "\(self)"
        }
    }

    /// What each case tells the person and the status it exits with, decided together.
    private var report: (phrase: Phrase, status: Int32) {
        switch self {
        case .notLoggedIn: return (.syncNeedsLogin, ExitStatus.permission)
        case .offline: return (.syncFailedKept, ExitStatus.tryAgain)
        case .unreachable: return (.serverUnreachable, ExitStatus.tryAgain)
        case .permissionDenied: return (.permissionDenied, ExitStatus.permission)
        case .serverState: return (.serverDataState, ExitStatus.tryAgain)
        case .serverNotReady: return (.serverNotReady, ExitStatus.unavailable)
        case let .serverTooNew(version): return (.serverTooNew(version: version), ExitStatus.configuration)
        case let .credentialsExposed(path): return (.credentialsExposed(path: path), ExitStatus.permission)
        case let .badAddress(url): return (.badServerAddress(url: url), ExitStatus.usage)
        case .passwordNeeded: return (.passwordNeeded, ExitStatus.usage)
        case .consentDeclined: return (.consentRequired, ExitStatus.permission)
        case .otherAccount: return (.otherAccount, ExitStatus.usage)
        case let .badUserName(name): return (.badUserName(name: name), ExitStatus.usage)
        case let .userExists(name): return (.userExists(name: name), ExitStatus.cannotCreate)
        case .notConfirmed: return (.notConfirmed, ExitStatus.usage)
        case .foreignAuth: return (.foreignAuth, ExitStatus.unavailable)
        case let .mediaSpaceFull(waiting): return (.mediaSpaceFull(waiting: waiting), ExitStatus.unavailable)
        case let .noSuchAccount(name): return (.noSuchAccount(name: name), ExitStatus.noInput)
        case let .badSize(text): return (.badSize(text: text), ExitStatus.usage)
        case .anonKeyNeeded: return (.anonKeyNeeded, ExitStatus.usage)
        case .schemaNotExposed: return (.schemaNotExposed, ExitStatus.unavailable)
        case let .auth(refusal):
            let status: Int32
            switch refusal {
            case .wrongPassword, .emailNotConfirmed, .wrongCode, .sessionEnded: status = ExitStatus.permission
            case .alreadyRegistered: status = ExitStatus.cannotCreate
            case .weakPassword, .badEmail: status = ExitStatus.usage
            case .unknownEmail: status = ExitStatus.noInput
            case .tooManyRequests: status = ExitStatus.tryAgain
            }
            return (.authRefused(refusal), status)
        }
    }
}
