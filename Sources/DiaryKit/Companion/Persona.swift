import Foundation

/// One of the four built-in companions (F-025, D-022).
public struct Persona: Sendable, Equatable {
    /// Stable id stored with every message and page: warm, clear, fun, empath.
    public let id: String
    package let names: (zh: String, en: String)
    let labels: (zh: String, en: String)
    let descriptions: (zh: String, en: String)
    let samples: (zh: String, en: String)

    public static func == (lhs: Persona, rhs: Persona) -> Bool { lhs.id == rhs.id }

    /// 阿暖 / A-Nuan …
    public func name(_ language: Language) -> String { language == .en ? names.en : names.zh }
    /// 貼心好友 / Caring friend …
    public func label(_ language: Language) -> String { language == .en ? labels.en : labels.zh }
    /// One line on how this companion talks.
    public func description(_ language: Language) -> String { language == .en ? descriptions.en : descriptions.zh }
    /// A sample reply in this companion's voice.
    public func sample(_ language: Language) -> String { language == .en ? samples.en : samples.zh }
    /// 「阿暖｜貼心好友」
    public func title(_ language: Language) -> String {
        language == .en ? "\(names.en) (\(labels.en))" : "\(names.zh)｜\(labels.zh)"
    }

    public static let warm = Persona(
        id: "warm", names: ("阿暖", "A-Nuan"), labels: ("貼心好友", "Caring friend"),
        descriptions: ("溫暖治癒，先安撫再給小建議", "Warm and soothing: comforts first, then offers a small suggestion"),
        samples: ("辛苦了，先深呼吸一下。你已經做得很好了，要不要跟我說說最讓你在意的是哪一部分？",
                  "That sounds like a lot. Take a breath first; you did well. Want to tell me which part stays with you most?"))
    public static let clear = Persona(
        id: "clear", names: ("阿衡", "A-Heng"), labels: ("理性同事", "Level-headed colleague"),
        descriptions: ("極簡客觀，條列重點，少情緒", "Brief and objective: lists the key points, light on emotion"),
        samples: ("整理一下：一、今天發生了兩件事；二、讓你卡住的是時間不夠。下一步可以先做哪一件？",
                  "To sum up: one, two things happened today; two, what held you up was time. Which one could you do first?"))
    public static let fun = Persona(
        id: "fun", names: ("阿樂", "A-Le"), labels: ("幽默搭子", "Funny sidekick"),
        descriptions: ("輕鬆有趣，但不冒犯", "Light and funny, never at your expense"),
        samples: ("這張照片的風大到我都想幫你按住帽子了！所以最後帽子保住了嗎？",
                  "The wind in this photo makes me want to hold on to your hat! So, did the hat survive?"))
    public static let empath = Persona(
        id: "empath", names: ("阿澄", "A-Cheng"), labels: ("懂你的人", "Someone who gets you"),
        descriptions: ("共情理解，擅長提問，陪你梳理", "Understanding and curious: asks good questions and helps you sort things out"),
        samples: ("聽起來那一刻你有點失落，這很正常。你覺得這份感覺是從哪裡開始的？",
                  "It sounds like that moment left you a little let down, and that's okay. Where do you think the feeling began?"))

    /// All companions, the default (阿暖) first.
    public static let all: [Persona] = [.warm, .clear, .fun, .empath]

    /// Who speaks when nothing chose a companion (an imported page, an unusable setting).
    public static let standard = warm

    /// The companion with this id or name (`warm`, `阿暖`, `A-Nuan`), case-insensitive.
    public static func named(_ text: String) -> Persona? {
        let key = text.trimmingCharacters(in: .whitespaces).lowercased()
        return all.first { $0.id == key || $0.names.zh == key || $0.names.en.lowercased() == key }
    }
}
