import DiaryKit
import Foundation

/// Which entries a command works on: an id argument (a unique prefix is enough), else the
/// JSON Lines on stdin (`entry_id`, else `id`, or a bare id per line), else the most recent
/// open draft.
package enum EntrySelection {
    /// Entry ids named on stdin, in order, each once. Reads nothing from a terminal.
    package static func idsFromStandardInput(isTerminal: Bool) throws -> [String] {
        guard !isTerminal else { return [] }
        let data = FileHandle.standardInput.readDataToEndOfFile()
        return try ids(fromLines: data)
    }

    /// Parses JSON Lines (or bare ids); every line is checked before anything is used.
    package static func ids(fromLines data: Data) throws -> [String] {
        guard let text = String(data: data, encoding: .utf8) else { throw InputError.notUTF8 }
        var ids: [String] = []
        var seen = Set<String>()
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty { continue }
            var reference: String?
            if line.first == "{" {
                guard let object = JSON.parse(Data(line.utf8)), case .object = object else {
                    throw InputError.notJSON(line: index + 1)
                }
                reference = object["entry_id"]?.stringValue ?? object["id"]?.stringValue
                // Lines that name no entry (a summary, a tag) are passed over.
                if object["entry_id"] == nil, object["kind"]?.stringValue.map({ $0 != "entry" }) == true { reference = nil }
            } else if line.allSatisfy({ $0.isHexDigit || $0 == "-" }) {
                reference = line.lowercased()
            } else {
                throw InputError.notJSON(line: index + 1)
            }
            if let reference, seen.insert(reference).inserted { ids.append(reference) }
        }
        return ids
    }

    /// The entries named by the argument or on stdin, resolved by `resolve` (a full id or a
    /// unique prefix); naming none is a usage error: a change by hand never guesses its page.
    package static func named(argument: String?, context: CommandContext, resolve: (String) throws -> String) throws -> [String] {
        let references = try argument.map { [$0] } ?? idsFromStandardInput(isTerminal: context.stdinIsTerminal)
        guard !references.isEmpty else { throw InputError.usage(.nameAnEntry) }
        return try references.map(resolve)
    }

    /// The entries to work on, resolved to full ids.
    package static func resolve(argument: String?, context: CommandContext, store: DiaryStore,
                        fallback: [EntryStatus]) throws -> [String] {
        if let argument { return [try store.resolve(reference: argument)] }
        let fromStdin = try idsFromStandardInput(isTerminal: context.stdinIsTerminal)
        if !fromStdin.isEmpty { return try fromStdin.map { try store.resolve(reference: $0) } }
        guard let latest = try store.latestEntry(in: fallback) else { throw StoreError.noOpenDraft }
        return [latest]
    }
}
