import ArgumentParser
import CompanionClient
import DiaryCLI
import DiaryKit
import Foundation

/// `diary-save`: ends the talk and writes the page with 3–8 tags (F-005), or drops a draft.
package struct SaveCommand: DiaryCommand {
    package static let configuration = CommandConfiguration(
        commandName: "diary-save",
        abstract: "Write the diary page for an entry, with 3–8 tags.",
        discussion: """
            The companion writes the page in your own voice from what you said, with tags that reuse \
            the ones you already have. If it cannot, the chat stays saved, the entry becomes \
            summary_failed, and --retry finishes it later. --discard drops an unsaved draft and its \
            media (unless another entry uses them). The entries are the IDs given, else those named \
            on stdin, else the most recent open draft.
            """,
        version: DiaryVersion.current)

    @OptionGroup package var global: GlobalOptions

    @Flag(name: .customLong("text"), help: "Print readable text, even when piped (same as --readable).")
    var textOutput = false

    @Argument(help: ArgumentHelp("The entry's id, or a unique prefix of it.", valueName: "id"))
    var id: String?

    @Flag(name: .long, help: "Write the page of an entry whose page failed before (default: the latest such entry).")
    var retry = false

    @Flag(name: .long, help: "Drop the draft instead of saving it, leaving nothing behind.")
    var discard = false

    @Option(name: .long, help: ArgumentHelp("The companion who writes the page: warm, clear, fun or empath.", valueName: "name"))
    var persona: String?

    @Option(name: .long, help: ArgumentHelp("Use this configured provider (or offline) for this call only.", valueName: "name"))
    var provider: String?

    package init() {}

    package var forcesText: Bool { textOutput }

    package func execute(_ context: CommandContext) async throws {
        if retry && discard { throw InputError.usage(.badOption(detail: "--retry --discard")) }
        let store = try context.openStore()
        let ids: [String]
        do {
            ids = try EntrySelection.resolve(argument: id, context: context, store: store,
                                             fallback: retry ? [.summaryFailed] : EntryStatus.open)
        } catch StoreError.noOpenDraft where retry {
            throw CompanionError.nothingToRetry
        }
        if discard {
            for entryId in ids { try Self.discard(entryId: entryId, context: context, store: store) }
        } else {
            try await save(ids, context: context, store: store)
        }
    }

    private func save(_ ids: [String], context: CommandContext, store: DiaryStore) async throws {
        // Providers, consent and notices are settled once, not once per entry.
        let conversation = try context.conversation(store, providerFlag: provider)
        for entryId in ids {
            let entry = try store.entry(id: entryId)
            let chosen = try context.persona(flag: persona, entryPersona: entry.persona, store: store)
            let saved = try await Self.writePage(entryId: entryId, persona: chosen, context: context, conversation: conversation)
            if context.json {
                try Output.json(Rendering.entryJSON(saved, paths: context.paths))
            } else {
                try Output.line(Rendering.entryPage(saved, language: context.language, paths: context.paths))
            }
        }
    }

    /// Writes one page; a failure is reported as the seed's 「總結/標籤生成失敗…」 (exit 75).
    /// On a terminal 「正在等回覆…」 shows while it is slow, and Ctrl-C cancels it.
    static func writePage(entryId: String, persona: Persona, context: CommandContext, conversation: Conversation) async throws -> Entry {
        let day = Timestamps.localDate(Date(), zone: .current)
        let write: @Sendable (@escaping @Sendable (String) -> Void) async throws -> (Entry, [Phrase]) = { _ in
            try await conversation.writePage(entryId: entryId, persona: persona, usageDay: day)
        }
        let waiting = context.stdoutIsTerminal && !context.quiet ? Phrase.waitingForReply.text(context.language) : nil
        let (saved, notices) = try await LiveReply(prefix: "", waiting: waiting).run(write)
        notices.forEach(context.say)
        return saved
    }

    /// Drops a draft and the media files nothing else uses.
    static func discard(entryId: String, context: CommandContext, store: DiaryStore) throws {
        for item in try store.discard(entryId: entryId) {
            MediaIntake.remove(item, from: context.paths.media)
        }
        context.say(.draftDiscarded)
    }
}
