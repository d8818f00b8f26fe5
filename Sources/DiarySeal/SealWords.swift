import DiaryKit

// What a person reads while sealing a diary, opening it on a device, or managing its keys.
extension Phrase {
    package static let newPassphrasePrompt = Phrase(
        "為這本日記設一個密語（不是登入密碼；至少 \(KeyEnvelope.shortestPassphrase) 個字）：",
        "Choose a diary passphrase (not your login password; at least \(KeyEnvelope.shortestPassphrase) characters): ")
    package static let repeatPassphrasePrompt = Phrase("再輸入一次日記密語：", "Type the diary passphrase again: ")
    package static let passphrasePrompt = Phrase("日記密語：", "Diary passphrase: ")

    /// Said once, beside the recovery key printed on standard output.
    package static let recoveryKeyShown = Phrase(
        "這本日記現在是加密同步：伺服器只存放它讀不懂的資料。下面這行是你的復原金鑰，只會顯示這一次；請抄下來收好。忘了日記密語時，只有它能打開你的日記；兩者都遺失，日記就再也無法讀取。",
        "This diary now syncs sealed: the server keeps only what it cannot read. The line below is your recovery key, shown this once; write it down and keep it safe. If you forget the diary passphrase, only this key opens your diary; with both lost, the diary cannot be read by anyone.")
    package static let diaryOpened = Phrase("已用日記密語打開這本加密的日記", "The sealed diary is open on this device.")
    package static let passphraseChanged = Phrase(
        "日記密語已更換；其他裝置不必重新登入，下次在新裝置登入時請用新的密語",
        "The diary passphrase is changed; other devices keep working, and a new device needs the new passphrase.")
    package static let stillInClear = Phrase(
        "這個帳號在伺服器上已有未加密的日記，所以會維持不加密同步；要改成加密，請執行 diary-sync encrypt",
        "This account already holds a diary in clear on the server, so it keeps syncing in clear; diary-sync encrypt seals it.")
    package static let syncsInClear = Phrase(
        "這本日記同步時不加密：伺服器的管理者能讀到內容",
        "This diary syncs in clear: whoever runs the server can read it.")

    package static let alreadySealed = Phrase("這本日記已經是加密同步，沒有要做的事", "This diary already syncs sealed; nothing to do.")

    /// What `encrypt` replaced on the server.
    package static func diarySealed(pages: Int, settings: Int, files: Int) -> Phrase {
        Phrase("已加密伺服器上的 \(pages) 篇日記、\(settings) 項設定和 \(files) 個媒體檔，未加密的副本都已移除；其他裝置請再執行一次 diary-sync login 並輸入日記密語。伺服器管理者先前做的備份裡仍可能有未加密的日記。",
               "Sealed \(pages) pages, \(settings) settings and \(files) files on the server, and removed their clear copies; on your other devices, run diary-sync login again and give the diary passphrase. Backups the server's operator made before may still hold the diary in clear.")
    }

    /// The new items key after `keys rotate`.
    package static func itemsKeyRotated(number: UInt32) -> Phrase {
        Phrase("已產生第 \(number) 把資料金鑰，之後的變更都用它加密；較早的資料照樣能打開",
               "Items key \(number) made: changes from now on are sealed with it, and older ones still open.")
    }

    /// `keys status`, for people.
    package static func keysStatusLine(keyId: String, itemsKey: UInt32, operations: UInt64, memoryMiB: Int, onThisDevice: Bool) -> Phrase {
        Phrase("加密同步：日記金鑰 \(keyId)，目前的資料金鑰第 \(itemsKey) 把，密語保護 Argon2id \(operations) 次 × \(memoryMiB) MiB；這台裝置\(onThisDevice ? "有" : "沒有")金鑰",
               "Sealed: diary key \(keyId), items key \(itemsKey), passphrase protection Argon2id \(operations) passes × \(memoryMiB) MiB; keys \(onThisDevice ? "on" : "not on") this device")
    }
}
