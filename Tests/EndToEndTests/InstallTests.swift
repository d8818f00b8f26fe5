import DiaryKit
import Foundation
import Testing

@Suite("Installed like a Unix tool, linking only what each command uses")
struct InstallTests {
    static let tools = ["diary-new", "diary-chat", "diary-save", "diary-find", "diary-sync"]

    /// Mangled-name prefixes of the modules that bring the network, crypto and archive
    /// stacks, and of our capability targets built on them.
    static let heavyModules = [
        "NIOCore": "$s7NIOCore", "NIOPosix": "$s8NIOPosix", "AsyncHTTPClient": "$s15AsyncHTTPClient",
        "PostgresNIO": "$s11PostgresNIO", "NIOSSL": "$s6NIOSSL", "Crypto": "$s6Crypto",
        "BoringSSL": "CCryptoBoringSSL_", "libarchive": "archive_read_new",
        "CompanionClient": "$s15CompanionClient", "DiaryArchive": "$s12DiaryArchive", "DiarySync": "$s9DiarySync",
        "DiarySeal": "$s9DiarySeal", "libsodium": "sodium_init",
    ]

    /// Which of `heavyModules` have symbols in the binary (defined or wanted from a library).
    static func heavyModules(in binary: URL) throws -> Set<String> {
        let symbols = try Shell.run("nm -P \(Shell.quote(binary.path)) | cut -d' ' -f1")
        #expect(symbols.status == 0, "nm failed: \(symbols.stderr)")
        var found: Set<String> = []
        for line in symbols.stdout.split(separator: "\n") {
            for (module, prefix) in heavyModules where line.hasPrefix(prefix) { found.insert(module) }
        }
        return found
    }

    /// The shared libraries the binary asks the loader for, by name.
    static func neededLibraries(of binary: URL) throws -> [String] {
        let dynamic = try Shell.run("readelf -d \(Shell.quote(binary.path))")
        return dynamic.stdout.split(separator: "\n").filter { $0.contains("(NEEDED)") }
            .compactMap { line in line.split(separator: "[").last?.split(separator: "]").first.map(String.init) }
    }

    @Test("diary-find links no network, crypto or archive library; diary-sync, which needs them, does")
    func diaryFindLinksOnlyTheStore() throws {
        let find = try Self.heavyModules(in: Sandbox.binaries.appendingPathComponent("diary-find"))
        #expect(find.isEmpty, "diary-find links \(find.sorted())")
        #expect(try !Self.neededLibraries(of: Sandbox.binaries.appendingPathComponent("diary-find")).contains { $0.contains("libarchive") })

        // The same check on a command that does use them, so it is known to see them.
        let sync = try Self.heavyModules(in: Sandbox.binaries.appendingPathComponent("diary-sync"))
        #expect(sync.isSuperset(of: ["NIOCore", "PostgresNIO", "Crypto", "BoringSSL", "DiarySync", "DiaryArchive", "libarchive"]), "\(sync.sorted())")
        #expect(try Self.neededLibraries(of: Sandbox.binaries.appendingPathComponent("diary-sync")).contains { $0.contains("libarchive") })
        let chat = try Self.heavyModules(in: Sandbox.binaries.appendingPathComponent("diary-chat"))
        #expect(chat.contains("AsyncHTTPClient") && !chat.contains("PostgresNIO") && !chat.contains("DiaryArchive"), "\(chat.sorted())")
    }

    @Test("scripts/install.sh puts stripped binaries, man pages and completions under a prefix, and --uninstall takes them away")
    func installAndUninstall() throws {
        let sandbox = try Sandbox()
        let prefix = sandbox.root.appendingPathComponent("prefix")
        let script = DocumentationTests.repository.appendingPathComponent("scripts/install.sh").path
        // A library an earlier install left that this one does not make.
        let stale = prefix.appendingPathComponent("lib/innerbloom/libdiary-gone.so")
        try FileManager.default.createDirectory(at: stale.deletingLastPathComponent(), withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: stale.path, contents: Data("old".utf8)))
        let install = try Shell.run("\(Shell.quote(script)) --from \(Shell.quote(Sandbox.binaries.path)) \(Shell.quote(prefix.path))")
        #expect(install.status == 0, "install.sh: \(install.stderr)")
        #expect(install.stderr.contains("Installed diary-new"))

        for tool in Self.tools {
            let binary = prefix.appendingPathComponent("bin/\(tool)")
            let version = try Shell.run("\(Shell.quote(binary.path)) --version")
            #expect(version.status == 0 && version.stdout == DiaryVersion.current + "\n", "\(tool) --version: \(version.stdout)\(version.stderr)")
            let sections = try Shell.run("readelf -S \(Shell.quote(binary.path))")
            #expect(sections.status == 0 && !sections.stdout.contains(".symtab"), "\(tool) is not stripped")

            let bash = prefix.appendingPathComponent("share/bash-completion/completions/\(tool)").path
            let complete = try Shell.run("bash -c \(Shell.quote("source \(Shell.quote(bash)) && complete -p \(tool)"))")
            #expect(complete.status == 0 && complete.stdout.contains(tool), "bash completion for \(tool): \(complete.stderr)")
            let zsh = try String(contentsOfFile: prefix.appendingPathComponent("share/zsh/site-functions/_\(tool)").path, encoding: .utf8)
            #expect(zsh.hasPrefix("#compdef \(tool)"))
            let fish = try String(contentsOfFile: prefix.appendingPathComponent("share/fish/vendor_completions.d/\(tool).fish").path, encoding: .utf8)
            #expect(fish.contains("complete -c '\(tool)'"))
        }

        // The code the five share is on disk once, and each command loads only its part of it:
        // diary-find the core alone (no network, crypto or archive code), the others more.
        let libraries = prefix.appendingPathComponent("lib/innerbloom")
        #expect(!FileManager.default.fileExists(atPath: stale.path), "a library no tool needs any more was left")
        func ours(_ file: URL) throws -> Set<String> { Set(try Self.neededLibraries(of: file).filter { $0.hasPrefix("libdiary-") }) }
        #expect(try ours(prefix.appendingPathComponent("bin/diary-find")) == ["libdiary-core.so"])
        #expect(try ours(libraries.appendingPathComponent("libdiary-core.so")).isEmpty)
        #expect(try !Self.neededLibraries(of: libraries.appendingPathComponent("libdiary-core.so")).contains { $0.hasPrefix("libarchive") })
        let sync = try ours(prefix.appendingPathComponent("bin/diary-sync"))
        #expect(sync.contains("libdiary-core.so") && sync.count == 2, "\(sync.sorted())")
        #expect(try ours(prefix.appendingPathComponent("bin/diary-chat")).isStrictSuperset(of: sync), "diary-chat also loads the companion's library")
        for library in try FileManager.default.contentsOfDirectory(atPath: libraries.path) {
            let sections = try Shell.run("readelf -S \(Shell.quote(libraries.appendingPathComponent(library).path))")
            #expect(sections.status == 0 && !sections.stdout.contains(".symtab"), "\(library) is not stripped")
        }

        // What was installed, and nothing else, writes a page, finds it and backs it up.
        let home = sandbox.root.appendingPathComponent("home")
        let environment = "export PATH=\(Shell.quote(prefix.appendingPathComponent("bin").path)):\"$PATH\" "
            + "DIARY_HOME=\(Shell.quote(home.path)) XDG_CONFIG_HOME=\(Shell.quote(home.path))/config LANG=C.UTF-8; "
        let page = try Shell.run(environment + "diary-new --text-only --text 今天去海邊 | diary-chat -m 風好大 | diary-save >/dev/null && diary-find 海邊 --json")
        #expect(page.status == 0, "\(page.stderr)")
        #expect(page.stdout.split(separator: "\n").count == 1 && page.stdout.contains("\"status\":\"saved\""), "\(page.stdout)")
        let backup = try Shell.run(environment + "diary-sync export -o \(Shell.quote(home.path))/all.tar >/dev/null && tar -tf \(Shell.quote(home.path))/all.tar")
        #expect(backup.status == 0 && backup.stdout.contains("entries.jsonl"), "\(backup.stderr)")

        let pages = Self.tools.map { "share/man/man1/\($0).1" } + ["share/man/man7/diary.7"]
        for page in pages {
            let path = prefix.appendingPathComponent(page).path
            let rendered = try Shell.run("groff -k -ww -man -Tutf8 \(Shell.quote(path)) > /dev/null")
            #expect(rendered.status == 0 && rendered.stderr.isEmpty, "\(page): \(rendered.stderr)")
            let man = try Shell.run("MANWIDTH=80 man -l \(Shell.quote(path)) | head -5")
            #expect(man.status == 0 && man.stdout.contains("NAME"), "man -l \(page): \(man.stderr)")
        }

        let uninstall = try Shell.run("\(Shell.quote(script)) --uninstall \(Shell.quote(prefix.path))")
        #expect(uninstall.status == 0, "uninstall: \(uninstall.stderr)")
        let left = try Shell.run("find \(Shell.quote(prefix.path)) -type f")
        #expect(left.stdout.isEmpty, "left behind: \(left.stdout)")
    }

    @Test("every plain target builds in release, as install.sh builds them: no @testable import outside test targets")
    func plainTargetsNeedNoTestability() throws {
        // install.sh and the benchmarks build every target with -c release, where @testable
        // does not compile; the test support and the stand-ins are plain targets too.
        let folders = ["Sources", "Tests/DiaryTestSupport", "Tests/FakeServers"]
            .map { Shell.quote(DocumentationTests.repository.appendingPathComponent($0).path) }.joined(separator: " ")
        let found = try Shell.run("grep -rln '^@testable import' \(folders) || true")
        #expect(found.status == 0 && found.stdout.isEmpty, "@testable import in a plain target: \(found.stdout)")
    }
}

/// `bash -c` for the tools the tests drive (nm, readelf, groff, man, the install script).
enum Shell {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static func run(_ command: String) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", command]
        // stderr goes to a file, so stdout can be read to its end without either pipe filling up.
        let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("diary-shell-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorFile) }
        let errorHandle = try FileHandle(forWritingTo: errorFile)
        let out = Pipe()
        process.standardOutput = out
        process.standardError = errorHandle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let outputData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try errorHandle.close()
        return Result(status: process.terminationStatus, stdout: String(decoding: outputData, as: UTF8.self),
                      stderr: (try? String(contentsOf: errorFile, encoding: .utf8)) ?? "")
    }

    /// The text as one single-quoted shell word.
    static func quote(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
}
