import ArgumentParser
import CompanionClient
import DiaryCLI
import DiaryKit
import Foundation

/// `diary-chat`: one turn with the companion, or a whole conversation on a terminal (F-004).
package struct ChatCommand: DiaryCommand {
    package static let configuration = CommandConfiguration(
        commandName: "diary-chat",
        abstract: "Talk with the InnerBloom companion about an entry.",
        discussion: """
            With -m, adds one message and prints the companion's answer. With no -m on a terminal, \
            opens an interactive chat (/save, /cancel, /persona NAME, /retry; Ctrl-D keeps the draft). \
            The entry is the ID given, else the one named on stdin, else the most recent open draft. \
            Your message is stored before the companion is asked, so nothing you type is lost.
            """,
        version: DiaryVersion.current)

    @OptionGroup package var global: GlobalOptions

    @Flag(name: .customLong("text"), help: "Print readable text, even when piped (same as --readable).")
    var textOutput = false

    @Argument(help: ArgumentHelp("The entry's id, or a unique prefix of it.", valueName: "id"))
    var id: String?

    @Option(name: [.short, .customLong("message")], help: ArgumentHelp("What you want to say (one turn).", valueName: "text"))
    var message: String?

    @Flag(name: .long, help: "Ask the companion again to answer your last message.")
    var retry = false

    @Option(name: .long, help: ArgumentHelp("Say it with a voice memo (m4a, mp3, wav, ogg, flac, webm); it is transcribed and kept.", valueName: "file"))
    var voice: String?

    @Flag(name: .long, help: "Have the companion look at the media again (and transcribe a memo not yet transcribed).")
    var reanalyze = false

    @Option(name: .long, help: ArgumentHelp("Switch companion from now on: warm, clear, fun or empath.", valueName: "name"))
    var persona: String?

    @Option(name: .long, help: ArgumentHelp("Use this configured provider (or offline) for this call only.", valueName: "name"))
    var provider: String?

    @Flag(name: .customLong("memory-file"), help: "Print the path of memory.md (made from a short template if missing), for $EDITOR.")
    var memoryFile = false

    @Flag(name: .customLong("no-memory"), help: "Give the companion no earlier pages this time ([memory] scope in the config for always).")
    var noMemory = false

    @Flag(name: .long, help: "List the companions: name, label, description and a sample reply.")
    var personas = false

    package init() {}

    package var forcesText: Bool { textOutput }

    package func execute(_ context: CommandContext) async throws {
        if personas { return try Self.listPersonas(context) }
        if memoryFile {
            let store = try context.openStore()
            try MemoryNotes.reconcile(store, language: context.language, create: true)
            return try Output.line(MemoryNotes.file(context.paths).path)
        }
        let modes = [message != nil, retry, voice != nil, reanalyze].filter { $0 }.count
        if modes > 1 { throw InputError.usage(.badOption(detail: "-m / --retry / --voice / --reanalyze: one at a time")) }
        // Refused before anything is opened, whichever entry it was meant for.
        if let message { _ = try Conversation.trimmed(message, limit: context.config.textLimit) }
        let store = try context.openStore()
        let ids = try EntrySelection.resolve(argument: id, context: context, store: store, fallback: EntryStatus.open)
        guard ids.count == 1 else { throw InputError.usage(.tooManyEntries) }
        let entryId = ids[0]
        let entry = try store.entry(id: entryId)
        let chosen = try context.persona(flag: persona, entryPersona: entry.persona, store: store)
        if chosen.id != entry.persona { try store.setPersona(entryId: entryId, persona: chosen.id) }
        let conversation = try context.conversation(store, providerFlag: provider, memory: !noMemory)

        if modes == 0 && context.stdinIsTerminal && context.stdoutIsTerminal && !global.json {
            var chat = InteractiveChat(context: context, store: store, conversation: conversation,
                                       entryId: entryId, persona: chosen)
            try await chat.run()
            return
        }
        if reanalyze {
            let result = try await Interruption.cancellable { try await conversation.reanalyze(entryId: entryId, persona: chosen) }
            result.notices.forEach(context.say)
            let updated = try store.entry(id: entryId)
            if context.json {
                try Output.json(Rendering.entryJSON(updated, paths: context.paths))
            } else {
                try Output.line(updated.analysis ?? "")
            }
            return
        }
        try await Self.step(context, persona: chosen, zone: entry.zone) { onText in
            try await conversation.open(entryId: entryId, persona: chosen, onText: onText)
        }
        if retry {
            try await Self.step(context, persona: chosen, zone: entry.zone) { onText in
                try await conversation.retry(entryId: entryId, persona: chosen, onText: onText)
            }
        } else if let text = try await said(context, conversation: conversation, store: store, entryId: entryId) {
            try await Self.step(context, persona: chosen, zone: entry.zone) { onText in
                try await conversation.send(entryId: entryId, text: text, persona: chosen, onText: onText)
            }
        }
    }

    /// What the person said: `-m`, or a voice memo stored with the entry, then transcribed.
    private func said(_ context: CommandContext, conversation: Conversation, store: DiaryStore, entryId: String) async throws -> String? {
        guard let voice else { return message }
        let memo = try MediaIntake.storeVoiceMemo(URL(fileURLWithPath: voice), limits: context.mediaLimits, into: context.paths.media)
        try store.media.add(entryId: entryId, item: memo)
        let heard = try await Interruption.cancellable { try await conversation.transcribe(memo) }
        heard.notices.forEach(context.say)
        if !context.json { try Output.line((context.language == .en ? "You (voice): " : "你（語音）：") + heard.text) }
        return heard.text
    }

    /// Runs one companion step: on a terminal the reply streams in as it arrives (with
    /// 「正在等回覆…」 while it is slow); Ctrl-C cancels. Then prints what the step added.
    static func step(_ context: CommandContext, persona: Persona, zone: TimeZone,
                     _ body: @escaping @Sendable (@escaping @Sendable (String) -> Void) async throws -> TurnResult) async throws {
        let language = context.language
        let live = LiveReply(prefix: persona.name(language) + (language == .en ? ": " : "："),
                             waiting: context.quiet ? nil : Phrase.waitingForReply.text(language))
        let result: TurnResult
        if !context.json && context.stdoutIsTerminal {
            result = try await live.run(body)
        } else {
            result = try await Interruption.cancellable { try await body { _ in } }
        }
        result.notices.forEach(context.say)
        try print(result.messages.filter { !(live.printed && $0.author == .companion) }, context: context, zone: zone)
    }

    /// The four companions (F-025), as cards or JSON Lines of kind `persona`.
    static func listPersonas(_ context: CommandContext) throws {
        let language = context.language
        for persona in Persona.all {
            if context.json {
                try Output.json(.object([
                    ("kind", .string("persona")), ("id", .string(persona.id)), ("name", .string(persona.name(language))),
                    ("label", .string(persona.label(language))), ("description", .string(persona.description(language))),
                    ("sample", .string(persona.sample(language))),
                ]))
            } else {
                try Output.line("\(persona.id)\t\(persona.title(language))\n\t\(persona.description(language))\n\t「\(persona.sample(language))」")
            }
        }
    }

    /// Prints new messages: every one as JSON Lines, only the companion's as text.
    static func print(_ messages: [Message], context: CommandContext, zone: TimeZone) throws {
        for message in messages {
            if context.json {
                try Output.json(Rendering.messageJSON(message, zone: zone))
            } else if message.author == .companion {
                try Output.line(Rendering.messageText(message, language: context.language))
            }
        }
    }
}
