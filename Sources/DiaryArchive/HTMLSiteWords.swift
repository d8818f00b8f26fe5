import DiaryKit
import Foundation

extension HTMLSite {
    /// The words of the site in one language. Never "AI": the companion is InnerBloom 夥伴.
    struct Words {
        let language: Language
        init(_ language: Language) { self.language = language }
        var en: Bool { language == .en }

        var siteTitle: String { en ? "InnerBloom Diary" : "InnerBloom 日記" }
        var all: String { Phrase.allTag.text(language) }
        var tagsLabel: String { en ? "Tags" : "標籤" }
        var calendarLabel: String { en ? "Calendar" : "日曆" }
        var feelingsLabel: String { en ? "Feelings over time" : "心情變化" }
        var entriesLabel: String { en ? "Entries" : "日記" }
        var untitled: String { en ? "(untitled)" : "（未命名）" }
        var date: String { en ? "Date" : "日期" }
        var place: String { en ? "Place" : "地點" }
        var weather: String { en ? "Weather" : "天氣" }
        var status: String { en ? "Status" : "狀態" }
        var starred: String { en ? "Starred" : "已加星號" }
        var note: String { en ? "Note" : "備註" }
        var transcript: String { en ? "Voice memo" : "錄音內容" }
        var me: String { en ? "Me" : "我" }
        var companion: String { en ? "InnerBloom companion" : "InnerBloom 夥伴" }
        var back: String { en ? "← All entries" : "← 所有日記" }
        var newer: String { en ? "← Newer" : "← 較新" }
        var older: String { en ? "Older →" : "較舊 →" }
        var photo: String { en ? "Photo" : "照片" }
        var video: String { en ? "Video" : "影片" }
        var audio: String { en ? "Voice memo" : "錄音" }
        var file: String { en ? "File" : "檔案" }
        var openOriginal: String { en ? "Open the original" : "開啟原檔" }
        var mediaUnavailable: String { Phrase.mediaUnavailable.text(language) }
        var emptyDiary: String { Phrase.emptyDiary.text(language) }
        var weekdays: [String] { en ? ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"] : ["一", "二", "三", "四", "五", "六", "日"] }

        func conversation(_ count: Int) -> String { en ? "Conversation (\(count))" : "對話（\(count)）" }
        func entryCount(_ count: Int) -> String { en ? (count == 1 ? "1 entry" : "\(count) entries") : "\(count) 篇日記" }
        func exported(_ when: String) -> String { en ? "Exported \(when)" : "匯出於 \(when)" }
        func tagHeading(_ name: String) -> String { "#\(name)" }

        func month(_ year: Int, _ month: Int) -> String {
            let names = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                         "October", "November", "December"]
            return en ? "\(names[month - 1]) \(year)" : "\(year) 年 \(month) 月"
        }

        func statusText(_ status: EntryStatus) -> String {
            switch status {
            case .draft: return en ? "Draft" : "草稿"
            case .chatting: return en ? "In conversation" : "聊天中"
            case .saved: return en ? "Saved" : "已保存"
            case .summaryFailed: return en ? "Page not written yet" : "頁面尚未寫成"
            }
        }

        func mediaName(_ kind: MediaKind) -> String {
            switch kind {
            case .photo: return photo
            case .video: return video
            case .audio: return audio
            case .file: return file
            }
        }
    }

    /// One entry of the site and the file its page goes in.
}
