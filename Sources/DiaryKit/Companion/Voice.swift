import Foundation

/// How each offline companion sounds: its opening question, its replies and the line it
/// closes a page with, in both languages.
package struct Voice {
    package let persona: Persona
    package let language: Language

    private var english: Bool { language == .en }

    /// The question that ends the greeting.
    package var opening: String {
        switch (persona.id, english) {
        case ("clear", false): return "先說重點：這一刻發生了什麼？"
        case ("clear", true): return "Key point first: what happened in this moment?"
        case ("fun", false): return "快說快說，這一刻有什麼故事？"
        case ("fun", true): return "Go on, spill it: what's the story here?"
        case ("empath", false): return "你願意慢慢跟我說說，那時候心裡的感覺嗎？"
        case ("empath", true): return "Would you like to tell me, slowly, how it felt inside right then?"
        case (_, false): return "想跟我說說這一刻嗎？"
        default: return "Would you like to tell me about this moment?"
        }
    }

    /// Follow-up questions, one of which ends each reply.
    var questions: [String] {
        switch (persona.id, english) {
        case ("clear", false): return ["這件事最關鍵的一點是什麼？", "接下來你打算怎麼做？", "有什麼是你可以先做的一小步？", "這次和以前比，哪裡不一樣？"]
        case ("clear", true): return ["What is the one key point here?", "What do you plan to do next?", "What small step could you take first?", "What was different from last time?"]
        case ("fun", false): return ["如果幫這一刻配一首歌，你會選哪首？", "給這一刻打幾分？滿分十分。", "有沒有什麼好笑的小插曲？", "如果這是電影，片名要叫什麼？"]
        case ("fun", true): return ["If this moment had a soundtrack, what song would it be?", "Out of ten, how would you score this moment?", "Any funny little mishaps along the way?", "If this were a film, what would it be called?"]
        case ("empath", false): return ["你覺得這份感覺是從哪裡來的？", "這讓你想起了什麼嗎？", "如果慢慢說，你最想先說哪一部分？", "那時候你最需要的是什麼？"]
        case ("empath", true): return ["Where do you think this feeling comes from?", "Does it remind you of anything?", "If you take it slowly, which part would you tell first?", "What did you need most right then?"]
        case (_, false): return ["那時候你最想記住的是什麼？", "當下身邊有誰陪著你嗎？", "現在回想起來，心裡是什麼感覺？", "如果可以，想對那時候的自己說什麼？"]
        default: return ["What do you most want to remember about it?", "Was anyone there with you?", "Looking back now, how does it feel?", "If you could, what would you say to yourself back then?"]
        }
    }

    /// A reply that takes up what was said, names the feeling if one was heard, and asks.
    func reply(echo: String?, feeling: LexiconTopic?, question: String) -> String {
        let heard = feeling.map { acknowledgement($0.tag.en) } ?? (english ? "I'm listening." : "我有在聽。")
        switch (persona.id, english) {
        case ("clear", false):
            return "重點：\(echo.map { "「\($0)」" } ?? "你剛說的")。\(heard)\(question)"
        case ("clear", true):
            return "Noted: \(echo.map { "“\($0)”" } ?? "what you said"). \(heard) \(question)"
        case ("fun", false):
            return "\(echo.map { "「\($0)」！" } ?? "")這畫面我已經腦補出來了。\(heard)\(question)"
        case ("fun", true):
            return "\(echo.map { "“\($0)”! " } ?? "")I can picture it already. \(heard) \(question)"
        case ("empath", false):
            return "我聽到你說\(echo.map { "「\($0)」" } ?? "的這些")。\(heard)這樣的感覺很正常。\(question)"
        case ("empath", true):
            return "I hear you saying \(echo.map { "“\($0)”" } ?? "this"). \(heard) Feeling that way makes sense. \(question)"
        case (_, false):
            return "\(echo.map { "「\($0)」——" } ?? "")\(heard)謝謝你跟我分享。\(question)"
        default:
            return "\(echo.map { "“\($0)” — " } ?? "")\(heard) Thank you for sharing it with me. \(question)"
        }
    }

    /// The line that closes the page, in the person's own voice.
    var closing: String {
        switch (persona.id, english) {
        case ("clear", false): return "記下來，之後回頭看會更清楚。"
        case ("clear", true): return "Written down, it will be clearer when I look back."
        case ("fun", false): return "今天也是值得記下來的一天。"
        case ("fun", true): return "Another day worth writing down."
        case ("empath", false): return "寫下來之後，心裡好像清楚了一點。"
        case ("empath", true): return "Having written it down, I feel a little clearer inside."
        case (_, false): return "謝謝今天願意停下來記錄的自己。"
        default: return "Thank you, me, for stopping to write this down today."
        }
    }

    private func acknowledgement(_ feeling: String) -> String {
        let lines: [String: (String, String)] = [
            "happy": ("聽得出來你很開心。", "I can hear how happy you are."),
            "relaxed": ("感覺這一刻讓你放鬆了下來。", "It sounds like this moment let you relax."),
            "anxious": ("聽起來有點讓你不安。", "It sounds like it left you a little uneasy."),
            "sad": ("聽起來你有點難過。", "It sounds like you're a bit sad."),
            "tired": ("你今天真的辛苦了。", "You've really had a long day."),
            "angry": ("這件事讓你很不舒服吧。", "That must have really bothered you."),
            "grateful": ("這份感動好珍貴。", "That feeling of gratitude is precious."),
            "lonely": ("一個人的感覺有時候很重。", "Being on your own can weigh a lot sometimes."),
            "hopeful": ("感覺你對接下來有些期待。", "It sounds like you're looking forward to what comes next."),
            "nostalgic": ("那是會讓人想念的時刻。", "That's the kind of moment one misses."),
        ]
        let line = lines[feeling] ?? ("我有在聽。", "I'm listening.")
        return english ? line.1 : line.0
    }
}
