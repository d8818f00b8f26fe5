import CompanionClient
import DiaryCLI
import DiaryKit
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
        let opening = persona
        try await turn { [conversation, entryId] onText in try await conversation.open(entryId: entryId, persona: opening, onText: onText) }

        while true {
            try Output.fragment("> ")
            guard let line = readLine(strippingNewline: true) else {
                try Output.line("")
                context.say(.draftKept)
                return
            }
            let input = line.trimmingCharacters(in: .whitespaces)
            if input.isEmpty { continue }
            if input.utf8.contains(0) {
                // Said and skipped: the talk goes on (the store would refuse it anyway).
                Output.standardError(Phrase.textHoldsNUL(field: "message").text(language))
                continue
            }
            if input.hasPrefix("/") {
                if try await command(input) { return }
                continue
            }
            do {
                let speaking = persona
                try await turn { [conversation, entryId] onText in try await conversation.send(entryId: entryId, text: input, persona: speaking, onText: onText) }
            } catch let error as CompanionError {
                // Said here and kept: the loop goes on so the person can /retry or keep talking.
                Output.standardError(ErrorReport.describe(error).0.text(language))
            }
        }
    }

    /// Runs a slash command; true when the chat is over.
    private mutating func command(_ input: String) async throws -> Bool {
        let language = context.language
        let words = input.split(separator: " ", maxSplits: 1).map(String.init)
        switch words[0] {
        case "/save":
            let saved: (entry: Entry, memorySuggestions: [String])
            do {
                saved = try await SaveCommand.writePage(entryId: entryId, persona: persona, context: context, conversation: conversation)
            } catch let error as CompanionError {
                // The chat is kept; the person can talk on and /save again.
                Output.standardError(ErrorReport.describe(error).0.text(language))
                return false
            }
            try Output.line("")
            try SaveCommand.printSaved(saved, context: context)
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
                let speaking = persona
                try await turn { [conversation, entryId] onText in try await conversation.retry(entryId: entryId, persona: speaking, onText: onText) }
            } catch let error as CompanionError {
                Output.standardError(ErrorReport.describe(error).0.text(language))
            }
            return false
        default:
            Output.standardError(Phrase.unknownCommand(name: words[0]).text(language))
            return false
        }
    }

    /// One step, its reply streamed as it arrives; Ctrl-C cancels the step, not the chat.
    private func turn(_ body: @escaping @Sendable (@escaping @Sendable (String) -> Void) async throws -> TurnResult) async throws {
        do {
            try await ChatCommand.step(context, persona: persona, zone: .current, body)
        } catch CompanionError.cancelled {
            context.say(.cancelled)
        }
    }
}
