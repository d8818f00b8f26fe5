import Foundation

/// `memory.md`: what the person wants the companion to know (people, pets, places, threads
/// that go on), a Markdown file in the diary they edit themselves. It syncs as the setting
/// `memory.md` (and so goes into backups); the companion reads it and never writes it.
package enum MemoryNotes {
    /// The synced setting that carries the file between devices.
    package static let settingKey = "memory.md"
    /// This device's digest of the text last brought together with the setting.
    static let reconciledKey = "memory.md.reconciled"
    /// At most this many characters of it go with a turn.
    package static let promptLimit = 2000

    /// The file in a diary.
    package static func file(_ paths: DiaryPaths) -> URL { paths.home.appendingPathComponent("memory.md") }

    /// Where the file's text goes when a version from another device replaces it: the last
    /// one replaced, so that no sync ever loses what the person wrote.
    package static func replacedFile(_ paths: DiaryPaths) -> URL { paths.home.appendingPathComponent("memory.md.replaced") }

    /// Brings the file and the synced setting together and returns the text: an edit made
    /// here since the last time goes to the setting (and so to the other devices); a newer
    /// setting from another device is written to the file when it was not edited here
    /// meanwhile (when both were, the file, which the person has in front of them, wins).
    /// With `create`, a missing file is started from a short template, which is not synced
    /// until it is edited. A file that is not text the diary can keep (not UTF-8, or with a
    /// NUL byte, which the store would cut short) is neither synced nor ever overwritten:
    /// a lossy copy must not travel and come back over the person's own file.
    @discardableResult
    package static func reconcile(_ store: DiaryStore, language: Language, create: Bool = false) throws -> String? {
        let file = file(store.paths)
        let bytes = FileManager.default.contents(atPath: file.path)
        let synced = try store.setting(settingKey)
        let last = try store.deviceSetting(reconciledKey)
        func digest(_ bytes: some Sequence<UInt8>) -> String { SHA256Stream.hex(of: bytes) }

        if let bytes {
            let onFile = digest(bytes)
            guard let onDisk = String(validating: bytes, as: UTF8.self), !onDisk.utf8.contains(0) else {
                // Kept as it is, for the companion as well as it reads.
                if onFile != last { try store.setDeviceSetting(reconciledKey, onFile) }
                return String(decoding: bytes, as: UTF8.self)
            }
            if onFile != last {
                if onDisk != synced && !isTemplate(onDisk) { try store.setSetting(settingKey, onDisk) }
                try store.setDeviceSetting(reconciledKey, onFile)
                return onDisk
            }
            if let synced, synced != onDisk {
                try write(synced, to: file, replacing: bytes, keptIn: replacedFile(store.paths))
                try store.setDeviceSetting(reconciledKey, digest(synced.utf8))
                return synced
            }
            return onDisk
        }
        if let synced {
            try write(synced, to: file)
            try store.setDeviceSetting(reconciledKey, digest(synced.utf8))
            return synced
        }
        if create {
            let text = template(language)
            try write(text, to: file)
            try store.setDeviceSetting(reconciledKey, digest(text.utf8))
            return text
        }
        return nil
    }

    /// What goes to the companion: the text without the template's guidance (HTML comments)
    /// and blank lines, at most `promptLimit` characters; nil when nothing is left.
    package static func forPrompt(_ text: String?) -> String? {
        guard var text else { return nil }
        while let start = text.range(of: "<!--") {
            let end = text.range(of: "-->", range: start.upperBound..<text.endIndex)?.upperBound ?? text.endIndex
            text.removeSubrange(start.lowerBound..<end)
        }
        let lines = text.split(whereSeparator: \.isNewline).filter { !$0.allSatisfy(\.isWhitespace) }
        let kept = lines.joined(separator: "\n")
        guard !kept.isEmpty else { return nil }
        return kept.count > promptLimit ? String(kept.prefix(promptLimit)) + "…" : kept
    }

    static func isTemplate(_ text: String) -> Bool { Language.allCases.contains { template($0) == text } }

    static func template(_ language: Language) -> String {
        language == .en ? """
            # Memory
            <!-- What InnerBloom companion should know when you talk: people, pets, places,
                 things that are going on. It reads this file and never writes it. For example:
            - Ming: my best friend since school; we go to the sea at Badouzi.
            - Mochi: my cat, 3 years old.
            -->

            """ : """
            # 記憶
            <!-- 想讓 InnerBloom 夥伴在聊天時記得的事：人、寵物、地方、正在進行的事。
                 夥伴只會讀這個檔案，不會改它。例如：
            - 阿明：從高中就認識的好朋友，常一起去八斗子看海。
            - 麻糬：我的貓，三歲。
            -->

            """
    }

    /// Writes `text` to the file; what it held before (`replacing`) is kept beside it first.
    private static func write(_ text: String, to file: URL, replacing old: Data? = nil, keptIn keep: URL? = nil) throws {
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        if let old, let keep { try old.write(to: keep, options: .atomic) }
        try Data(text.utf8).write(to: file, options: .atomic)
    }
}
