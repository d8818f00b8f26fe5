import ArgumentParser
import DiaryArchive
import DiaryCLI
import DiaryKit
import SyncSession
import DiarySync
import Foundation

/// `diary-sync backup`: the whole diary as one archive.
struct BackupCommand: DiaryCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Write the whole diary (drafts, deletions, settings, conflicts, media) as one archive.",
        discussion: """
            The archive is an ordinary tar (or tar.gz, tar.zst, tar.xz, zip) that tar lists and unpacks: \
            manifest.json, entries.jsonl, diary.jsonl, pages/*.md, media/, thumbs/. With no -o it goes to \
            standard output, which must not be a terminal. Restore it with `diary-sync restore`.
            """)

    @OptionGroup package var global: GlobalOptions
    @OptionGroup var output: ArchiveOutputOptions

    init() {}

    func execute(_ context: CommandContext) async throws {
        let store = try context.openStore()
        try store.readWithoutMemoryMap()
        try ArchiveRunner.write(context: context, store: store, options: output, scope: .backup)
    }
}

/// `diary-sync export`: chosen entries as an archive, a Day One zip or an HTML site.
struct ExportCommand: DiaryCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export chosen entries as an archive, a Day One zip, or a small HTML site.",
        discussion: """
            Entries are chosen by id, by JSON Lines on standard input (what diary-find prints), or by \
            --tag/--from/--to/--on; with none of these, every entry. Formats: tar, tar.gz, tar.zst, \
            tar.xz, zip (from the -o name, else tar), dayone (a Day One JSON zip), html (a folder: -o site/).
            """)

    @OptionGroup package var global: GlobalOptions
    @OptionGroup var output: ArchiveOutputOptions

    @Option(name: .customLong("tag"), help: ArgumentHelp("Only entries with this tag (repeatable: all of them).", valueName: "tag"))
    var tags: [String] = []

    @Option(name: .long, help: ArgumentHelp("Only entries of this day, month or year.", valueName: "date"))
    var on: String?

    @Option(name: .long, help: ArgumentHelp("Only entries from this day on.", valueName: "date"))
    var from: String?

    @Option(name: .long, help: ArgumentHelp("Only entries up to this day.", valueName: "date"))
    var to: String?

    @Argument(help: ArgumentHelp("Entry ids (or unique prefixes).", valueName: "id"))
    var ids: [String] = []

    init() {}

    func execute(_ context: CommandContext) async throws {
        let store = try context.openStore()
        try store.readWithoutMemoryMap()
        var chosen = try ids.map { try store.resolve(reference: $0) }
        let filtered = !tags.isEmpty || on != nil || from != nil || to != nil
        if chosen.isEmpty && !filtered {
            chosen = try EntrySelection.idsFromStandardInput(isTerminal: context.stdinIsTerminal).map { try store.resolve(reference: $0) }
        }
        if chosen.isEmpty {
            var request = FindRequest()
            request.tags = tags
            request.on = on
            request.from = from
            request.to = to
            request.order = .occurred
            // Ids only, page by page: the hits of a whole diary would not fit in flat memory.
            _ = try Finder(store: store).forEachHit(request) { hit, _ in chosen.append(hit.entry.id) }
            chosen.reverse()
            if chosen.isEmpty && filtered { throw InputError.usage(.nothingToExport) }
        }
        try ArchiveRunner.write(context: context, store: store, options: output, scope: .entries(chosen))
    }
}

/// `diary-sync restore`: a backup (or export) merged back into the diary.
struct RestoreCommand: DiaryCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Merge a backup back into the diary: verified first, all or nothing, safe to repeat.",
        discussion: """
            Every member is checked against the manifest (size and SHA-256) before the diary is touched; \
            unsafe archives (absolute paths, .., links, devices, bombs) are refused with exit 65. Entries \
            merge by id: the newer clock wins and the other version is kept as a conflict. Reads standard \
            input when the file is - or missing and input is piped.
            """)

    @OptionGroup package var global: GlobalOptions

    @Argument(help: ArgumentHelp("The archive (tar, tar.gz, tar.zst, tar.xz, zip), or - for standard input.", valueName: "file"))
    var file: String?

    init() {}

    func execute(_ context: CommandContext) async throws {
        try ArchiveRunner.read(context: context, file: file, mode: .restore)
    }
}

/// `diary-sync import`: entries from an archive or a Day One export, merged.
struct ImportCommand: DiaryCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Merge the entries of an export, a Day One JSON zip or a jrnl JSON export into the diary.",
        discussion: """
            Like restore, but only entries are taken (not settings). Day One exports (a zip with \
            Journal.json and photos/) become saved pages with their photos, tags, place and weather. \
            jrnl's JSON export (jrnl --export json) becomes saved pages with their titles, tags and \
            stars; jrnl keeps no time zone, so its times are read in --zone. Importing the same file \
            twice changes nothing.
            """)

    @OptionGroup package var global: GlobalOptions

    @Option(name: .long, help: ArgumentHelp("The time zone of a jrnl export's times (default: this machine's, TZ).", valueName: "zone"))
    var zone: String?

    @Argument(help: ArgumentHelp("The archive, Day One zip or jrnl JSON, or - for standard input.", valueName: "file"))
    var file: String?

    init() {}

    func execute(_ context: CommandContext) async throws {
        var timeZone = TimeZone.current
        if let zone {
            guard let named = TimeZone(identifier: zone) else { throw InputError.usage(.badOption(detail: "--zone \(zone)")) }
            timeZone = named
        }
        try ArchiveRunner.read(context: context, file: file, mode: .importEntries, zone: timeZone)
    }
}

/// Where an archive goes and in which format.
struct ArchiveOutputOptions: ParsableArguments {
    @Option(name: [.short, .long], help: ArgumentHelp("Write to this file (or folder, for html) instead of standard output.", valueName: "path"))
    var output: String?

    @Option(name: .long, help: ArgumentHelp("tar, tar.gz, tar.zst, tar.xz, zip, dayone, jrnl or html (default: from the -o name, else tar).",
                                            valueName: "format"))
    var format: String?
}

/// The shared work of the archive commands: picking formats, files and progress.
enum ArchiveRunner {
    enum Target: Equatable { case archive(ArchiveFormat), dayOne, jrnl, html }

    static func target(_ options: ArchiveOutputOptions) throws -> Target {
        if let name = options.format?.lowercased() {
            switch name {
            case "dayone", "day-one": return .dayOne
            case "jrnl": return .jrnl
            case "html": return .html
            default:
                guard let format = ArchiveFormat(name: name) else { throw InputError.usage(.unknownFormat(name: name)) }
                return .archive(format)
            }
        }
        return .archive(options.output.flatMap(ArchiveFormat.from(fileName:)) ?? .tar)
    }

    static func write(context: CommandContext, store: DiaryStore, options: ArchiveOutputOptions, scope: ArchiveExport.Scope) throws {
        let target = try target(options)
        // The Day One, jrnl and HTML shapes hold live entries only.
        func liveIds() throws -> [String] {
            switch scope {
            case .backup: return try store.entryIds(includingDeleted: false)
            case let .entries(ids): return ids
            }
        }
        func liveRecords() throws -> [EntryRecord] { try store.entryRecords(ids: liveIds()) }
        // 500 records at a time: memory stays flat however large the diary.
        func eachBatch(_ body: ([EntryRecord]) throws -> Void) throws {
            let ids = try liveIds()
            for start in stride(from: 0, to: ids.count, by: 500) {
                try body(try store.entryRecords(ids: Array(ids[start..<min(ids.count, start + 500)])))
            }
        }
        if target == .html {
            guard let folder = options.output else { throw InputError.usage(.htmlNeedsFolder) }
            var records = try liveRecords()
            if MediaPreviews.ensure(records.flatMap { $0.liveMedia.map(\.item) }, store: store) > 0 { records = try liveRecords() }
            let site = try HTMLSite.write(records: records, paths: store.paths, to: URL(fileURLWithPath: folder),
                                          language: context.language, now: Date())
            try report(context, entries: site.pages, media: site.mediaFiles, bytes: nil, path: folder)
            return
        }
        let path = options.output.flatMap { $0 == "-" ? nil : $0 }
        // jrnl's journal is text, fit for a terminal; archives are not.
        if path == nil && context.stdoutIsTerminal && target != .jrnl { throw InputError.usage(.archiveOutputIsTerminal) }
        // Written beside the destination and renamed at the end: a failed backup never
        // replaces a good one, and a half-written file never looks finished.
        let partial = path.map { $0 + ".partial" }
        let descriptor = partial.map { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) } ?? STDOUT_FILENO
        guard descriptor >= 0 else { throw ArchiveError.cannotCreate(path: path ?? "-") }
        var finished = false
        defer {
            if let partial {
                close(descriptor)
                if !finished { unlink(partial) }
            }
        }
        let meter = ProgressMeter(context: context)
        defer { meter.finish() }
        let entries: Int, media: Int, bytes: Int64
        if case let .archive(format) = target {
            let summary = try ArchiveExport.write(store: store, scope: scope, format: format, to: descriptor,
                                                  language: context.language, progress: meter.update)
            (entries, media, bytes) = (summary.entries, summary.media, summary.archiveBytes)
        } else if target == .jrnl {
            var written: (entries: Int, bytes: Int64) = (0, 0)
            try eachBatch { batch in
                let more = try Jrnl.write(records: batch, to: descriptor)
                written = (written.entries + more.entries, written.bytes + more.bytes)
            }
            (entries, media, bytes) = (written.entries, 0, written.bytes)
        } else {
            (entries, media, bytes) = try DayOne.write(batches: eachBatch, paths: store.paths, to: descriptor)
        }
        if let path, let partial {
            guard fsync(descriptor) == 0, rename(partial, path) == 0 else { throw ArchiveError.writeFailed(String(cString: strerror(errno))) }
            finished = true
            meter.finish()
            try report(context, entries: entries, media: media, bytes: bytes, path: path)
        }
    }

    private static func report(_ context: CommandContext, entries: Int, media: Int, bytes: Int64?, path: String) throws {
        if context.json {
            try Output.json(.object([("kind", .string("summary")), ("path", .string(path)), ("entries", .int(Int64(entries))),
                                     ("media", .int(Int64(media))), ("bytes", bytes.map { .int($0) } ?? .null)]))
        } else {
            try Output.line(Phrase.backupWritten(entries: entries, media: media, size: ByteCount.text(bytes ?? 0), path: path)
                .text(context.language))
        }
    }

    static func read(context: CommandContext, file: String?, mode: ArchiveImport.Mode, zone: TimeZone = .current) throws {
        let descriptor: Int32
        var total: Int64?
        if let file, file != "-" {
            descriptor = open(file, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw ArchiveError.cannotOpen(path: file) }
            var info = stat()
            if fstat(descriptor, &info) == 0 { total = Int64(info.st_size) }
        } else {
            guard !context.stdinIsTerminal else { throw InputError.usage(.badOption(detail: "FILE (or pipe the archive in)")) }
            descriptor = STDIN_FILENO
        }
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }
        let store = try context.openStore()
        let meter = ProgressMeter(context: context)
        let summary: ImportSummary
        do {
            defer { meter.finish() }
            summary = try ArchiveImport.run(store: store, from: descriptor, mode: mode, totalBytes: total, zone: zone, progress: meter.update)
        }
        let merge = summary.merge
        for path in summary.mismatchedFiles { context.say(.dayOneFileMismatch(path: path)) }
        for path in summary.leftOutFiles { context.say(.dayOneFileLeftOut(path: path)) }
        for uuid in summary.caseTwins { context.say(.dayOneCaseTwin(uuid: uuid)) }
        if context.json {
            try Output.json(.object([
                ("kind", .string("summary")), ("source", .string(summary.source)), ("added", .int(Int64(merge.added))),
                ("updated", .int(Int64(merge.updated))), ("unchanged", .int(Int64(merge.unchanged))),
                ("conflicts", .int(Int64(merge.conflictsKept))), ("messages_added", .int(Int64(merge.messagesAdded))),
                ("settings_changed", .int(Int64(merge.settingsChanged))), ("files_added", .int(Int64(summary.filesAdded))),
                ("mismatched_files", .array(summary.mismatchedFiles.map(JSON.string))),
                ("left_out_files", .array(summary.leftOutFiles.map(JSON.string))),
                ("case_twins", .array(summary.caseTwins.map(JSON.string))),
            ]))
        } else {
            try Output.line(Phrase.restoreDone(added: merge.added, updated: merge.updated, unchanged: merge.unchanged,
                                               conflicts: merge.conflictsKept, files: summary.filesAdded).text(context.language))
        }
    }
}

/// A progress line on stderr (bytes, files, rate, time left), redrawn at most five times a
/// second, and only when stderr is a terminal: piped or redirected, it says nothing.
final class ProgressMeter {
    private let language: Language
    private let enabled: Bool
    private let started = Date()
    private var lastDrawn = Date.distantPast
    private var drawn = false

    init(context: CommandContext) {
        language = context.language
        enabled = !context.quiet && isatty(STDERR_FILENO) == 1
    }

    func update(_ progress: ArchiveProgress) {
        guard enabled else { return }
        let now = Date()
        guard now.timeIntervalSince(lastDrawn) >= 0.2 else { return }
        lastDrawn = now
        let elapsed = max(now.timeIntervalSince(started), 0.001)
        let rate = Double(progress.bytesDone) / elapsed
        var eta: String?
        if let total = progress.bytesTotal, rate > 0, total > progress.bytesDone, elapsed > 1 {
            let seconds = Int(Double(total - progress.bytesDone) / rate)
            eta = seconds >= 60 ? "\(seconds / 60)m\(seconds % 60)s" : "\(seconds)s"
        }
        let line = Phrase.progressLine(done: ByteCount.text(progress.bytesDone), total: progress.bytesTotal.map(ByteCount.text),
                                       files: progress.filesDone, rate: ByteCount.text(Int64(rate)), eta: eta).text(language)
        try? Output.standardErrorFragment(line, control: "\r\u{1B}[2K")
        drawn = true
    }

    /// Erases the line.
    func finish() {
        guard drawn else { return }
        drawn = false
        try? Output.standardErrorFragment("", control: "\r\u{1B}[2K")
    }
}
