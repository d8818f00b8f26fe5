import Foundation
import DiaryKit

/// The sentences among `phrases` that break the rules for words people read: each has a
/// zh-Hant and an English form, the two differ, and neither says "AI".
func phrasesBreakingTheRules(_ phrases: [Phrase]) -> [String] {
    phrases.filter { phrase in
        let zh = phrase.text(.zhHant), en = phrase.text(.en)
        let saysAI = [zh, en].contains { $0.range(of: #"\bAI\b"#, options: .regularExpression) != nil }
        return zh.isEmpty || en.isEmpty || zh == en || saysAI
    }.map { "\($0)" }
}
