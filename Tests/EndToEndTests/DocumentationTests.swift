import Foundation
import Testing

@Suite("Documentation matches the tools")
struct DocumentationTests {
    static var repository: URL {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }

    @Test("every flag in --help appears in the man page", arguments: ["diary-new", "diary-chat", "diary-save", "diary-find", "diary-sync"])
    func flagsAreDocumented(tool: String) throws {
        let sandbox = try Sandbox()
        var help = try sandbox.run(tool, ["--help"]).stdout
        if tool == "diary-sync" {
            for subcommand in ["sync", "push", "pull", "watch", "status", "set", "remind", "gc", "login", "logout", "delete-account", "server-init", "user-add", "quota", "backup", "export", "restore", "import"] {
                help += try sandbox.run(tool, [subcommand, "--help"]).stdout
            }
        }
        let manual = try String(contentsOf: Self.repository.appendingPathComponent("man/\(tool).1"), encoding: .utf8)
            .replacingOccurrences(of: "\\-", with: "-")
        let words = help.split(whereSeparator: { " \n,[]<>()".contains($0) }).map(String.init)
        let flags = Set(words.filter { $0.wholeMatch(of: /--[a-z][a-z-]*|-[a-z]/) != nil })
        #expect(flags.count > 3, "the help lists its flags: \(help)")
        for flag in flags.sorted() {
            #expect(manual.contains(flag), "\(tool).1 does not mention \(flag)")
        }
    }

    @Test("no text people read says AI")
    func neverSaysAI() throws {
        let sandbox = try Sandbox()
        for tool in ["diary-new", "diary-chat", "diary-save", "diary-find", "diary-sync"] {
            let help = try sandbox.run(tool, ["--help"]).stdout
            #expect(help.range(of: #"\bAI\b"#, options: .regularExpression) == nil, "\(tool) --help")
        }
        for page in ["diary-new.1", "diary-chat.1", "diary-save.1", "diary-find.1", "diary-sync.1", "diary.7"] {
            let text = try String(contentsOf: Self.repository.appendingPathComponent("man/\(page)"), encoding: .utf8)
            #expect(text.range(of: #"\bAI\b"#, options: .regularExpression) == nil, "\(page)")
        }
    }
}

@Suite("The schema documents follow the migrations and the server SQL")
struct SchemaDocumentTests {
    @Test("docs/schema.sql is what scripts/gen-schema.sh prints for a fresh diary")
    func schemaDocumentIsCurrent() throws {
        let repository = DocumentationTests.repository
        let generated = try Shell.run("\(Shell.quote(repository.appendingPathComponent("scripts/gen-schema.sh").path)) \(Shell.quote(Sandbox.binaries.path))")
        #expect(generated.status == 0, "gen-schema.sh: \(generated.stderr)")
        #expect(generated.stdout.contains("CREATE TABLE entry"), "the generator reads the real schema")
        let document = try String(contentsOf: repository.appendingPathComponent("docs/schema.sql"), encoding: .utf8)
        #expect(document == generated.stdout, "docs/schema.sql is out of date: run scripts/gen-schema.sh > docs/schema.sql")
    }

    @Test("docs/server-schema.sql is what scripts/gen-server-schema.sh prints: the SQL server-init applies")
    func serverSchemaDocumentIsCurrent() throws {
        let repository = DocumentationTests.repository
        let script = repository.appendingPathComponent("scripts/gen-server-schema.sh").path
        let generated = try Shell.run("\(Shell.quote(script)) \(Shell.quote(Sandbox.binaries.path))")
        #expect(generated.status == 0, "gen-server-schema.sh: \(generated.stderr)")
        #expect(generated.stdout.contains("CREATE OR REPLACE FUNCTION diary.push("), "the generator prints the real script")
        #expect(!generated.stdout.contains("{{"), "every generated check is filled in")
        let document = try String(contentsOf: repository.appendingPathComponent("docs/server-schema.sql"), encoding: .utf8)
        #expect(document == generated.stdout,
                "docs/server-schema.sql is out of date: run scripts/gen-server-schema.sh > docs/server-schema.sql")
    }
}
