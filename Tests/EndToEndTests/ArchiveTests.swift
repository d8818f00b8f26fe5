import DiaryKit
import Foundation
import Testing

@Suite("diary-sync backup, export, restore and import through the built binary")
struct ArchiveTests {
    /// A diary written by the real tools: two saved pages (one with a photo and a chat), a
    /// draft, and a discarded draft that left no trace.
    func diary() throws -> (Sandbox, [String]) {
        let sandbox = try Sandbox()
        let photo = try sandbox.makeMedia("beach.jpg", size: "640x480")
        var ids: [String] = []
        let made = try sandbox.run("diary-new", [photo.path, "--text", "今天去海邊散步", "--place", "基隆", "--at", "2026-11-20 17:40"])
        #expect(made.status == 0, "\(made.stderr)")
        ids.append(try #require(made.lines.first?["id"] as? String))
        #expect(try sandbox.run("diary-chat", [ids[0], "-m", "海風很舒服"]).status == 0)
        #expect(try sandbox.run("diary-save", [ids[0]]).status == 0)
        let second = try sandbox.run("diary-new", ["--text-only", "--text", "Coffee with Mei", "--at", "2026-11-21 09:00"])
        ids.append(try #require(second.lines.first?["id"] as? String))
        #expect(try sandbox.run("diary-save", [ids[1]]).status == 0)
        let draft = try sandbox.run("diary-new", ["--text-only", "--text", "還沒寫完的草稿", "--at", "2026-11-21 22:00"])
        ids.append(try #require(draft.lines.first?["id"] as? String))
        return (sandbox, ids)
    }

    /// Everything a person can see, with the diary folder's own path taken out.
    func visible(_ sandbox: Sandbox) throws -> String {
        let found = try sandbox.run("diary-find", ["--full", "--json", "--status", "draft", "--status", "chatting", "--status", "saved"])
        #expect(found.status == 0, "\(found.stderr)")
        let tags = try sandbox.run("diary-find", ["--tags", "--json"])
        return (found.stdout + tags.stdout).replacingOccurrences(of: sandbox.home.path, with: "HOME")
    }

    func mediaFiles(_ sandbox: Sandbox) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let media = sandbox.home.appendingPathComponent("media")
        for case let url as URL in FileManager.default.enumerator(at: media, includingPropertiesForKeys: nil) ?? .init()
        where !url.hasDirectoryPath {
            files[url.lastPathComponent] = try Data(contentsOf: url)
        }
        return files
    }

    @Test("backup then restore into an empty diary gives back the same diary, in every format", arguments: ["tar", "tar.gz", "tar.zst", "tar.xz", "zip"])
    func roundTrip(format: String) throws {
        let (original, _) = try diary()
        let file = original.root.appendingPathComponent("diary.\(format)")
        let backup = try original.run("diary-sync", ["backup", "-o", file.path])
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(backup.lines.first?["entries"] as? Int == 3)
        #expect(!FileManager.default.fileExists(atPath: file.path + ".partial"))

        let copy = try Sandbox()
        let restored = try copy.run("diary-sync", ["restore", file.path])
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(restored.lines.first?["added"] as? Int == 3)
        #expect(try visible(copy) == visible(original))
        #expect(try mediaFiles(copy) == mediaFiles(original))
        #expect(try copy.searchIndexIsConsistent())
        #expect(try copy.run("diary-find", ["海邊", "--json"]).lines.count == 1)

        let again = try copy.run("diary-sync", ["restore", file.path])
        #expect(again.status == 0)
        #expect(again.lines.first?["added"] as? Int == 0)
        #expect(again.lines.first?["updated"] as? Int == 0)
        #expect(again.lines.first?["unchanged"] as? Int == 3, "restoring twice changes nothing")
        #expect(try visible(copy) == visible(original))
    }

    @Test("GNU tar and bsdtar list and unpack every format; the pages read on their own", arguments: ["tar", "tar.gz", "tar.zst", "tar.xz", "zip"])
    func ordinaryTools(format: String) throws {
        let (sandbox, ids) = try diary()
        let file = sandbox.root.appendingPathComponent("b.\(format)")
        #expect(try sandbox.run("diary-sync", ["backup", "--format", format, "-o", file.path]).status == 0)
        var tools = [["bsdtar", "-tf", file.path]]
        if format != "zip" { tools.append(["tar", "-tf", file.path]) }
        for command in tools {
            let listing = try shell(command)
            #expect(listing.status == 0, "\(command[0]): \(listing.output)")
            #expect(listing.output.hasPrefix("manifest.json\n"), "the manifest comes first")
            for name in ["entries.jsonl", "diary.jsonl", "pages/2026-11-20-\(ids[0].suffix(8)).md", "media/"] {
                #expect(listing.output.contains(name), "\(command[0]) lists \(name)")
            }
        }
        for tool in format == "zip" ? ["bsdtar"] : ["bsdtar", "tar"] {
            let folder = sandbox.root.appendingPathComponent("x-\(tool)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let unpacked = try shell([tool, "-xf", file.path, "-C", folder.path])
            #expect(unpacked.status == 0, "\(unpacked.output)")
            let page = try String(contentsOf: folder.appendingPathComponent("pages/2026-11-20-\(ids[0].suffix(8)).md"), encoding: .utf8)
            #expect(page.contains("基隆") && page.contains("海風很舒服") && page.contains("InnerBloom 夥伴"))
            let link = try #require(page.firstMatch(of: /\(\.\.\/(media\/[0-9a-f]{64}\.jpg)\)/)?.1)
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(String(link)).path), "the page's photo link works")
        }
    }

    @Test("export takes what diary-find pipes in, and nothing else")
    func exportSelection() throws {
        let (sandbox, ids) = try diary()
        let found = try sandbox.run("diary-find", ["Coffee", "--json"])
        let exported = sandbox.root.appendingPathComponent("coffee.tgz")
        let result = try sandbox.run("diary-sync", ["export", "-o", exported.path], input: found.stdoutData)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.first?["entries"] as? Int == 1)
        let listing = try shell(["tar", "-tzf", exported.path]).output
        #expect(listing.contains(String(ids[1].suffix(8))) && !listing.contains(String(ids[0].suffix(8))))
        #expect(!listing.contains("diary.jsonl"), "an export carries entries, not settings")

        let other = try Sandbox()
        let imported = try other.run("diary-sync", ["import", exported.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try other.run("diary-find", ["--json"]).lines.map { $0["id"] as? String } == [ids[1]])
        let twice = try other.run("diary-sync", ["import", exported.path])
        #expect(twice.lines.first?["added"] as? Int == 0 && twice.lines.first?["unchanged"] as? Int == 1)

        let piped = try sandbox.run("diary-sync", ["export", "--format", "tar", ids[0]])
        #expect(piped.status == 0)
        #expect(piped.stdoutData.count > 10_000, "tar goes to stdout when it is a pipe")
        let fromStdin = try Sandbox()
        #expect(try fromStdin.run("diary-sync", ["import", "-"], input: piped.stdoutData).status == 0)
        #expect(try fromStdin.run("diary-find", ["--json"]).lines.map { $0["id"] as? String } == [ids[0]])
    }

    @Test("merging two edited copies keeps both versions: the newer wins, the older is a conflict, chats are a union")
    func conflicts() throws {
        let (home, ids) = try diary()
        let base = home.root.appendingPathComponent("base.tar")
        #expect(try home.run("diary-sync", ["backup", "-o", base.path]).status == 0)
        let laptop = try Sandbox()
        #expect(try laptop.run("diary-sync", ["restore", base.path]).status == 0)
        #expect(try laptop.run("diary-chat", [ids[0], "-m", "筆電上補一句"]).status == 0)
        Thread.sleep(forTimeInterval: 0.01)
        #expect(try home.run("diary-chat", [ids[0], "-m", "家裡的電腦也補一句"]).status == 0)

        let fromLaptop = laptop.root.appendingPathComponent("laptop.tar")
        #expect(try laptop.run("diary-sync", ["export", "-o", fromLaptop.path, ids[0]]).status == 0)
        let merged = try home.run("diary-sync", ["import", fromLaptop.path])
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.lines.first?["conflicts"] as? Int == 1)
        #expect(merged.lines.first?["messages_added"] as? Int == 2, "the laptop's line and the reply to it")
        let entry = try #require(home.run("diary-find", ["--full", "--json", "海邊"]).lines.first)
        let texts = (entry["messages"] as? [[String: Any]])?.compactMap { $0["text"] as? String } ?? []
        #expect(texts.contains("筆電上補一句") && texts.contains("家裡的電腦也補一句"), "\(texts)")
        #expect(try home.sql("SELECT count(*) FROM conflict WHERE row_id = '\(ids[0])'") == "1")
        #expect(try home.searchIndexIsConsistent())
        let again = try home.run("diary-sync", ["import", fromLaptop.path])
        #expect(again.lines.first?["conflicts"] as? Int == 0 && again.lines.first?["messages_added"] as? Int == 0)
    }

    @Test("hostile and broken archives are refused with exit 65 and leave the diary exactly as it was",
          arguments: HostileArchive.allCases)
    func hostile(_ kind: HostileArchive) throws {
        let (sandbox, _) = try diary()
        let good = sandbox.root.appendingPathComponent("good.tar")
        #expect(try sandbox.run("diary-sync", ["backup", "-o", good.path]).status == 0)
        let bad = sandbox.root.appendingPathComponent("bad-\(kind.rawValue)")
        let made = try shell(["python3", "-c", HostileArchive.maker, kind.rawValue, good.path, bad.path])
        #expect(made.status == 0, "\(made.output)")
        let before = try state(sandbox)
        let result = try sandbox.run("diary-sync", ["restore", bad.path])
        #expect(result.status == 65, "\(kind): \(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains(kind.says), "\(kind): \(result.stderr)")
        #expect(try state(sandbox) == before, "\(kind) changed the diary")
    }

    /// The database's rows, the media files, and every file name under the diary folder.
    func state(_ sandbox: Sandbox) throws -> String {
        let names = (FileManager.default.enumerator(atPath: sandbox.home.path)?.allObjects as? [String] ?? [])
            .filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }.sorted()
        return try sandbox.snapshot() + "\n" + names.joined(separator: "\n")
    }

    @Test("a 2 GB video goes out and comes back with memory staying flat")
    func bigVideo() throws {
        let (sandbox, ids) = try diary()
        // A sparse file: 2 GiB of zeros that take no disk, stored under its real digest.
        let size: Int64 = 2 << 30
        let scratch = sandbox.root.appendingPathComponent("big.mp4")
        #expect(FileManager.default.createFile(atPath: scratch.path, contents: nil))
        #expect(truncate(scratch.path, off_t(size)) == 0)
        let digest = String(try shell(["sha256sum", scratch.path]).output.prefix(64))
        let stored = sandbox.home.appendingPathComponent("media/\(digest.prefix(2))/\(digest).mp4")
        try FileManager.default.createDirectory(at: stored.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: scratch, to: stored)
        let store = try DiaryStore.open(DiaryPaths(homeFlag: sandbox.home.path, environment: [:]))
        try store.media.add(entryId: ids[1], item: MediaItem(kind: .video, sha256: digest, mime: "video/mp4", fileExtension: "mp4", bytes: size))

        let archive = sandbox.root.appendingPathComponent("big.tar")
        let out = try peakMemory(sandbox, ["diary-sync", "backup", "-o", archive.path])
        #expect(out.status == 0, "\(out.output)")
        #expect(out.peakKB < 64 * 1024, "backup peak \(out.peakKB) KB")
        let copy = try Sandbox()
        let back = try peakMemory(copy, ["diary-sync", "restore", archive.path])
        #expect(back.status == 0, "\(back.output)")
        #expect(back.peakKB < 64 * 1024, "restore peak \(back.peakKB) KB")
        let restored = copy.home.appendingPathComponent("media/\(digest.prefix(2))/\(digest).mp4")
        #expect((try FileManager.default.attributesOfItem(atPath: restored.path)[.size] as? Int64) == size)
        #expect(String(try shell(["sha256sum", restored.path]).output.prefix(64)) == digest)
    }

    @Test("jrnl both ways, with the real jrnl: its JSON export comes in (in --zone; again, piped, it changes nothing), and our journal goes back into jrnl with the same dates, titles, tags and stars",
          .enabled(if: ProcessInfo.processInfo.environment["DIARY_TEST_JRNL"] != nil, "scripts/test.sh installs jrnl"))
    func jrnlBothWays() throws {
        let jrnl = try #require(ProcessInfo.processInfo.environment["DIARY_TEST_JRNL"])
        let sandbox = try Sandbox()
        let environment = ["HOME": sandbox.root.path, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "TZ": "Asia/Taipei"]
        /// jrnl with a journal and a config of its own in the sandbox (jrnl's defaults, no colour).
        func journal(_ name: String) throws -> [String] {
            let config = sandbox.root.appendingPathComponent("\(name).yaml")
            try """
                colors: {body: none, date: none, tags: none, title: none}
                default_hour: 9
                default_minute: 0
                editor: ''
                encrypt: false
                highlight: false
                indent_character: '|'
                journals:
                  default:
                    journal: \(sandbox.root.appendingPathComponent("\(name).txt").path)
                linewrap: 79
                tagsymbols: '#@'
                template: false
                timeformat: '%F %r'
                version: v4.6
                """.write(to: config, atomically: true, encoding: .utf8)
            return [jrnl, "--config-file", config.path]
        }
        /// What both tools must agree on, entry by entry: date, time, title, star, tags.
        func essentials(_ export: URL) throws -> [String] {
            let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: export)) as? [String: Any])
            let entries = try #require(json["entries"] as? [[String: Any]])
            return entries.map { entry in
                let tags = ((entry["tags"] as? [String]) ?? []).sorted().joined(separator: " ")
                return "\(entry["date"] ?? "") \(entry["time"] ?? "") \(entry["title"] ?? "") \(entry["starred"] ?? "") [\(tags)]"
            }.sorted()
        }

        // Written by jrnl itself: one entry from its command line, two through its own import.
        let theirs = try journal("theirs")
        let typed = try shell(theirs + ["2026-11-20 18:30: 海邊的傍晚. 風很大 @海邊 @Sunset 心裡很安靜"], environment: environment)
        #expect(typed.status == 0, "\(typed.output)")
        let text = try sandbox.makeFile("typed.txt", Data("""
            [2026-11-21 07:05] Morning walk *
            Saw @herons by the river.
            Second line.

            [2026-11-22 21:40] 夜裡的雨
            下了一整夜 @雨天 @海邊

            """.utf8))
        #expect(try shell(theirs + ["--import", "--file", text.path], environment: environment).status == 0)
        let exported = sandbox.root.appendingPathComponent("theirs.json")
        #expect(try shell(theirs + ["--format", "json", "--file", exported.path], environment: environment).status == 0)
        #expect(try essentials(exported).count == 3)

        let imported = try sandbox.run("diary-sync", ["import", exported.path, "--zone", "Asia/Taipei"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.lines.first?["source"] as? String == "jrnl")
        #expect(imported.lines.first?["added"] as? Int == 3)
        let pages = try sandbox.run("diary-find", ["--json"]).lines.sorted { "\($0["occurred_at"]!)" < "\($1["occurred_at"]!)" }
        #expect(pages.map { $0["title"] as? String } == ["海邊的傍晚.", "Morning walk", "夜裡的雨"])
        #expect(pages.map { $0["occurred_at"] as? String } == ["2026-11-20T18:30:00+08:00", "2026-11-21T07:05:00+08:00", "2026-11-22T21:40:00+08:00"])
        #expect(pages.map { ($0["tags"] as? [String] ?? []).sorted() } == [["sunset", "海邊"], ["herons"], ["海邊", "雨天"]])
        #expect(pages.map { $0["starred"] as? Bool } == [false, true, false])
        #expect(pages[1]["summary"] as? String == "Saw @herons by the river.\nSecond line.")

        // The same export again, through a pipe and under another zone: the same entries.
        let again = try sandbox.run("diary-sync", ["import", "--zone", "Asia/Tokyo"], input: try Data(contentsOf: exported))
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.lines.first?["unchanged"] as? Int == 3 && again.lines.first?["added"] as? Int == 0)

        // Back into jrnl: a journal jrnl imports to the same entries it exported.
        let back = sandbox.root.appendingPathComponent("back.txt")
        let written = try sandbox.run("diary-sync", ["export", "--format", "jrnl", "-o", back.path])
        #expect(written.status == 0, "\(written.stderr)")
        #expect(written.lines.first?["entries"] as? Int == 3)
        let journalSize = try #require(try FileManager.default.attributesOfItem(atPath: back.path)[.size] as? Int)
        #expect(written.lines.first?["bytes"] as? Int == journalSize)
        let ours = try journal("ours")
        #expect(try shell(ours + ["--import", "--file", back.path], environment: environment).status == 0)
        let returned = sandbox.root.appendingPathComponent("ours.json")
        #expect(try shell(ours + ["--format", "json", "--file", returned.path], environment: environment).status == 0)
        #expect(try essentials(returned) == essentials(exported))

        // A broken export names its field and changes nothing.
        let before = try sandbox.snapshot()
        let broken = try sandbox.run("diary-sync", ["import", "-"], stdin: #"{"entries": [{"title": "x", "time": "09:00"}]}"#)
        #expect(broken.status == 65)
        #expect(broken.stderr.contains("entries[0].date"), "\(broken.stderr)")
        #expect(try sandbox.snapshot() == before)
        let badZone = try sandbox.run("diary-sync", ["import", exported.path, "--zone", "Mars/Base"])
        #expect(badZone.status == 64 && badZone.stderr.contains("--zone Mars/Base"), "\(badZone.stderr)")
    }

    @Test("piping an archive to a terminal, a missing file, an unknown format: clear words and the right status")
    func mistakes() throws {
        let (sandbox, _) = try diary()
        let missing = try sandbox.run("diary-sync", ["restore", sandbox.root.appendingPathComponent("nope.tar").path])
        #expect(missing.status == 66 && missing.stderr.contains("找不到檔案"))
        let format = try sandbox.run("diary-sync", ["backup", "--format", "rar", "-o", "/dev/null"])
        #expect(format.status == 64 && format.stderr.contains("不認得的格式"))
        sandbox.language = "en_US.UTF-8"
        let notArchive = try sandbox.makeFile("notes.txt", Data("just words\n".utf8))
        let refused = try sandbox.run("diary-sync", ["import", notArchive.path])
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(refused.stderr.contains("damaged") || refused.stderr.contains("neither"), "\(refused.stderr)")
    }

    // Runs a tool under python3, which reports the peak memory of exactly that child.
    private func peakMemory(_ sandbox: Sandbox, _ command: [String]) throws -> (status: Int32, peakKB: Int, output: String) {
        let script = """
            import os, resource, subprocess, sys
            done = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            sys.stdout.write(done.stdout.decode("utf-8", "replace"))
            print("PEAK", resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
            sys.exit(done.returncode)
            """
        let tool = Sandbox.binaries.appendingPathComponent(command[0]).path
        let result = try shell(["python3", "-c", script, tool] + command.dropFirst(), environment: sandbox.environment)
        let peak = Int(result.output.split(separator: "\n").last { $0.hasPrefix("PEAK ") }?.dropFirst(5) ?? "") ?? .max
        return (result.status, peak, result.output)
    }
}

/// Ways an archive can be unsafe or broken; `maker` builds each from a good backup.
enum HostileArchive: String, CaseIterable, CustomTestStringConvertible {
    case absolutePath, parentPath, symlink, hardLink, device, fifo, duplicate, unlisted, missingMember, wrongDigest,
         mediaNotItsName, bomb, truncated, notJSON, badField, newerVersion, manifestNotFirst, futureClock

    var testDescription: String { rawValue }

    /// A few words the refusal must contain (zh-Hant).
    var says: String {
        switch self {
        case .absolutePath, .parentPath, .symlink, .hardLink, .device, .fifo, .duplicate, .manifestNotFirst: return "不安全"
        case .unlisted, .missingMember, .wrongDigest, .mediaNotItsName: return "與清單不符"
        case .bomb: return "大小上限"
        case .truncated: return "損壞或不完整"
        case .notJSON, .badField: return "資料有誤"
        case .newerVersion: return "較新的版本"
        case .futureClock: return "未來"
        }
    }

    /// python3 -c maker KIND GOOD.tar OUT: rewrites the good backup into a bad one, keeping
    /// the manifest truthful except where lying is the point.
    static let maker = #"""
import gzip, hashlib, io, json, sys, tarfile
kind, good, out = sys.argv[1:4]
src = tarfile.open(good)
members = [(m, src.extractfile(m).read()) for m in src.getmembers()]
manifest = json.loads(members[0][1])
rest = members[1:]
def info(name, data):
    t = tarfile.TarInfo(name); t.size = len(data); return t
def relist(items):
    manifest["members"] = [{"path": n, "bytes": len(d), "sha256": hashlib.sha256(d).hexdigest()} for n, d in items]
def write(items, extra=None, first_manifest=True, path=out, mode="w"):
    with tarfile.open(path, mode) as t:
        body = json.dumps(manifest).encode()
        if first_manifest: t.addfile(info("manifest.json", body), io.BytesIO(body))
        for name, data in items: t.addfile(info(name, data), io.BytesIO(data))
        for special in (extra or []): t.addfile(special)
        if not first_manifest: t.addfile(info("manifest.json", body), io.BytesIO(body))
items = [(m.name, d) for m, d in rest]
def entries_edit(fn):
    lines = [json.loads(l) for l in dict(items)["entries.jsonl"].decode().splitlines()]
    fn(lines)
    data = ("\n".join(json.dumps(l, ensure_ascii=False) for l in lines) + "\n").encode()
    return [(n, data if n == "entries.jsonl" else d) for n, d in items]
def special(name, type_, link=""):
    t = tarfile.TarInfo(name); t.type = type_; t.linkname = link; return t
if kind == "absolutePath": write(items + [("/tmp/evil.txt", b"x")])
elif kind == "parentPath": write(items + [("pages/../../evil.txt", b"x")])
elif kind == "symlink": write(items, [special("media/evil.jpg", tarfile.SYMTYPE, "/etc/passwd")])
elif kind == "hardLink": write(items, [special("pages/evil.md", tarfile.LNKTYPE, "entries.jsonl")])
elif kind == "device": write(items, [special("media/dev", tarfile.CHRTYPE)])
elif kind == "fifo": write(items, [special("media/fifo", tarfile.FIFOTYPE)])
elif kind == "duplicate": write(items + [items[0]])
elif kind == "unlisted": write(items + [("pages/extra.md", b"# not in the manifest\n")])
elif kind == "missingMember": write(items[:-1])
elif kind == "wrongDigest":
    write([(n, d + b"\n" if n == "entries.jsonl" else d) for n, d in items])
elif kind == "mediaNotItsName":
    changed = [(n, b"\x00" + d[1:] if n.startswith("media/") else d) for n, d in items]
    relist(changed); write(changed)
elif kind == "bomb":
    zeros = b"\x00" * (200 << 20)
    changed = items + [("pages/zeros.md", zeros)]
    relist(changed); write(changed, mode="w:gz")
elif kind == "truncated":
    write(items, mode="w:gz", path=out + ".whole")
    data = open(out + ".whole", "rb").read()
    open(out, "wb").write(data[: len(data) // 2])
elif kind == "notJSON":
    changed = [(n, b"{not json\n" if n == "entries.jsonl" else d) for n, d in items]
    relist(changed); write(changed)
elif kind == "badField":
    def zone(lines): lines[0]["time_zone"] = "Mars/Olympus"
    changed = entries_edit(zone); relist(changed); write(changed)
elif kind == "newerVersion":
    manifest["version"] = 99; write(items)
elif kind == "manifestNotFirst": write(items, first_manifest=False)
elif kind == "futureClock":
    def future(lines): lines[0]["hlc"] = "999999999999999.000000.dev"
    changed = entries_edit(future); relist(changed); write(changed)
"""#
}

/// Runs a command, returning its status and stdout+stderr together.
func shell(_ command: [String], environment: [String: String]? = nil) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = command
    if let environment { process.environment = environment }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}
