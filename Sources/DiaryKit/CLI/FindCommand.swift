import ArgumentParser
import Foundation

/// `diary-find`: search and browse pages by words, tags and dates (F-006 … F-009).
public struct FindCommand: DiaryCommand {
    public static let configuration = CommandConfiguration(
        commandName: "diary-find",
        abstract: "Find diary pages by keyword, tag and date.",
        discussion: """
            Searches titles, pages, notes, tags and the chat; with --tag the search stays inside \
            that tag. Newest first. Exit status 1 when nothing is found, like grep. On a terminal \
            at most 20 pages are shown unless --limit says otherwise; piped output lists them all.
            """)

    @OptionGroup var global: GlobalOptions

    @Flag(name: .customLong("text"), help: "Print readable text, even when piped (same as --readable).")
    var textOutput = false

    @Argument(help: ArgumentHelp("Words to look for (all must match).", valueName: "keyword"))
    var keywords: [String] = []

    @Option(name: .long, help: ArgumentHelp("Only pages with this tag (repeat: all of them).", valueName: "tag"))
    var tag: [String] = []

    @Option(name: .long, help: ArgumentHelp("Only this day, month or year (2026-11-21, 2026-11, 2026, today, yesterday).", valueName: "date"))
    var on: String?

    @Option(name: .long, help: ArgumentHelp("From this day, month or year on.", valueName: "date"))
    var from: String?

    @Option(name: .long, help: ArgumentHelp("Up to and including this day, month or year.", valueName: "date"))
    var to: String?

    @Option(name: .long, help: ArgumentHelp("Only entries in this status: draft, chatting, saved, summary_failed (repeatable).", valueName: "status"))
    var status: [String] = []

    @Option(name: .long, help: ArgumentHelp("Show at most this many.", valueName: "n"))
    var limit: Int?

    @Option(name: .long, help: ArgumentHelp("Skip this many first.", valueName: "n"))
    var offset: Int = 0

    @Flag(name: .long, help: "List the tag tiles: 全部 (All) first, then tags by recent use, with counts.")
    var tags = false

    @Option(name: .long, help: ArgumentHelp("Show one entry in full, with its chat.", valueName: "id"))
    var show: String?

    @Flag(name: .long, help: "Include each entry's chat messages.")
    var full = false

    public init() {}

    var forcesText: Bool { textOutput }

    public mutating func run() async throws { try await perform() }

    func execute(_ context: CommandContext) async throws {
        if let limit, limit < 1 { throw InputError.usage(.badOption(detail: "--limit \(limit)")) }
        if offset < 0 { throw InputError.usage(.badOption(detail: "--offset \(offset)")) }
        let statuses = try status.map { text -> EntryStatus in
            guard let value = EntryStatus(rawValue: text) else { throw InputError.usage(.badOption(detail: "--status \(text)")) }
            return value
        }
        let store = try context.openStore()
        if let show { return try showEntry(show, context: context, store: store) }
        let finder = Finder(store: store)
        if tags { return try listTags(finder, context: context) }

        var request = FindRequest()
        request.keywords = keywords.isEmpty ? nil : keywords.joined(separator: " ")
        request.tags = tag
        request.on = on
        request.from = from
        request.to = to
        request.statuses = statuses
        request.limit = limit ?? (context.json ? nil : 20)
        request.offset = offset
        request.includeMessages = full
        let result = try finder.find(request)
        if let reason = result.emptyReason {
            context.say(reason.phrase)
            throw ExitCode(ExitStatus.nothingFound)
        }
        for entry in result.entries {
            if context.json {
                try Output.json(Rendering.entryJSON(entry, paths: context.paths))
            } else if full {
                try Output.line(Rendering.entryPage(entry, language: context.language, paths: context.paths) + "\n")
            } else {
                try Output.line(Rendering.entryRow(entry, language: context.language))
            }
        }
        let shown = offset + result.entries.count
        if !context.json && shown < result.total {
            context.say(.moreResults(shown: result.entries.count, total: result.total, nextOffset: shown))
        }
    }

    private func showEntry(_ reference: String, context: CommandContext, store: DiaryStore) throws {
        let entry: Entry
        do {
            entry = try store.entry(id: try store.resolve(reference: reference), includeMessages: true)
        } catch StoreError.entryNotFound {
            context.say(.entryNotFound(reference: reference))
            throw ExitCode(ExitStatus.nothingFound)
        }
        if context.json {
            try Output.json(Rendering.entryJSON(entry, paths: context.paths))
        } else {
            try Output.line(Rendering.entryPage(entry, language: context.language, paths: context.paths))
        }
    }

    private func listTags(_ finder: Finder, context: CommandContext) throws {
        let tiles = try finder.tagTiles()
        let allName = Phrase.allTag.text(context.language)
        if context.json {
            try Output.json(Rendering.tagJSON(name: allName, count: tiles.all, lastUsedAt: nil, all: true))
            for tag in tiles.tags {
                try Output.json(Rendering.tagJSON(name: tag.name, count: tag.count, lastUsedAt: tag.lastUsedAt, all: false))
            }
        } else {
            let line = ([(allName, tiles.all)] + tiles.tags.map { ($0.name, $0.count) })
                .map { "[\($0.0) \($0.1)]" }.joined(separator: " ")
            try Output.line(line)
        }
        if tiles.all == 0 { context.say(.emptyDiary) }
    }
}
