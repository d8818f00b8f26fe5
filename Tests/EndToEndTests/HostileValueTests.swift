import Foundation
import Testing

/// Values a hostile or broken file brings in (issue 40): what is taken must back up, export and
/// restore without a trap; what no part of the system could write back is refused at the door,
/// named, with the diary unchanged.
@Suite("Hostile values at the door")
struct HostileValueTests {
    /// A Day One export (a zip with Journal.json) of one entry with `fields` over the usual
    /// ones, or of several such entries.
    private func dayOneExport(_ sandbox: Sandbox, _ fields: String...) throws -> URL {
        let folder = sandbox.root.appendingPathComponent("dayone-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let entries = fields.map { ($0.contains(#""text""#) ? "{" : #"{"text":"海邊的一天\n風很大","#) + #""tags":["海"],"starred":false,"timeZone":"Asia/Taipei","# + $0 + "}" }
        let uuid = #""uuid":"5C1E0A1B2C3D4E5F60718293A4B5C6D7","#
        let json = #"{"metadata":{"version":"1.0"},"entries":["# + entries.map { $0.contains(#""uuid""#) ? $0 : "{" + uuid + $0.dropFirst() }.joined(separator: ",") + "]}"
        try Data(json.utf8).write(to: folder.appendingPathComponent("Journal.json"))
        let zip = sandbox.root.appendingPathComponent("\(folder.lastPathComponent).zip")
        #expect(try shell(["bsdtar", "-a", "-cf", zip.path, "-C", folder.path, "Journal.json"]).status == 0)
        return zip
    }

    @Test("a temperature of 1e20 imports, and every backup and export of the page still works (it trapped before)")
    func hugeReadingsDoNotTrap() throws {
        let sandbox = try Sandbox()
        sandbox.language = "en_US.UTF-8"
        let zip = try dayOneExport(sandbox, #""creationDate":"2024-05-01T10:20:30Z","weather":{"temperatureCelsius":1e20,"relativeHumidity":-1e20,"conditionsDescription":"Windy"}"#)
        let imported = try sandbox.run("diary-sync", ["import", zip.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        for (format, file) in [("tar", "b.tar"), ("zip", "b.zip"), ("dayone", "b-dayone.zip"), ("jrnl", "b.json")] {
            let out = sandbox.root.appendingPathComponent(file)
            let result = try sandbox.run("diary-sync", ["export", "--format", format, "-o", out.path])
            #expect(result.status == 0, "\(format): \(result.status) \(result.stderr)")
        }
        let site = try sandbox.run("diary-sync", ["export", "--format", "html", "-o", sandbox.root.appendingPathComponent("site").path])
        #expect(site.status == 0, "\(site.stderr)")
        let backup = sandbox.root.appendingPathComponent("all.tar")
        #expect(try sandbox.run("diary-sync", ["backup", "-o", backup.path]).status == 0)
        let elsewhere = try Sandbox()
        let restored = try elsewhere.run("diary-sync", ["restore", backup.path])
        #expect(restored.status == 0, "\(restored.stderr)")
        let shown = try elsewhere.run("diary-find", ["--full", "--text"])
        #expect(shown.status == 0 && shown.stdout.contains("1e+20"), "\(shown.stdout)")
    }

    @Test("two Day One entries whose uuids differ only in case are two pages, the second named; a second import finds both")
    func caseTwinsCollideVisibly() throws {
        let sandbox = try Sandbox()
        sandbox.language = "en_US.UTF-8"
        let zip = try dayOneExport(sandbox, #""uuid":"5C1E0A1B2C3D4E5F60718293A4B5C6D7","creationDate":"2024-05-01T10:20:30Z""#,
                                   #""uuid":"5c1e0a1b2c3d4e5f60718293a4b5c6d7","creationDate":"2024-05-02T10:20:30Z""#)
        let imported = try sandbox.run("diary-sync", ["import", zip.path, "--json"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let summary = try #require(imported.lines.first)
        #expect(summary["added"] as? Int == 2)
        #expect(summary["case_twins"] as? [String] == ["5c1e0a1b2c3d4e5f60718293a4b5c6d7"])
        #expect(imported.stderr.contains("only in case"))
        #expect(try sandbox.run("diary-find", ["--json"]).lines.count == 2)
        let again = try sandbox.run("diary-sync", ["import", zip.path, "--json"]).lines.first
        #expect(again?["added"] as? Int == 0 && again?["unchanged"] as? Int == 2)
    }

    @Test("a NUL byte in imported text is refused, named, and changes nothing (SQLite cut the text there)")
    func nulIsNotText() throws {
        let sandbox = try Sandbox()
        sandbox.language = "en_US.UTF-8"
        let jrnl = sandbox.root.appendingPathComponent("jrnl.json")
        try Data(#"{"tags":{},"entries":[{"date":"2024-05-01","time":"10:20","title":"nul","body":"before\u0000after","tags":[],"starred":false}]}"#.utf8)
            .write(to: jrnl)
        let fromJrnl = try sandbox.run("diary-sync", ["import", jrnl.path])
        #expect(fromJrnl.status == 65 && fromJrnl.stderr.contains("body"), "\(fromJrnl.status) \(fromJrnl.stderr)")
        let zip = try dayOneExport(sandbox, #""creationDate":"2024-05-01T10:20:30Z","text":"before\u0000after""#)
        let fromDayOne = try sandbox.run("diary-sync", ["import", zip.path])
        #expect(fromDayOne.status == 65 && fromDayOne.stderr.contains("text"), "\(fromDayOne.status) \(fromDayOne.stderr)")
        #expect(try sandbox.run("diary-find", ["--json"]).stdout.isEmpty)
    }

    @Test("a time no part of the system writes back (year 0, before year 1, after 9999) is refused, named, and changes nothing",
          arguments: ["0000-01-01T00:00:00Z", "-0001-01-01T00:00:00Z", "99999-01-01T00:00:00Z", "+292278994-01-01T00:00:00Z"])
    func timesOutsideTheCalendarAreRefused(time: String) throws {
        let sandbox = try Sandbox()
        sandbox.language = "en_US.UTF-8"
        _ = try sandbox.savedPage("a page already here", photo: try sandbox.makeMedia("here.jpg"))
        let before = try sandbox.run("diary-find", ["--json"]).stdout
        let zip = try dayOneExport(sandbox, #""creationDate":"\#(time)""#)
        let imported = try sandbox.run("diary-sync", ["import", zip.path])
        #expect(imported.status == 65, "\(imported.status) \(imported.stderr)")
        #expect(imported.stderr.contains("creationDate"), "\(imported.stderr)")
        #expect(try sandbox.run("diary-find", ["--json"]).stdout == before)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: sandbox.home.path).filter { $0.hasPrefix(".incoming") }
        #expect(leftovers.isEmpty)
        // An edit cannot bring one in either.
        let id = try #require(try sandbox.run("diary-find", ["--json"]).lines.first?["id"] as? String)
        let edited = try sandbox.run("diary-save", [id, "--at", "0000-06-01 10:00"])
        #expect(edited.status == 64, "\(edited.status) \(edited.stderr)")
    }

    /// A page saved through the real pipeline (with its seconds), tagged with a comma in a tag.
    private func pageWithACommaTag(_ sandbox: Sandbox) throws -> String {
        let results = try sandbox.pipeline([("diary-new", ["--text-only", "--text", "在巴黎喝咖啡"]), ("diary-save", [])])
        for result in results { #expect(result.status == 0, "\(result.stderr)") }
        let id = try #require(results[1].lines.first?["id"] as? String)
        #expect(try sandbox.run("diary-save", [id, "--add-tag", "Paris, France"]).status == 0)
        return id
    }

    private func editor(_ sandbox: Sandbox, _ body: String) throws -> String {
        let url = try sandbox.makeFile("editor-\(UUID().uuidString.prefix(6)).sh", Data("#!/bin/sh\n\(body)\n".utf8))
        chmod(url.path, 0o755)
        return url.path
    }

    @Test("an edit that is not UTF-8 text, or holds a NUL, is kept in edits/ with its line named, and changes nothing",
          arguments: [#"printf 'caf\351\n' >> "$1""#, #"sed -i 's/^title: .*/title: nul\x00title/' "$1""#])
    func anUnreadableEditIsKept(script: String) throws {
        let sandbox = try Sandbox()
        sandbox.language = "en_US.UTF-8"
        let id = try pageWithACommaTag(sandbox)
        let before = try sandbox.run("diary-find", ["--show", id]).stdout
        sandbox.extraEnvironment["EDITOR"] = try editor(sandbox, script)
        let edited = try sandbox.run("diary-save", ["--edit", id])
        #expect(edited.status == 65, "\(edited.stderr)")
        #expect(edited.stderr.contains("is not UTF-8 text"), "\(edited.stderr)")
        let kept = try #require(edited.stderr.firstMatch(of: /(\/\S+\.md)/).map { String($0.1) })
        #expect(kept.contains("/edits/") && FileManager.default.fileExists(atPath: kept))
        #expect(try sandbox.run("diary-find", ["--show", id]).stdout == before)
    }

    @Test("a title edited alone leaves a tag with a comma and the time's seconds as they were; a place must be one line")
    func aTitleEditChangesOnlyTheTitle() throws {
        let sandbox = try Sandbox()
        sandbox.language = "en_US.UTF-8"
        let id = try pageWithACommaTag(sandbox)
        let before = try #require(try sandbox.run("diary-find", ["--show", id]).lines.first)
        #expect((before["tags"] as? [String])?.contains("paris, france") == true, "\(before["tags"] ?? "")")
        sandbox.extraEnvironment["EDITOR"] = try editor(sandbox, #"sed -i 's/^title: .*/title: A new title/' "$1""#)
        #expect(try sandbox.run("diary-save", ["--edit", id]).status == 0)
        let after = try #require(try sandbox.run("diary-find", ["--show", id]).lines.first)
        #expect(after["title"] as? String == "A new title")
        #expect(after["tags"] as? [String] == before["tags"] as? [String])
        #expect(after["occurred_at"] as? String == before["occurred_at"] as? String)

        let place = try sandbox.run("diary-save", [id, "--place", "a\nb"])
        #expect(place.status == 65 && place.stderr.contains("must be one line"), "\(place.stderr)")
        #expect(try sandbox.run("diary-save", ["--edit", id]).status == 0, "the page can still be edited")

        // A tag longer than a name keeps is refused, not cut without a word; by flag or in the editor.
        let long = String(repeating: "長", count: 40)
        let tagged = try sandbox.run("diary-save", [id, "--add-tag", long])
        #expect(tagged.status == 65 && tagged.stderr.contains("at most 32 characters"), "\(tagged.stderr)")
        sandbox.extraEnvironment["EDITOR"] = try editor(sandbox, "sed -i 's/^tags: .*/tags: \(long)/' \"$1\"")
        let edited = try sandbox.run("diary-save", ["--edit", id])
        #expect(edited.status == 65 && edited.stderr.contains("longer than 32 characters"), "\(edited.stderr)")
        #expect(try sandbox.run("diary-find", ["--show", id]).lines.first?["tags"] as? [String] == before["tags"] as? [String])
    }
}
