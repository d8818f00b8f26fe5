import Foundation

/// The words the offline companion recognises: feelings and everyday topics, each with the
/// tag it leads to in either language.
struct LexiconTopic: Sendable {
    let tag: (zh: String, en: String)
    /// Substrings matched in Chinese text.
    let zh: [String]
    /// Whole English words (or their start, for words of four letters or more).
    let en: [String]

    func tag(_ language: Language) -> String { language == .en ? tag.en : tag.zh }
}

enum Lexicon {
    static let emotions: [LexiconTopic] = [
        LexiconTopic(tag: ("開心", "happy"), zh: ["開心", "高興", "快樂", "幸福", "興奮", "好玩", "好棒", "喜歡", "哈哈"],
                     en: ["happy", "glad", "joy", "fun", "great", "excited", "love", "yay"]),
        LexiconTopic(tag: ("放鬆", "relaxed"), zh: ["放鬆", "舒服", "悠閒", "自在", "愜意", "輕鬆", "療癒", "平靜"],
                     en: ["relax", "calm", "cozy", "chill", "peaceful", "comfortable"]),
        LexiconTopic(tag: ("焦慮", "anxious"), zh: ["焦慮", "緊張", "擔心", "不安", "壓力", "煩惱", "心煩"],
                     en: ["anxious", "nervous", "worried", "worry", "stress", "uneasy"]),
        LexiconTopic(tag: ("難過", "sad"), zh: ["難過", "傷心", "失落", "想哭", "哭了", "沮喪", "遺憾", "低落"],
                     en: ["sad", "upset", "cried", "cry", "down", "disappointed", "unhappy"]),
        LexiconTopic(tag: ("疲憊", "tired"), zh: ["累", "疲憊", "疲倦", "好睏", "想睡", "沒力"],
                     en: ["tired", "exhausted", "sleepy", "drained"]),
        LexiconTopic(tag: ("生氣", "angry"), zh: ["生氣", "氣死", "火大", "憤怒", "不爽"],
                     en: ["angry", "mad", "annoyed", "furious"]),
        LexiconTopic(tag: ("感動", "grateful"), zh: ["感動", "感謝", "感恩", "暖心", "謝謝"],
                     en: ["moved", "grateful", "thankful", "touched", "thanks"]),
        LexiconTopic(tag: ("孤單", "lonely"), zh: ["孤單", "寂寞", "一個人"], en: ["lonely", "alone"]),
        LexiconTopic(tag: ("期待", "hopeful"), zh: ["期待", "希望", "盼望", "等不及"], en: ["hope", "hopeful", "forward"]),
        LexiconTopic(tag: ("懷念", "nostalgic"), zh: ["懷念", "想念", "回憶", "以前"], en: ["miss", "nostalgic", "remember", "memories"]),
    ]

    static let topics: [LexiconTopic] = [
        LexiconTopic(tag: ("旅行", "travel"), zh: ["旅行", "旅遊", "出遊", "出國", "飛機", "機場", "飯店", "民宿", "景點", "海邊"],
                     en: ["trip", "travel", "vacation", "holiday", "flight", "hotel", "airport"]),
        LexiconTopic(tag: ("海邊", "beach"), zh: ["海邊", "海灘", "沙灘", "海浪", "大海"], en: ["beach", "sea", "ocean", "waves"]),
        LexiconTopic(tag: ("朋友", "friends"), zh: ["朋友", "好友", "同學", "聚會", "閨蜜"], en: ["friend", "friends", "party"]),
        LexiconTopic(tag: ("家人", "family"), zh: ["家人", "爸爸", "媽媽", "爸媽", "家裡", "孩子", "小孩", "女兒", "兒子", "阿嬤", "阿公", "老公", "老婆"],
                     en: ["family", "mom", "dad", "kids", "son", "daughter", "grandma", "grandpa", "wife", "husband"]),
        LexiconTopic(tag: ("工作", "work"), zh: ["工作", "上班", "加班", "會議", "老闆", "同事", "專案", "報告"],
                     en: ["work", "office", "meeting", "boss", "project", "deadline", "colleague"]),
        LexiconTopic(tag: ("美食", "food"), zh: ["好吃", "餐廳", "晚餐", "午餐", "早餐", "料理", "蛋糕", "火鍋", "拉麵", "甜點"],
                     en: ["food", "dinner", "lunch", "breakfast", "restaurant", "cake", "delicious"]),
        LexiconTopic(tag: ("咖啡", "coffee"), zh: ["咖啡", "拿鐵"], en: ["coffee", "latte", "cafe", "espresso"]),
        LexiconTopic(tag: ("寵物", "pets"), zh: ["貓", "狗", "寵物"], en: ["cat", "cats", "dog", "dogs", "pet", "kitten", "puppy"]),
        LexiconTopic(tag: ("運動", "exercise"), zh: ["運動", "跑步", "游泳", "健身", "爬山", "騎車", "瑜珈"],
                     en: ["run", "running", "gym", "swim", "hike", "hiking", "yoga", "workout"]),
        LexiconTopic(tag: ("散步", "walk"), zh: ["散步", "走走", "漫步"], en: ["walk", "walked", "stroll"]),
        LexiconTopic(tag: ("自然", "nature"), zh: ["公園", "森林", "夕陽", "日落", "日出", "星空", "花園", "山上"],
                     en: ["park", "flowers", "sunset", "sunrise", "forest", "mountain", "stars"]),
        LexiconTopic(tag: ("雨天", "rain"), zh: ["下雨", "雨天", "大雨", "小雨"], en: ["rain", "rainy"]),
        LexiconTopic(tag: ("學習", "study"), zh: ["讀書", "考試", "上課", "學習", "作業"], en: ["study", "exam", "class", "homework"]),
        LexiconTopic(tag: ("音樂", "music"), zh: ["音樂", "唱歌", "演唱會", "歌"], en: ["music", "concert", "song", "sing"]),
        LexiconTopic(tag: ("電影", "movies"), zh: ["電影"], en: ["movie", "film", "cinema"]),
        LexiconTopic(tag: ("閱讀", "reading"), zh: ["看書", "閱讀", "小說"], en: ["book", "reading", "novel"]),
        LexiconTopic(tag: ("生日", "birthday"), zh: ["生日"], en: ["birthday"]),
        LexiconTopic(tag: ("健康", "health"), zh: ["生病", "感冒", "醫院", "看醫生", "頭痛"], en: ["sick", "doctor", "hospital", "headache"]),
    ]

    /// The lexicon entries mentioned in the text, in lexicon order.
    static func matches(in text: String, among topics: [LexiconTopic]) -> [LexiconTopic] {
        let words = SearchableText.pieces(of: text).compactMap { piece -> String? in
            if case let .word(word) = piece { return word }
            return nil
        }
        return topics.filter { topic in
            topic.zh.contains { text.contains($0) }
                || topic.en.contains { keyword in
                    words.contains { $0 == keyword || (keyword.count >= 4 && $0.hasPrefix(keyword)) }
                }
        }
    }
}

extension Lexicon {
    /// The feeling a tag names, in the given language (`快樂` and `happy` are both 開心);
    /// nil for a tag that is no feeling.
    static func feeling(ofTag tag: String, language: Language) -> String? {
        let name = tag.lowercased()
        let topic = emotions.first { topic in
            topic.tag.zh == name || topic.tag.en == name || topic.zh.contains(name) || topic.en.contains(name)
        }
        return topic?.tag(language)
    }
}
