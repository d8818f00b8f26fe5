import ArgumentParser
import DiaryCLI
import DiaryKit
import Foundation

/// What `diary-save` does by hand, without the companion: edit a page in the editor or by
/// flags, star it, move it to or from the trash, purge it, put it in the person's order,
/// rename a tag everywhere.
enum PageEditing {
    /// Opens the page in `$VISUAL`/`$EDITOR` (like `git commit`) and takes what was saved.
    /// The editor failing or the file left as it was changes nothing; a header that cannot
    /// be read keeps the typed text in a file whose path is reported.
    static func editInEditor(id: String, context: CommandContext, store: DiaryStore) throws {
        let entry = try store.entry(id: id)
        if entry.trashedAt != nil { throw StoreError.inTrash(id) }
        let folder = context.paths.home.appendingPathComponent("edits")
        _ = mkdir(folder.path, 0o700)
        let file = folder.appendingPathComponent("\(id.prefix(8))-\(Timestamps.millis(Date())).md")
        let original = EditablePage.render(entry, language: context.language)
        try Data(original.utf8).write(to: file)
        guard try runEditor(on: file, context: context), let data = FileManager.default.contents(atPath: file.path),
              data != Data(original.utf8) else {
            try? FileManager.default.removeItem(at: file)
            context.say(.pageUnchanged)
            return
        }
        let edit: EntryEdit
        do {
            // Text that is not UTF-8, or holds a NUL, is kept and named, never taken cut short.
            edit = try EditablePage.parse(try EditablePage.text(data), comparedWith: entry)
        } catch {
            throw EditingError.kept(error, path: file.path)
        }
        try? FileManager.default.removeItem(at: file)
        try applyEdit(edit, to: [id], context: context, store: store)
    }

    /// Runs the person's editor on the file; false when it exits with a failure.
    private static func runEditor(on file: URL, context: CommandContext) throws -> Bool {
        let editor = [context.environment["VISUAL"], context.environment["EDITOR"]].compactMap { $0 }.first { !$0.isEmpty } ?? "vi"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // Through the shell, as git does, so EDITOR may carry its own arguments ("code --wait").
        process.arguments = ["-c", "\(editor) \"$1\"", "sh", file.path]
        // In a pipeline stdin carries ids; the editor still needs the terminal.
        if !context.stdinIsTerminal, let tty = FileHandle(forReadingAtPath: "/dev/tty") { process.standardInput = tty }
        do { try process.run() } catch { throw EditingError.editorNotFound(editor) }
        process.waitUntilExit()
        if process.terminationStatus == 127 { throw EditingError.editorNotFound(editor) }
        return process.terminationStatus == 0
    }

    /// Applies one edit to every page given, in one transaction, and prints them.
    static func applyEdit(_ edit: EntryEdit, to ids: [String], context: CommandContext, store: DiaryStore) throws {
        let changed = try store.edit(ids: ids, edit)
        try printEntries(changed, context: context, store: store)
        context.say(changed.isEmpty ? .pageUnchanged : .pageEdited(count: changed.count))
    }

    static func printEntries(_ ids: [String], context: CommandContext, store: DiaryStore) throws {
        for id in ids {
            let entry = try store.entry(id: id)
            if context.json {
                try Output.json(Rendering.entryJSON(entry, paths: context.paths))
            } else {
                try Output.line(Rendering.entryRow(entry, language: context.language))
            }
        }
    }

    /// Purges pages from the trash and removes the files no page uses any more.
    static func purge(ids: [String]?, context: CommandContext, store: DiaryStore) throws {
        let result = try store.trash.purge(ids: ids)
        let files = MediaIntake.remove(result.unusedMedia, paths: context.paths)
        if context.json {
            try Output.json(.object([("kind", .string("purge")), ("pages", .int(Int64(result.purged.count))),
                                     ("files", .int(Int64(files)))]))
        }
        context.say(.purged(count: result.purged.count, files: files))
    }

    /// The tag clean-up: lists what would come off (`dryRun`), takes it off, or puts back
    /// what an earlier run took off (`undo`).
    static func tidyTags(dryRun: Bool, undo: Bool, context: CommandContext, store: DiaryStore) throws {
        if undo {
            let restored = try store.tags.restoreTidied()
            try printEntries(restored, context: context, store: store)
            return context.say(.tidiedTagsRestored(pages: restored.count))
        }
        let plan = try TagTidy.plan(store)
        let tagCount = plan.reduce(0) { $0 + $1.tags.count }
        guard dryRun else {
            let changed = try store.tags.tidy(Dictionary(plan.map { ($0.id, $0.tags) }, uniquingKeysWith: { $1 }))
            try printEntries(changed, context: context, store: store)
            return context.say(.tagsTidied(pages: changed.count, tags: tagCount))
        }
        for removal in plan {
            if context.json {
                try Output.json(.object([("kind", .string("tag_tidy")), ("id", .string(removal.id)),
                                         ("title", .optional(removal.title)), ("remove", .array(removal.tags.map(JSON.string)))]))
            } else {
                try Output.line("\(removal.id.prefix(8))  \(removal.title ?? "")  − " + removal.tags.map { "#\($0)" }.joined(separator: " "))
            }
        }
        context.say(.tidyPreview(pages: plan.count, tags: tagCount))
    }

    /// Parses `--at`: a time, optionally with a zone after it.
    static func when(_ text: String, zone: TimeZone) throws -> (Date, TimeZone) {
        guard let parsed = EditablePage.parseWhen(text, defaultZone: zone) else {
            throw InputError.usage(.badOption(detail: "--at \(text)"))
        }
        return parsed
    }
}

extension CommandContext {
    /// Purges what has sat in the trash longer than `[trash] keep_days`; run on writes, so
    /// nothing waits for a timer.
    package func purgeExpiredTrash(_ store: DiaryStore) {
        let cutoff = Date().addingTimeInterval(-Double(config.trashKeepDays) * 86_400)
        guard let result = try? store.trash.purge(trashedBefore: cutoff) else { return }
        MediaIntake.remove(result.unusedMedia, paths: paths)
    }
}
