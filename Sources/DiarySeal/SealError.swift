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
        case .cryptoUnavailable:
            return (Phrase("加密元件無法啟動（系統的亂數來源或記憶體不足）",
                           "The encryption library could not start (no system random source, or not enough memory)."),
                    ExitStatus.unavailable)
        }
    }
}
