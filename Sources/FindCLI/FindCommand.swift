import ArgumentParser
import DiaryCLI
import DiaryKit
import Foundation

/// `diary-find`: search and browse pages by words, tags and dates (F-006 … F-009).
package struct FindCommand: LocalDiaryCommand {
    package static let configuration = CommandConfiguration(
        commandName: "diary-find",
        abstract: "Find diary pages by keyword, tag and date.",
        discussion: """
            Searches titles, pages, notes, tags and the chat; with --tag the search stays inside \
            that tag. Chinese words of any length match, and Traditional and Simplified find each \
            other. Your own words rank above the companion's; without words, newest first. Exit \
            status 1 when nothing is found, like grep. On a terminal at most 20 pages are shown \
            unless --limit says otherwise, and the next page is one --after away; piped output \
            lists them all as it reads them (a few hundred at a time), each JSON line with its own cursor.
            """,
        version: DiaryVersion.current)

    @OptionGroup package var global: GlobalOptions

    @Flag(name: .customLong("text"), help: "Print readable text, even when piped (same as --readable).")
    var textOutput = false

    @Argument(help: ArgumentHelp("Words to look for (all must match).", valueName: "keyword"))
    var keywords: [String] = []

    @Option(name: .long, help: ArgumentHelp("Only pages with this tag (repeat: all of them).", valueName: "tag"))
    var tag: [String] = []

    @Option(name: .customLong("any-tag"), help: ArgumentHelp("Only pages with at least one of these tags (repeatable).", valueName: "tag"))
    var anyTag: [String] = []

    @Option(name: .customLong("not-tag"), help: ArgumentHelp("Leave out pages with this tag (repeatable).", valueName: "tag"))
    var notTag: [String] = []

    @Option(name: .long, help: ArgumentHelp("Only this day, month or year (2026-11-21, 2026-11, 2026, today, yesterday).", valueName: "date"))
    var on: String?

    @Option(name: .long, help: ArgumentHelp("From this day, month or year on.", valueName: "date"))
    var from: String?

    @Option(name: .long, help: ArgumentHelp("Up to and including this day, month or year.", valueName: "date"))
    var to: String?

    @Flag(name: .customLong("today-in-history"), help: "Pages from this day of the year in earlier years.")
    var todayInHistory = false

    @Option(name: .long, help: ArgumentHelp("Only entries in this status: draft, chatting, saved, summary_failed (repeatable).", valueName: "status"))
    var status: [String] = []

    @Option(name: .long, help: ArgumentHelp("""
        Order: relevance (your own words first; the default with words), occurred (when it happened; \
        the default otherwise), created, updated, title, manual (your own order: diary-save --move).
        """, valueName: "order"))
    var sort: String?

    @Option(name: .long, help: ArgumentHelp("Show at most this many (default 20 on a terminal, all when piped).", valueName: "n"))
    var limit: Int?

    @Option(name: .long, help: ArgumentHelp("Go on after this cursor, printed with the previous page.", valueName: "cursor"))
    var after: String?

    @Flag(name: .long, help: "Print only how many pages match.")
    var count = false

    @Flag(name: .long, help: "List the tag tiles: 全部 (All) first, then tags by recent use, with counts.")
    var tags = false

    @Flag(name: .long, help: ArgumentHelp("Draw a month (the first argument, YYYY-MM, or this month) with the pages per day."))
    var calendar = false

    @Option(name: .long, help: ArgumentHelp("Show one entry in full, with its chat.", valueName: "id"))
    var show: String?

    @Flag(name: .long, help: "Include each entry's chat messages.")
    var full = false

    @Flag(name: .long, help: "Feelings over time: the pages per feeling tag in each period (a chart on a terminal).")
    var trend = false

    @Option(name: .long, help: ArgumentHelp("With --trend: day, week or month (default month).", valueName: "period"))
    var by: String?

    @Option(name: .long, help: ArgumentHelp("The earlier pages the companion would recall for this entry, and the words they share.", valueName: "id"))
    var related: String?

    @Flag(name: .long, help: "With --show: every earlier version of the page, newest first.")
    var history = false

    @Flag(name: .long, help: "Only reflections (diary-save --reflect).")
    var reflections = false

    @Flag(name: .long, help: "Only starred pages.")
    var starred = false

    @Flag(name: .long, help: "List the pages in the trash (diary-save --undelete brings one back).")
    var trash = false

    @Option(name: .long, help: ArgumentHelp("Colour the matched words: auto (on a terminal, unless NO_COLOR), always, never.", valueName: "when"))
    var color: String = "auto"

    package init() {}

    package var forcesText: Bool { textOutput }

    package func execute(_ context: CommandContext) throws {
        if let limit, limit < 1 { throw InputError.usage(.badOption(detail: "--limit \(limit)")) }
        let statuses = try status.map { text -> EntryStatus in
            guard let value = EntryStatus(rawValue: text) else { throw InputError.usage(.badOption(detail: "--status \(text)")) }
            return value
        }
        let order = try sort.map { text -> EntryOrder in
            guard let value = EntryOrder(rawValue: text) else { throw InputError.usage(.badOption(detail: "--sort \(text)")) }
            return value
        }
        guard let coloring = Coloring(rawValue: color) else { throw InputError.usage(.badOption(detail: "--color \(color)")) }
        if history && show == nil { throw InputError.usage(.badOption(detail: "--history (with --show ID)")) }
        if by != nil && !trend { throw InputError.usage(.badOption(detail: "--by (with --trend)")) }
        let period = try by.map { text -> TrendPeriod in
            guard let value = TrendPeriod(rawValue: text) else { throw InputError.usage(.badOption(detail: "--by \(text)")) }
            return value
        } ?? .month
        // Pages in the trash have left the word index; they are listed, not searched.
        if trash && !keywords.isEmpty { throw InputError.usage(.badOption(detail: "--trash " + keywords.joined(separator: " "))) }
        let store = try context.openStore()
        if let show { return try history ? showHistory(show, context: context, store: store) : showEntry(show, context: context, store: store) }
        if let related { return try showRelated(related, context: context, store: store) }
        let finder = Finder(store: store)
        if tags { return try listTags(finder, context: context) }

        var words = keywords
        var month: String?
        if calendar, let first = words.first, first.wholeMatch(of: /\d{4}-\d{1,2}/) != nil {
            month = first
            words.removeFirst()
        }
        var request = FindRequest()
        request.keywords = words.isEmpty ? nil : words.joined(separator: " ")
        request.tags = tag
        request.anyTags = anyTag
        request.notTags = notTag
        request.on = on
        request.from = from
        request.to = to
        request.todayInHistory = todayInHistory
        request.statuses = statuses
        request.starredOnly = starred
        request.reflectionsOnly = reflections
        request.inTrash = trash
        request.order = order
        request.after = after
        request.limit = limit ?? (context.json ? nil : 20)
        request.includeMessages = full
        if calendar { return try drawCalendar(finder, month: month, request: request, context: context) }
        if trend { return try drawTrend(finder, period: period, request: request, context: context) }
        if count {
            let total = try finder.count(request)
            try Output.line(String(total))
            if total == 0 { throw ExitCode(ExitStatus.nothingFound) }
            return
        }

        let colored = switch coloring {
        case .always: true
        case .never: false
        case .auto: context.stdoutIsTerminal && context.environment["NO_COLOR"] == nil
        }
        // Page by page: a piped search of the whole diary prints as it reads.
        if request.limit == nil { try store.readWithoutMemoryMap() }
        var found = false
        let last = try finder.forEachHit(request) { hit, cursor in
            found = true
            if context.json {
                try Output.json(Rendering.hitJSON(hit, cursor: cursor, paths: context.paths))
            } else if full {
                try Output.line(Rendering.entryPage(hit.entry, language: context.language, paths: context.paths) + "\n")
            } else {
                try Output.line(Rendering.entryRow(hit.entry, language: context.language,
                                                   snippet: hit.snippet.map { Rendering.snippetText($0, color: colored) }),
                                highlight: colored)
            }
        }
        if let reason = last.emptyReason {
            context.say(reason.phrase)
            throw ExitCode(ExitStatus.nothingFound)
        }
        if !found { throw ExitCode(ExitStatus.nothingFound) }
        if !context.json, last.more, let cursor = last.hits.last?.cursor {
            context.say(.moreResults(cursor: cursor))
        }
    }

    private func drawTrend(_ finder: Finder, period: TrendPeriod, request: FindRequest, context: CommandContext) throws {
        let points = try finder.trend(by: period, request, language: context.language)
        if context.json {
            for point in points {
                try Output.json(.object([
                    ("kind", .string("trend")), ("period", .string(point.period)), ("from", .string(point.from)), ("to", .string(point.to)),
                    ("feelings", .object(point.feelings.map { ($0.feeling, .int(Int64($0.count))) })), ("total", .int(Int64(point.total))),
                ]))
            }
        } else if !points.isEmpty {
            let colored = context.stdoutIsTerminal && context.environment["NO_COLOR"] == nil
            try Output.line(Rendering.trendChart(points, color: colored))
        }
        if points.allSatisfy({ $0.total == 0 }) {
            context.say(.noFeelings)
            throw ExitCode(ExitStatus.nothingFound)
        }
    }

    private func drawCalendar(_ finder: Finder, month: String?, request: FindRequest, context: CommandContext) throws {
        let counts = try finder.calendar(month: month, request)
        if context.json {
            for (index, day) in counts.days.enumerated() {
                try Output.json(Rendering.dayJSON(day, weekday: (counts.firstWeekday + index) % 7 + 1))
            }
        } else {
            try Output.line(Rendering.calendar(counts, language: context.language))
        }
    }

    /// The id a reference names; when none, it says so and ends with status 1.
    private func resolved(_ reference: String, context: CommandContext, store: DiaryStore) throws -> String {
        do {
            return try store.resolve(reference: reference)
        } catch StoreError.entryNotFound {
            context.say(.entryNotFound(reference: reference))
            throw ExitCode(ExitStatus.nothingFound)
        }
    }

    private func showEntry(_ reference: String, context: CommandContext, store: DiaryStore) throws {
        let entry = try store.entry(id: try resolved(reference, context: context, store: store), includeMessages: true)
        if context.json {
            try Output.json(Rendering.entryJSON(entry, paths: context.paths))
        } else {
            try Output.line(Rendering.entryPage(entry, language: context.language, paths: context.paths))
        }
    }

    private func showRelated(_ reference: String, context: CommandContext, store: DiaryStore) throws {
        let entry = try store.entry(id: try resolved(reference, context: context, store: store), includeMessages: true)
        let recall = Recall(store: store, limit: limit ?? 3)
        // By meaning too when the page has a vector from the configured embedder (made when
        // it was saved); finding needs no network, so a page without one is found by words.
        let meaning = try context.config.embeddings.flatMap { try recall.meaning(ofPage: entry.id, model: $0.model) }
        let recalled = try recall.recollections(for: Recall.Moment(entry), meaning: meaning)
        for recollection in recalled {
            let page = try store.entry(id: recollection.entryId)
            if context.json {
                try Output.json(Rendering.entryJSON(page, paths: context.paths, adding: [("related", .object([
                    ("matched", .array(recollection.matched.map(JSON.string))), ("same_day", .bool(recollection.sameDay)),
                    ("score", .double((recollection.score * 1000).rounded() / 1000)), ("meaning", .optional(recollection.meaning)),
                ]))]))
            } else {
                try Output.line(Rendering.entryRow(page, language: context.language,
                                                   snippet: Phrase.recalledBecause(recollection).text(context.language)))
            }
        }
        if recalled.isEmpty {
            context.say(.nothingRelated)
            throw ExitCode(ExitStatus.nothingFound)
        }
    }

    private func showHistory(_ reference: String, context: CommandContext, store: DiaryStore) throws {
        let id = try resolved(reference, context: context, store: store)
        let versions = try store.history.versions(of: id)
        for version in versions {
            if context.json {
                try Output.json(Rendering.versionJSON(version, entryId: id))
            } else {
                try Output.line(Rendering.versionText(version, language: context.language) + "\n")
            }
        }
        if versions.isEmpty {
            context.say(.noHistory)
            throw ExitCode(ExitStatus.nothingFound)
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

/// When `--color` colours the matched words.
private enum Coloring: String {
    /// On a terminal, unless NO_COLOR is set.
    case auto
    case always
    case never
}
