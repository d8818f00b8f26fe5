import DiaryKit

/// Why a sealed diary's keys or values could not be used. No case carries a secret.
package enum SealError: Error, Equatable, Sendable {
    /// The passphrase does not open the diary key.
    case wrongPassphrase
    /// The recovery key does not open the diary key.
    case wrongRecoveryKey
    /// What was typed is not a recovery key (a wrong letter, one too many or too few).
    case recoveryKeyMistyped
    /// The envelope asks Argon2id for less work than this client allows.
    case weakPassphraseCost
    /// The envelope is not one this client can read, or holds a key that is not the diary's.
    case envelopeUnreadable
    /// A value sealed with an items key this device does not have.
    case unknownItemsKey(UInt32)
    /// A sealed value that does not open: changed, moved to another record, part, clock or
    /// account, or cut short.
    case doesNotOpen
    /// The key file can be read by others.
    case keyFileExposed(String)
    /// The key file is not one this client wrote.
    case keyFileUnreadable(String)
    /// The key file could not be written.
    case keyFileUnwritable(String)
    /// libsodium could not start (no random source) or had no memory for Argon2id.
    case cryptoUnavailable
    /// The diary is sealed and this device has no keys for it (log in again).
    case needsKeys
    /// A passphrase is needed and there is no terminal to ask on (use --passphrase-file).
    case passphraseNeeded
    /// The new passphrase was typed differently the second time.
    case passphrasesDiffer
    /// A new passphrase shorter than this client allows.
    case passphraseTooShort
    /// The account syncs in clear: there are no keys to show, change or rotate.
    case notSealed
    /// The file named to hold a passphrase or a recovery key cannot be read.
    case secretFileUnreadable(String)
    /// The account is being sealed (`encrypt` on another device): changes wait here.
    case beingSealed
    /// `encrypt` needs every change of this device on the server first; this many are still queued.
    case changesStillQueued(Int)
    /// `encrypt` needs every file the server holds on this device; this many could not be fetched.
    case filesNotFetched(Int)
    /// This many files did not go up sealed; the clear copies stay until they do.
    case filesNotSealed(Int)
    /// A record on the server that no device can read, so it cannot be sealed (its id).
    case unreadableOnServer(String)
}

extension SealError: ReportableError {
    package var phrase: Phrase { report.phrase }
    package var exitStatus: Int32 { report.status }

    /// What each case tells the person and the status it exits with, decided together.
    private var report: (phrase: Phrase, status: Int32) {
        switch self {
        case .wrongPassphrase:
            return (Phrase("日記密語不對，打不開這本日記（這台裝置沒有留下任何金鑰）",
                           "That diary passphrase does not open this diary (no key was kept on this device)."), ExitStatus.permission)
        case .wrongRecoveryKey:
            return (Phrase("這把復原金鑰打不開這本日記", "That recovery key does not open this diary."), ExitStatus.permission)
        case .recoveryKeyMistyped:
            return (Phrase("復原金鑰有打錯的地方：應是 56 個英數字，每 4 個一組，請再核對一次",
                           "The recovery key has a typo: it is 56 letters and digits in groups of four; check it again."),
                    ExitStatus.usage)
        case .weakPassphraseCost:
            return (Phrase("伺服器上的金鑰資料要求的密語保護強度低於這台裝置允許的下限，已拒絕使用",
                           "The key envelope on the server asks for weaker passphrase protection than this device allows; it was not used."),
                    ExitStatus.dataError)
        case .envelopeUnreadable:
            return (Phrase("伺服器上的金鑰資料看不懂，或不是這本日記的金鑰",
                           "The key envelope on the server cannot be read, or holds a key that is not this diary's."),
                    ExitStatus.dataError)
        case let .unknownItemsKey(number):
            return (Phrase("有一筆資料用這台裝置還沒有的金鑰（第 \(number) 把）加密；請重新登入以取得最新的金鑰",
                           "A record is sealed with a key this device does not have yet (number \(number)); log in again to get the newest keys."),
                    ExitStatus.dataError)
        case .doesNotOpen:
            return (Phrase("有一筆加密資料打不開：它被改動過、搬到別處，或不完整",
                           "A sealed record does not open: it was changed, moved, or cut short."), ExitStatus.dataError)
        case let .keyFileExposed(path):
            return (Phrase("金鑰檔其他人也能讀取，為了安全已拒絕使用：\(path)（請執行 chmod 600，或重新登入）",
                           "The key file can be read by others, so it was not used: \(path) (run chmod 600, or log in again)."),
                    ExitStatus.permission)
        case let .keyFileUnreadable(path):
            return (Phrase("金鑰檔看不懂：\(path)（請重新登入）", "The key file cannot be read: \(path) (log in again)."), ExitStatus.dataError)
        case let .keyFileUnwritable(path):
            return (Phrase("無法寫入金鑰檔：\(path)", "Cannot write the key file in \(path)."), ExitStatus.cannotCreate)
        case .needsKeys:
            return (Phrase("這本日記在伺服器上是加密的，這台裝置還沒有它的金鑰：請再執行一次 diary-sync login 並輸入日記密語（變更都保留在本機）",
                           "This diary is sealed on the server and this device has no keys for it: run diary-sync login again and give the diary passphrase (your changes are kept on this device)."),
                    ExitStatus.permission)
        case .passphraseNeeded:
            return (Phrase("需要日記密語：請在終端機輸入，或用 --passphrase-file 指定存放密語的檔案",
                           "The diary passphrase is needed: type it on a terminal, or name a file that holds it with --passphrase-file."),
                    ExitStatus.usage)
        case .passphrasesDiffer:
            return (Phrase("兩次輸入的密語不一樣，什麼都沒有改變", "The two passphrases differ; nothing was changed."), ExitStatus.usage)
        case .passphraseTooShort:
            return (Phrase("日記密語至少要 \(KeyEnvelope.shortestPassphrase) 個字", "A diary passphrase has at least \(KeyEnvelope.shortestPassphrase) characters."),
                    ExitStatus.usage)
        case let .secretFileUnreadable(path):
            return (Phrase("讀不到這個檔案：\(path)", "Cannot read the file \(path)."), ExitStatus.noInput)
        case .notSealed:
            return (Phrase("這本日記的同步沒有加密，沒有金鑰可以管理", "This diary syncs in clear: it has no keys to manage."), ExitStatus.usage)
        case .beingSealed:
            return (Phrase("這本日記正在加密（diary-sync encrypt），完成前伺服器暫不收變更，你的變更都保留在本機。若是在這台裝置開始的，請再執行一次 diary-sync encrypt 把它做完；在其他裝置上，完成後請再執行一次 diary-sync login 並輸入日記密語",
                           "This diary is being sealed (diary-sync encrypt); until that is done the server takes no changes, and yours are kept on this device. If it was started here, run diary-sync encrypt again to finish it; on another device, run diary-sync login again with the diary passphrase once it is done."),
                    ExitStatus.tryAgain)
        case let .changesStillQueued(count):
            return (Phrase("還有 \(count) 筆變更沒送上伺服器；加密前必須先同步完成（diary-sync status 會列出原因），什麼都沒有改變",
                           "\(count) changes are not on the server yet; the diary is sealed only after they are (diary-sync status says why). Nothing was changed."),
                    ExitStatus.tryAgain)
        case let .filesNotFetched(count):
            return (Phrase("伺服器上有 \(count) 個媒體檔還沒下載到這台裝置；加密需要這台裝置有全部的檔案，請稍後再執行一次 diary-sync encrypt，什麼都沒有改變",
                           "\(count) files on the server could not be fetched to this device, and sealing needs them all here; run diary-sync encrypt again later. Nothing was changed."),
                    ExitStatus.tryAgain)
        case let .filesNotSealed(count):
            return (Phrase("有 \(count) 個媒體檔還沒加密上傳；未加密的副本會留在伺服器上直到完成，請再執行一次 diary-sync encrypt",
                           "\(count) files did not go up sealed yet; their clear copies stay on the server until they do. Run diary-sync encrypt again."),
                    ExitStatus.tryAgain)
        case let .unreadableOnServer(id):
            return (Phrase("伺服器上有一篇日記（\(id)）沒有任何裝置讀得懂，無法加密；加密已暫停，其餘都保持原樣",
                           "A page on the server (\(id)) cannot be read by any device, so it cannot be sealed; sealing stopped, and everything else is as it was."),
                    ExitStatus.dataError)
        case .cryptoUnavailable:
            return (Phrase("加密元件無法啟動（系統的亂數來源或記憶體不足）",
                           "The encryption library could not start (no system random source, or not enough memory)."),
                    ExitStatus.unavailable)
        }
    }
}
