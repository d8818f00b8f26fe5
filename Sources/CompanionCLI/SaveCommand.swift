import ArgumentParser
import CompanionClient
import DiaryCLI
import DiaryKit
import Foundation

/// `diary-save`: ends the talk and writes the page with its tags (F-005), or drops a draft.
package struct SaveCommand: DiaryCommand {
    package static let configuration = CommandConfiguration(
        commandName: "diary-save",
        abstract: "Write the diary page for an entry, with its tags; or change a page by hand.",
        discussion: """
            The companion writes the page in your own voice from what you said, with tags that reuse \
            the ones you already have. If it cannot, the chat stays saved, the entry becomes \
            summary_failed, and --retry finishes it later. --discard drops an unsaved draft and its \
            media (unless another entry uses them). The entries are the IDs given, else those named \
            on stdin, else the most recent open draft.

            By hand: --edit opens the page in $VISUAL or $EDITOR; --title, --add-tag, --remove-tag, \
            --at and --place change it without an editor (one id, or many on stdin, in one go); \
            --star, --delete (to the trash for [trash] keep_days, 30 by default), --undelete, \
            --purge (the pages named; --all for the whole trash), --move with --before/--after \
            (your own order) and --rename-tag. Every earlier \
            version stays in the page's history (diary-find --show ID --history). A page you \
            edited is not rewritten by the companion unless you agree (or pass --replace). \
            --tidy-tags takes off the filler tags earlier offline pages got (see --dry-run, --undo).

            With [memory] embeddings in the config, each saved page also gets a meaning vector \
            (kept on this device only), so the companion recalls pages that say the same in other \
            words; --embed makes the missing ones at once, after a restore or a change of model.
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

    @Flag(name: .long, help: "Rewrite a page you edited by hand without asking (your version stays in its history).")
    var replace = false

    @Flag(name: .long, help: "Open the page in $VISUAL or $EDITOR: a header (title, when, place, tags), then the page.")
    var edit = false

    @Option(name: .long, help: ArgumentHelp("Set the title.", valueName: "text"))
    var title: String?

    @Option(name: .customLong("add-tag"), help: ArgumentHelp("Add a tag (repeatable).", valueName: "tag"))
    var addTag: [String] = []

    @Option(name: .customLong("remove-tag"), help: ArgumentHelp("Remove a tag (repeatable).", valueName: "tag"))
    var removeTag: [String] = []

    @Option(name: .long, help: ArgumentHelp("Set when it happened: \"2026-11-20 18:30\", a zone may follow (Asia/Taipei, +08:00).", valueName: "time"))
    var at: String?

    @Option(name: .long, help: ArgumentHelp("Set the place (an empty value clears it).", valueName: "place"))
    var place: String?

    @Flag(name: .long, help: "Star the page (a favourite; diary-find --starred).")
    var star = false

    @Flag(name: .long, help: "Take the star off.")
    var unstar = false

    @Flag(name: .long, help: "Move the page to the trash (diary-find --trash lists it).")
    var delete = false

    @Flag(name: .long, help: "Bring the page back from the trash.")
    var undelete = false

    @Flag(name: .long, help: "Delete pages in the trash for good: those named (or on stdin); the whole trash only with --all or a yes on a terminal.")
    var purge = false

    @Flag(name: .long, help: "With --purge: empty the whole trash.")
    var all = false

    @Flag(name: .long, help: "Move the page in your own order (with --before or --after; diary-find --sort manual).")
    var move = false

    @Option(name: .long, help: ArgumentHelp("With --move: put the page just before this one.", valueName: "id"))
    var before: String?

    @Option(name: .long, help: ArgumentHelp("With --move: put the page just after this one.", valueName: "id"))
    var after: String?

    @Option(name: .customLong("rename-tag"), parsing: .upToNextOption,
            help: ArgumentHelp("Rename a tag on every page, merging it into the new name if that exists.", valueName: "old new"))
    var renameTag: [String] = []

    @Flag(name: .customLong("tidy-tags"),
          help: "Take the filler tags (照片, 傍晚, 秋天…) off pages the offline companion wrote, once; --undo puts them back.")
    var tidyTags = false

    @Option(name: .long, help: ArgumentHelp("Write a reflection on the last week, month or year (or the days of --from/--to: range).", valueName: "period"))
    var reflect: String?

    @Option(name: .long, help: ArgumentHelp("With --reflect: from this day, month or year (a month or year alone: all of it).", valueName: "date"))
    var from: String?

    @Option(name: .long, help: ArgumentHelp("With --reflect: up to this day, month or year (default today).", valueName: "date"))
    var to: String?

    @Flag(name: .long, help: "Make the meaning vectors [memory] embeddings uses for every saved page without one (kept on this device only).")
    var embed = false

    @Flag(name: .customLong("dry-run"), help: "With --tidy-tags: list what would change, change nothing.")
    var dryRun = false

    @Flag(name: .long, help: "With --tidy-tags: put back the tags it took off.")
    var undo = false

    package init() {}

    package var forcesText: Bool { textOutput }

    /// The flags that change a page by hand, each named as typed.
    private var handFlags: [String] {
        [(edit, "--edit"), (title != nil, "--title"), (!addTag.isEmpty, "--add-tag"), (!removeTag.isEmpty, "--remove-tag"),
         (at != nil, "--at"), (place != nil, "--place"), (star, "--star"), (unstar, "--unstar"), (delete, "--delete"),
         (undelete, "--undelete"), (purge, "--purge"), (move, "--move"), (!renameTag.isEmpty, "--rename-tag"),
         (tidyTags, "--tidy-tags"), (retry, "--retry"), (discard, "--discard"), (reflect != nil, "--reflect"),
         (embed, "--embed")].filter(\.0).map(\.1)
    }

    package func execute(_ context: CommandContext) async throws {
        let chosen = handFlags
        let fieldFlags: Set = ["--title", "--add-tag", "--remove-tag", "--at", "--place"]
        // One kind of change per call; the field flags go together.
        if chosen.filter({ !fieldFlags.contains($0) }).count > 1 || (chosen.contains { fieldFlags.contains($0) } && chosen.contains { !fieldFlags.contains($0) }) {
            throw InputError.usage(.badOption(detail: chosen.joined(separator: " ")))
        }
        if (before != nil || after != nil) != move || (before != nil && after != nil) {
            throw InputError.usage(.badOption(detail: "--move --before/--after"))
        }
        if (dryRun || undo) && !tidyTags || (dryRun && undo) || (tidyTags && id != nil) {
            throw InputError.usage(.badOption(detail: "--tidy-tags --dry-run/--undo"))
        }
        if (from != nil || to != nil) && reflect == nil { throw InputError.usage(.badOption(detail: "--from/--to (with --reflect)")) }
        if all && (!purge || id != nil) { throw InputError.usage(.badOption(detail: "--purge --all (with no id)")) }
        let store = try context.openStore()
        defer { context.purgeExpiredTrash(store) }
        if let reflect { return try await writeReflection(reflect, context: context, store: store) }
        if embed { return try await embedPages(context: context, store: store) }
        if !chosen.isEmpty && !retry && !discard { return try changeByHand(context: context, store: store) }
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
            if entry.editedAt != nil && entry.status == .saved && !replace {
                // The person's own words are not silently written over: ask, or a script says --replace.
                guard context.askYesNo(.replaceQuestion) == true else { throw EditingError.editedByPerson(entryId) }
            }
            let chosen = try context.persona(flag: persona, entryPersona: entry.persona, store: store)
            try Self.printSaved(try await Self.writePage(entryId: entryId, persona: chosen, context: context, conversation: conversation),
                                context: context)
        }
    }

    /// `--embed`: meaning vectors for every saved page that has none from the configured model.
    private func embedPages(context: CommandContext, store: DiaryStore) async throws {
        guard id == nil else { throw InputError.usage(.badOption(detail: "--embed (no id)")) }
        guard let name = context.config.memoryEmbeddings else { throw ConfigError.invalid("[memory] embeddings is not set") }
        guard context.config.memoryScope != "off" else { throw ConfigError.invalid("[memory] scope = \"off\"") }
        guard let provider = context.config.providers[name] else { throw ConfigError.invalid("[memory] embeddings = \"\(name)\" has no [providers.\(name)] table") }
        guard context.config.embeddings != nil else {
            throw ConfigError.invalid("[memory] scope = \"titles\" keeps page text on this machine, and [providers.\(provider.name)] is not on it")
        }
        guard let embedder = try context.conversation(store).embedder else { throw ExitCode(ExitStatus.unavailable) }
        let made = try await Self.waiting(context) { try await PageMeanings(store: store, embedder: embedder).catchUp() }
        if context.json {
            try Output.json(.object([("kind", .string("embeddings")), ("model", .string(embedder.model)), ("made", .int(Int64(made))),
                                     ("pages", .int(Int64(try store.vectorCount(model: embedder.model))))]))
        } else {
            try Output.line(Phrase.pagesEmbedded(made, model: embedder.model).text(context.language))
        }
    }

    /// `--reflect`: the days (the last 7, 30 or 365 up to --to or today; a month or year
    /// given alone to --from, all of it), then the reflection, printed like a saved page.
    private func writeReflection(_ period: String, context: CommandContext, store: DiaryStore) async throws {
        let spans = ["week": 7, "month": 30, "year": 365, "range": 0]
        guard let span = spans[period], id == nil else { throw InputError.usage(.badOption(detail: "--reflect \(period)")) }
        if period == "range" && from == nil { throw InputError.usage(.badOption(detail: "--reflect range (with --from)")) }
        var days = FindRequest()
        if let from, to == nil { days.on = from } else { days.from = from; days.to = to }
        let chosen = try Finder(store: store).filter(days)
        let today = Timestamps.localDate(Date(), zone: .current)
        let last = chosen?.toDay.map { min($0, today) } ?? today
        let first = chosen?.fromDay ?? Timestamps.parse(last, zone: TimeZone(identifier: "UTC")!)
            .map { Timestamps.localDate($0.addingTimeInterval(-Double(span - 1) * 86_400), zone: TimeZone(identifier: "UTC")!) } ?? last
        let persona = try context.persona(flag: persona, entryPersona: nil, store: store)
        let conversation = try context.conversation(store, providerFlag: provider)
        let saved = try await Self.waiting(context) { try await conversation.reflect(period: period, from: first, to: last, persona: persona) }
        saved.notices.forEach(context.say)
        try Self.printSaved((saved.entry, []), context: context)
    }

    /// Writes one page; a failure is reported as the seed's 「總結/標籤生成失敗…」 (exit 75).
    /// On a terminal 「正在等回覆…」 shows while it is slow, and Ctrl-C cancels it.
    /// Returns the saved entry and the lines suggested for memory.md.
    static func writePage(entryId: String, persona: Persona, context: CommandContext, conversation: Conversation) async throws
        -> (entry: Entry, memorySuggestions: [String]) {
        let day = Timestamps.localDate(Date(), zone: .current)
        let saved = try await waiting(context) { try await conversation.writePage(entryId: entryId, persona: persona, usageDay: day) }
        saved.notices.forEach(context.say)
        return (saved.entry, saved.memorySuggestions)
    }

    /// Runs the companion's work; on a terminal 「正在等回覆…」 shows while it is slow.
    private static func waiting<T: Sendable>(_ context: CommandContext, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        let waiting = context.stdoutIsTerminal && !context.quiet ? Phrase.waitingForReply.text(context.language) : nil
        return try await LiveReply(prefix: "", waiting: waiting).run { _ in try await work() }
    }

    /// The saved page as the person reads it (with the memory.md suggestions after it) or as JSON.
    static func printSaved(_ saved: (entry: Entry, memorySuggestions: [String]), context: CommandContext) throws {
        if context.json {
            let extra: [(String, JSON)] = saved.memorySuggestions.isEmpty ? [] : [("memory_suggestions", .array(saved.memorySuggestions.map(JSON.string)))]
            try Output.json(Rendering.entryJSON(saved.entry, paths: context.paths, adding: extra))
        } else {
            var text = Rendering.entryPage(saved.entry, language: context.language, paths: context.paths)
            if !saved.memorySuggestions.isEmpty {
                text += "\n\n" + Phrase.memorySuggested.text(context.language) + "\n" + saved.memorySuggestions.map { "- " + $0 }.joined(separator: "\n")
            }
            try Output.line(text)
        }
    }

    /// Everything but writing a page: edits, star, trash, order, tag renames.
    private func changeByHand(context: CommandContext, store: DiaryStore) throws {
        if !renameTag.isEmpty {
            guard renameTag.count == 2, let old = TagName.normalize(renameTag[0]), let new = TagName.normalize(renameTag[1]) else {
                throw InputError.usage(.badOption(detail: "--rename-tag " + renameTag.joined(separator: " ")))
            }
            let count = try store.tags.rename(old, to: new)
            if context.json {
                try Output.json(.object([("kind", .string("tag_renamed")), ("from", .string(old)), ("to", .string(new)),
                                         ("pages", .int(Int64(count)))]))
            }
            return context.say(.tagRenamed(from: old, to: new, count: count))
        }
        if tidyTags { return try PageEditing.tidyTags(dryRun: dryRun, undo: undo, context: context, store: store) }
        if purge {
            if all { return try PageEditing.purge(ids: nil, context: context, store: store) }
            let named = try id.map { [$0] } ?? EntrySelection.idsFromStandardInput(isTerminal: context.stdinIsTerminal)
            if named.isEmpty {
                // Like `xargs rm` on empty input: a pipe that names nothing must not empty the
                // trash. Off a terminal the whole trash takes --all; on one, a yes.
                guard context.stdinIsTerminal else { throw InputError.usage(.purgeNamesNothing) }
                if context.askYesNo(.purgeQuestion) != true { return }
                return try PageEditing.purge(ids: nil, context: context, store: store)
            }
            return try PageEditing.purge(ids: try named.map(store.trash.resolve), context: context, store: store)
        }
        if undelete {
            let ids = try store.trash.takeOut(ids: try EntrySelection.named(argument: id, context: context, resolve: store.trash.resolve))
            try PageEditing.printEntries(ids, context: context, store: store)
            return context.say(.untrashed(count: ids.count))
        }
        let ids = try EntrySelection.named(argument: id, context: context, resolve: store.resolve)
        if edit {
            guard ids.count == 1 else { throw InputError.usage(.tooManyEntries) }
            return try PageEditing.editInEditor(id: ids[0], context: context, store: store)
        }
        if move {
            guard ids.count == 1, let target = before ?? after else { throw InputError.usage(.tooManyEntries) }
            try store.move(id: ids[0], relativeTo: try store.resolve(reference: target), before: before != nil)
            try PageEditing.printEntries(ids, context: context, store: store)
            return context.say(.moved)
        }
        if star || unstar {
            let changed = try store.setStarred(ids: ids, star)
            try PageEditing.printEntries(changed, context: context, store: store)
            return context.say(.starred(count: changed.count, on: star))
        }
        if delete {
            let moved = try store.trash.put(ids: ids)
            try PageEditing.printEntries(moved, context: context, store: store)
            return context.say(.trashed(count: moved.count, days: context.config.trashKeepDays))
        }
        var change = EntryEdit()
        change.title = title
        if let long = addTag.first(where: TagName.isTooLong) { throw StoreError.tagTooLong(String(long.prefix(TagName.longest))) }
        change.addTags = addTag.compactMap(TagName.normalize)
        change.removeTags = removeTag.compactMap(TagName.normalize)
        change.place = place
        if let at {
            let current = try store.entry(id: ids[0])
            (change.occurredAt, change.timeZone) = try PageEditing.when(at, zone: current.zone)
        }
        try PageEditing.applyEdit(change, to: ids, context: context, store: store)
    }

    /// Drops a draft and the media files nothing else uses.
    static func discard(entryId: String, context: CommandContext, store: DiaryStore) throws {
        for item in try store.discard(entryId: entryId) {
            MediaIntake.remove(item, from: context.paths.media)
        }
        context.say(.draftDiscarded)
    }
}
