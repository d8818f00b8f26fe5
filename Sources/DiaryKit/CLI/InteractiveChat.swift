import Foundation

/// The conversation on a terminal: history first, then a line at a time.
struct InteractiveChat {
    let context: CommandContext
    let store: DiaryStore
    let conversation: Conversation
    let entryId: String
    var persona: Persona

    mutating func run() async throws {
        let language = context.language
        let entry = try store.entry(id: entryId, includeMessages: true)
        Output.standardError(Phrase.chatHeader(companion: persona.title(language)).text(language))
        for message in entry.messages ?? [] {
            try Output.line(Rendering.messageText(message, language: language))
        }
        try await turn { try await conversation.open(entryId: entryId, persona: persona) }

        while true {
            try Output.fragment("> ")
            guard let line = readLine(strippingNewline: true) else {
                try Output.line("")
                context.say(.draftKept)
                return
            }
            let input = line.trimmingCharacters(in: .whitespaces)
            if input.isEmpty { continue }
            if input.hasPrefix("/") {
                if try await command(input) { return }
                continue
            }
            do {
                try await turn { try await conversation.send(entryId: entryId, text: input, persona: persona) }
            } catch let error as CompanionError {
                // Said here and kept: the loop goes on so the person can /retry or keep talking.
                Output.standardError(ExitStatus.describe(error).0.text(language))
            }
        }
    }

    /// Runs a slash command; true when the chat is over.
    private mutating func command(_ input: String) async throws -> Bool {
        let language = context.language
        let words = input.split(separator: " ", maxSplits: 1).map(String.init)
        switch words[0] {
        case "/save":
            let saved: Entry
            do {
                saved = try await SaveCommand.writePage(entryId: entryId, persona: persona, context: context, store: store)
            } catch let error as CompanionError {
                // The chat is kept; the person can talk on and /save again.
                Output.standardError(ExitStatus.describe(error).0.text(language))
                return false
            }
            try Output.line("")
            try Output.line(Rendering.entryPage(saved, language: language, paths: context.paths))
            return true
        case "/cancel":
            try SaveCommand.discard(entryId: entryId, context: context, store: store)
            return true
        case "/persona":
            guard words.count == 2, let next = Persona.named(words[1]) else {
                Output.standardError(Phrase.unknownPersona(name: words.count == 2 ? words[1] : "").text(language))
                return false
            }
            persona = next
            try store.setPersona(entryId: entryId, persona: next.id)
            context.say(.personaSwitched(companion: next.title(language)))
            return false
        case "/retry":
            do {
                try await turn { try await conversation.retry(entryId: entryId, persona: persona) }
            } catch let error as CompanionError {
                Output.standardError(ExitStatus.describe(error).0.text(language))
            }
            return false
        default:
            Output.standardError(Phrase.unknownCommand(name: words[0]).text(language))
            return false
        }
    }

    private func turn(_ body: () async throws -> TurnResult) async throws {
        let result = try await body()
        result.notices.forEach(context.say)
        for message in result.messages where message.author == .companion {
            try Output.line(Rendering.messageText(message, language: context.language))
        }
    }
}
