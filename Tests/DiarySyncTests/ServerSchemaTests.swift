@testable import DiaryKit
@testable import DiarySync
@testable import SyncSession
import FakeServers
import Foundation
import Testing
@testable import DiaryTestSupport

// The server side of sync (ServerSchema.script) against a real Postgres, through psql:
//
//     eval "$(scripts/pg-cluster.sh start /tmp/diary-pg)"
//     swift test --filter ServerSchemaTests
//     scripts/pg-cluster.sh stop /tmp/diary-pg
//
// Each test gets a database of its own with the script applied the way `diary-sync
// server-init` applies it, and people whose role names are random (roles belong to the
// whole cluster). Everything a person does goes through their own login, so row-level
// security is what is being tested, not the test's good manners.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["DIARY_TEST_PG_URL"] != nil), .serialized)
struct ServerSchemaTests {
    // MARK: The script itself

    @Test func scriptRunsTwiceAndRefusesANewerSchema() async throws {
        let server = try await SchemaServer.make()
        // Applied once already (statement by statement, as the client does); again by
        // pasting it whole, as an operator would in an SQL editor.
        try await server.applyScriptAsFile()
        try await server.applyScript()
        #expect(try await server.admin("SELECT count(*), max(version) FROM diary.schema_migration") == "1|\(ServerSchema.version)")
        #expect(try await server.admin("SELECT count(*) FROM diary.config WHERE key = 'provider'") == "0", "no provider chosen for everyone by default")

        try await server.admin("INSERT INTO diary.schema_migration (version, name) VALUES (\(ServerSchema.version + 1), 'from the future')")
        let refused = await server.attempt("BEGIN;\n" + ServerSchema.script + "\nCOMMIT;", as: nil)
        #expect(!refused.succeeded)
        #expect(refused.errors.contains("newer than this script"))
    }

    @Test func addUserChecksNames() async throws {
        let server = try await SchemaServer.make()
        let person = try await server.addPerson("dup")
        let again = await server.attempt("SELECT diary.add_user('\(person.role)', 'another password')", as: nil)
        #expect(again.sqlState == "42710")
        #expect(await server.attempt("SELECT diary.add_user('Not-A-Name', 'secret')", as: nil).sqlState == "22023")
        #expect(await server.attempt("SELECT diary.add_user('9lives', 'secret')", as: nil).sqlState == "22023")
        // Somebody without an account (here the admin) is refused with 42501, not answered empty.
        #expect(await server.attempt("SELECT diary.whoami()", as: nil).sqlState == "42501")
        #expect(await server.attempt("SELECT diary.pull(0, 10)", as: nil).sqlState == "42501")
        let who = try await server.json("SELECT diary.whoami()", as: person)
        #expect(who["user_id"]?.stringValue == person.id)
        #expect(who["role"]?.stringValue == person.role)
        #expect(who["server_seq"]?.doubleValue == 0)
    }

    // MARK: Isolation

    @Test func peopleOnlyEverSeeTheirOwnRows() async throws {
        let server = try await SchemaServer.make()
        let alice = try await server.addPerson("alice")
        let bob = try await server.addPerson("bob")
        let carol = try await server.addPerson("carol")
        let clock = HLCSource()
        let entryId = randomId()
        let t1 = clock.hlc("dev-a")
        let record = Records.entry(id: entryId, hlc: t1, device: "dev-a", note: "Alice walked by the river.",
                                   media: [Records.media(id: randomId(), sha256: fakeSHA256("photo"), hlc: t1, device: "dev-a")],
                                   messages: [Records.message(id: randomId(), author: "person", text: "今天走了很久。", minute: 40, hlc: t1, device: "dev-a"),
                                              Records.message(id: randomId(), author: "companion", text: "聽起來很放鬆。", minute: 41, hlc: t1, device: "dev-a")],
                                   tagLinks: [Records.tag("family", position: 0, hlc: t1, device: "dev-a"),
                                              Records.tag("walk", position: 1, hlc: t1, device: "dev-a")])
        let pushed = try await server.push([("a-1", record)], as: alice)
        #expect(pushStatuses(pushed) == ["applied"])
        #expect(pushed["server_seq"]?.doubleValue == 1)
        try await server.run("INSERT INTO diary.media_chunk (user_id, sha256, n, bytes) VALUES (auth.uid(), '\(fakeSHA256("photo"))', 0, decode('ffd8ffe0', 'hex'))",
                       as: alice)

        // Alice gets her entry back whole.
        let pulled = try await server.pull(after: 0, max: 10, as: alice)
        let items = pulled["items"]?.arrayValue ?? []
        try #require(items.count == 1)
        #expect(items[0]["seq"]?.doubleValue == 1)
        let mine = try #require(items[0]["record"])
        #expect(mine["kind"]?.stringValue == "entry")
        #expect(mine["id"]?.stringValue == entryId)
        #expect(mine["status"]?.stringValue == "saved")
        #expect(mine["time_zone"]?.stringValue == "Asia/Taipei")
        #expect(mine["persona"]?.stringValue == "warm")
        #expect(mine["occurred_at"]?.stringValue == "2026-11-21T17:40:00.000+08:00")
        #expect(mine["hlc"]?.stringValue == t1)
        #expect(mine["device_id"]?.stringValue == "dev-a")
        #expect(mine["deleted_at"] == .null)
        #expect(mine["note"]?.stringValue == "Alice walked by the river.")
        #expect(mine["media"]?.arrayValue?.count == 1)
        #expect(mine["media"]?[0]?["sha256"]?.stringValue == fakeSHA256("photo"))
        #expect(mine["messages"]?.arrayValue?.compactMap { $0["text"]?.stringValue } == ["今天走了很久。", "聽起來很放鬆。"])
        #expect(mine["tag_links"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["family", "walk"])
        // The client can read what the server sends back.
        let decoded = try EntryRecord(json: mine)
        #expect(decoded.lines.count == 2 && decoded.media.count == 1 && decoded.tags == ["family", "walk"])

        // Bob sees nothing of hers, anywhere.
        for table in SchemaServer.personTables {
            #expect(try await server.run("SELECT count(*) FROM diary.\(table)", as: bob) == "0", "bob sees rows of \(table)")
        }
        #expect(try await server.run("SELECT count(*), min(user_id::text) FROM diary.account", as: bob) == "1|\(bob.id)")
        let bobsPull = try await server.pull(after: 0, max: 10, as: bob)
        #expect(bobsPull["items"]?.arrayValue?.isEmpty == true)
        #expect(bobsPull["server_seq"]?.doubleValue == 0)
        #expect(try await server.run("SELECT count(*) FROM diary.media_chunk WHERE sha256 = '\(fakeSHA256("photo"))'", as: bob) == "0")

        // He cannot write rows in her name, nor change or remove hers.
        let forged = await server.attempt("""
            INSERT INTO diary.entry (user_id, id, hlc, device_id, created_at, occurred_at, doc, server_seq)
            VALUES ('\(alice.id)', '\(randomId())', '\(clock.hlc("dev-b"))', 'dev-b', now(), now(), '{}', 99)
            """, as: bob)
        #expect(!forged.succeeded && forged.errors.contains("row-level security"))
        let forgedChunk = await server.attempt("""
            INSERT INTO diary.media_chunk (user_id, sha256, n, bytes) VALUES ('\(alice.id)', '\(fakeSHA256("photo"))', 1, decode('00', 'hex'))
            """, as: bob)
        #expect(!forgedChunk.succeeded)
        for table in ["entry", "media", "message", "entry_tag", "push_receipt", "media_chunk"] {
            #expect(try await server.run("WITH gone AS (DELETE FROM diary.\(table) RETURNING 1) SELECT count(*) FROM gone", as: bob) == "0")
        }
        #expect(try await server.run("WITH changed AS (UPDATE diary.entry SET doc = '{}' WHERE user_id = '\(alice.id)' RETURNING 1) SELECT count(*) FROM changed",
                               as: bob) == "0")
        #expect(try await server.run("WITH changed AS (UPDATE diary.message SET deleted = true RETURNING 1) SELECT count(*) FROM changed", as: bob) == "0")
        #expect(await server.attempt("UPDATE diary.account SET server_seq = 99 WHERE user_id = '\(alice.id)'", as: bob).sqlState == "42501")
        // The helpers push() uses take a user id, but row-level security still decides.
        #expect(await !server.attempt("SELECT diary.apply_entry('\(alice.id)', $j$\(record.serialized)$j$::jsonb, 100)", as: bob).succeeded)
        #expect(await !server.attempt("SELECT diary.keep_conflict('\(alice.id)', 'entry', '\(entryId)', 'x', 'y', '{}')", as: bob).succeeded)
        // Nor the server's own tables, nor anybody else's login.
        #expect(await server.attempt("SELECT count(*) FROM diary.deletion_audit", as: bob).sqlState == "42501")
        #expect(await server.attempt("SELECT count(*) FROM diary.schema_migration", as: bob).sqlState == "42501")
        #expect(await server.attempt("UPDATE diary.config SET value = '\"remote\"' WHERE key = 'provider'", as: bob).sqlState == "42501")
        #expect(await server.attempt("INSERT INTO diary.config VALUES ('extra', '1')", as: bob).sqlState == "42501")
        #expect(await server.attempt("SELECT diary.add_user('\(bob.role)_2', 'secret')", as: bob).sqlState == "42501")
        // Nor count her rows through the catalog, size her media, or list the logins.
        for probe in ["SELECT sum(n_live_tup) FROM pg_stat_user_tables", "SELECT n_live_tup FROM pg_stat_all_tables WHERE relname = 'entry'",
                      "SELECT pg_stat_get_live_tuples('diary.entry'::regclass)", "SELECT pg_total_relation_size('diary.media_chunk')",
                      "SELECT pg_relation_size('diary.entry')", "SELECT pg_database_size(current_database())",
                      "SELECT heap_blks_read FROM pg_statio_user_tables", "SELECT rolname FROM pg_roles", "SELECT usename FROM pg_user"] {
            #expect(await server.attempt(probe, as: bob).sqlState == "42501", "\(probe)")
        }
        // Devices are woken on a random channel of the person's own, not one named after the user id.
        let channels = try await server.admin("SELECT channel FROM diary.account WHERE user_id IN ('\(alice.id)', '\(bob.id)') ORDER BY user_id")
        let parts = channels.split(separator: "\n").map(String.init)
        #expect(parts.count == 2 && Set(parts).count == 2 && parts.allSatisfy { $0.hasPrefix("diary_") && $0.count == 38 })
        #expect(!channels.contains(alice.id.replacingOccurrences(of: "-", with: "")))
        #expect(try await server.run("SELECT count(*) FROM diary.account WHERE channel IS NOT NULL", as: bob) == "1", "only his own")
        #expect(await !server.attempt("SET ROLE \(alice.role)", as: bob).succeeded)
        #expect(await !server.attempt("SET SESSION AUTHORIZATION \(alice.role)", as: bob).succeeded)

        // Bob pushing an entry with her entry's id makes his own row; hers stays as it was.
        let bobsRecord = Records.entry(id: entryId, hlc: clock.hlc("dev-b"), device: "dev-b", note: "Bob's page")
        #expect(pushStatuses(try await server.push([("b-1", bobsRecord)], as: bob)) == ["applied"])
        #expect(try await server.pull(after: 0, max: 10, as: bob)["items"]?[0]?["record"]?["note"]?.stringValue == "Bob's page")
        #expect(try await server.pull(after: 0, max: 10, as: alice)["items"]?[0]?["record"]?["note"]?.stringValue == "Alice walked by the river.")
        #expect(try await server.admin("SELECT count(*) FROM diary.entry WHERE id = '\(entryId)'") == "2")

        // Carol deleting her account removes nothing of Alice's or Bob's.
        let before = try await server.rowCounts(of: alice) + server.rowCounts(of: bob)
        _ = try await server.run("SELECT diary.delete_account()", as: carol)
        #expect(try await server.rowCounts(of: alice) + server.rowCounts(of: bob) == before)
        #expect(try await server.admin("SELECT doc->>'note' FROM diary.entry WHERE user_id = '\(alice.id)'") == "Alice walked by the river.")
        #expect(try await server.admin("SELECT count(*) FROM diary.message WHERE user_id = '\(alice.id)'") == "2")
    }

    // MARK: push

    @Test func theSamePushTwiceIsADuplicate() async throws {
        let server = try await SchemaServer.make()
        let alice = try await server.addPerson("alice")
        let clock = HLCSource()
        let t1 = clock.hlc("dev-a")
        let record = Records.entry(id: randomId(), hlc: t1, device: "dev-a",
                                   messages: [Records.message(id: randomId(), author: "person", text: "hi", minute: 1, hlc: t1, device: "dev-a"),
                                              Records.message(id: randomId(), author: "companion", text: "hello", minute: 2, hlc: t1, device: "dev-a")])
        #expect(pushStatuses(try await server.push([("k-1", record)], as: alice)) == ["applied"])
        let again = try await server.push([("k-1", record)], as: alice)
        #expect(pushStatuses(again) == ["duplicate"])
        #expect(again["server_seq"]?.doubleValue == 1)
        #expect(try await server.admin("SELECT count(*) FROM diary.message WHERE user_id = '\(alice.id)'") == "2")
        // The same key twice in one batch: the second is a duplicate of the first.
        let other = Records.entry(id: randomId(), hlc: clock.hlc("dev-a"), device: "dev-a")
        #expect(pushStatuses(try await server.push([("k-2", other), ("k-2", other)], as: alice)) == ["applied", "duplicate"])
        // The same record under a new key changes nothing.
        #expect(pushStatuses(try await server.push([("k-3", record)], as: alice)) == ["unchanged"])
        #expect(try await server.admin("SELECT count(*) FROM diary.message WHERE user_id = '\(alice.id)'") == "2")
        #expect(try await server.admin("SELECT server_seq FROM diary.account WHERE user_id = '\(alice.id)'") == "2")
    }

    @Test func aBatchOfNewEntriesGoesInAtOnceExactlyAsItemByItem() async throws {
        let server = try await SchemaServer.make()
        let alice = try await server.addPerson("alice"), bob = try await server.addPerson("bob")
        let clock = HLCSource()
        let records = (0..<5).map { n in
            let t = clock.hlc("dev-a")
            return Records.entry(id: randomId(), hlc: t, device: "dev-a", note: "page \(n)",
                                 media: [Records.media(id: randomId(), sha256: fakeSHA256("m\(n)"), hlc: t, device: "dev-a")],
                                 messages: [Records.message(id: randomId(), author: "person", text: "hi \(n)", minute: n, hlc: t, device: "dev-a")],
                                 tagLinks: [Records.tag("海邊", position: 0, hlc: t, device: "dev-a"), Records.tag("walk", position: 1, hlc: t, device: "dev-a")])
        }
        // Alice's five arrive in one batch (all new: one statement per table); Bob's one at a
        // time, each beside a broken record, which sends the batch item by item.
        #expect(pushStatuses(try await server.push(records.enumerated().map { ("k-\($0.offset)", $0.element) }, as: alice))
                == Array(repeating: "applied", count: 5))
        // The batch wrote each entry row once; item by item, each is written and then marked as
        // the sending device's echo (the statistics show the updates once a session has ended).
        func entryUpdates() async throws -> Int {
            Int(try await server.admin("SELECT n_tup_upd FROM pg_stat_user_tables WHERE relid = 'diary.entry'::regclass")) ?? -1
        }
        try await Task.sleep(for: .seconds(1))
        let afterBatch = try await entryUpdates()
        for (n, record) in records.enumerated() {
            let broken = Records.entry(id: randomId(), hlc: clock.hlc("dev-a"), device: "dev-a").replacing("occurred_at", with: .string("later"))
            #expect(pushStatuses(try await server.push([("k-\(n)", record), ("bad-\(n)", broken)], as: bob)) == ["applied", "rejected"])
        }
        var afterOneByOne = afterBatch
        for _ in 0..<30 where afterOneByOne < afterBatch + 5 {
            try await Task.sleep(for: .milliseconds(100))
            afterOneByOne = try await entryUpdates()
        }
        #expect(afterBatch == 0 && afterOneByOne == 5, "updates: \(afterBatch), then \(afterOneByOne)")
        func rows(_ person: SchemaServer.Person) async throws -> String? {
            try await server.admin("""
                SELECT (SELECT string_agg(id || e.server_seq || coalesce(echo_of, '-') || deleted || created_at || doc::text, ',' ORDER BY id) FROM diary.entry e WHERE user_id = '\(person.id)')
                    || (SELECT string_agg(id || entry_id || hlc || doc::text, ',' ORDER BY id) FROM diary.media WHERE user_id = '\(person.id)')
                    || (SELECT string_agg(id || entry_id || hlc || doc::text, ',' ORDER BY id) FROM diary.message WHERE user_id = '\(person.id)')
                    || (SELECT string_agg(entry_id || name || hlc || doc::text, ',' ORDER BY entry_id, name) FROM diary.entry_tag WHERE user_id = '\(person.id)')
                    || (SELECT string_agg(key || status, ',' ORDER BY key) FROM diary.push_receipt WHERE user_id = '\(person.id)')
                    || (SELECT server_seq FROM diary.account WHERE user_id = '\(person.id)')
                """)
        }
        let stored = try await rows(alice), alone = try await rows(bob)
        #expect(stored != nil && stored == alone)
        #expect(try await server.pull(after: 0, max: 100, as: alice)["items"]?.arrayValue?.count == 5)

        // One bad record among new ones: the batch goes item by item and only it is refused.
        let more = (0..<3).map { _ in Records.entry(id: randomId(), hlc: clock.hlc("dev-a"), device: "dev-a") }
        let statuses = pushStatuses(try await server.push([("n-0", more[0]), ("n-1", more[1].replacing("occurred_at", with: .string("yesterday"))),
                                                            ("n-2", more[2])], as: alice))
        #expect(statuses == ["applied", "rejected", "applied"])
        // A batch holding an entry the server has: merged as before, the new one beside it applied.
        let edited = records[0].replacing("note", with: .string("page 0, again")).replacing("hlc", with: .string(clock.hlc("dev-a")))
        let fresh = Records.entry(id: randomId(), hlc: clock.hlc("dev-a"), device: "dev-a")
        #expect(pushStatuses(try await server.push([("e-0", edited), ("e-1", fresh)], as: alice)) == ["applied", "applied"])
        #expect(try await server.admin("SELECT server_seq FROM diary.account WHERE user_id = '\(alice.id)'") == "9")
    }

    @Test func lastWriterWinsAndLosersAreKept() async throws {
        let server = try await SchemaServer.make()
        let alice = try await server.addPerson("alice")
        let clock = HLCSource()
        func note(_ id: String) async throws -> JSON? {
            try await server.pull(after: 0, max: 100, as: alice)["items"]?.arrayValue?.first { $0["record"]?["id"]?.stringValue == id }?["record"]
        }

        // An older version loses to a newer one, whichever arrives first, and is kept.
        let entryId = randomId()
        let older = clock.hlc("dev-a")
        let newer = clock.hlc("dev-b")
        #expect(pushStatuses(try await server.push([("1", Records.entry(id: entryId, hlc: newer, device: "dev-b", note: "newer"))], as: alice)) == ["applied"])
        #expect(pushStatuses(try await server.push([("2", Records.entry(id: entryId, hlc: older, device: "dev-a", note: "older"))], as: alice)) == ["unchanged"])
        #expect(try await note(entryId)?["note"]?.stringValue == "newer")
        #expect(try await server.run("SELECT table_name, row_id, hlc, winner_hlc, version->>'note' FROM diary.conflict", as: alice)
                == "entry|\(entryId)|\(older)|\(newer)|older")
        let newest = clock.hlc("dev-a")
        #expect(pushStatuses(try await server.push([("3", Records.entry(id: entryId, hlc: newest, device: "dev-a", note: "newest"))], as: alice)) == ["applied"])
        #expect(try await note(entryId)?["note"]?.stringValue == "newest")
        #expect(try await server.run("SELECT version->>'note' FROM diary.conflict WHERE hlc = '\(newer)'", as: alice) == "newer")

        // A tombstone beats a live version even when the live one is newer.
        let deletedAt = clock.hlc("dev-b")
        let lateEdit = clock.hlc("dev-a")
        #expect(pushStatuses(try await server.push([("4", Records.entry(id: entryId, hlc: deletedAt, device: "dev-b", note: "newest",
                                                              deletedAt: "2026-11-22T09:00:00.000+08:00"))], as: alice)) == ["applied"])
        #expect(pushStatuses(try await server.push([("5", Records.entry(id: entryId, hlc: lateEdit, device: "dev-a", note: "edited late"))],
                                         as: alice)) == ["unchanged"])
        let tombstone = try #require(try await note(entryId))
        #expect(tombstone["deleted_at"]?.stringValue == "2026-11-22T09:00:00.000+08:00")
        #expect(tombstone["hlc"]?.stringValue == deletedAt)
        #expect(try await server.run("SELECT version->>'note' FROM diary.conflict WHERE hlc = '\(lateEdit)'", as: alice) == "edited late")

        // Tag links: a newer removal beats an older add, and a newer add beats the removal.
        let tagged = randomId()
        let added = clock.hlc("dev-a")
        let staleAdd = clock.hlc("dev-b")
        let removed = clock.hlc("dev-a")
        let readded = clock.hlc("dev-b")
        func push(_ key: String, tag hlc: String, removedAt: String?) async throws -> [String] {
            pushStatuses(try await server.push([(key, Records.entry(id: tagged, hlc: added, device: "dev-a",
                                                          tagLinks: [Records.tag("walk", position: 0, hlc: hlc, device: "dev-a", deletedAt: removedAt)]))],
                                     as: alice))
        }
        #expect(try await push("t1", tag: added, removedAt: nil) == ["applied"])
        #expect(try await push("t2", tag: removed, removedAt: "2026-11-22T10:00:00.000+08:00") == ["applied"])
        #expect(try await note(tagged)?["tags"]?.arrayValue == [])
        #expect(try await note(tagged)?["tag_links"]?[0]?["deleted_at"]?.stringValue == "2026-11-22T10:00:00.000+08:00")
        #expect(try await push("t3", tag: staleAdd, removedAt: nil) == ["unchanged"])
        #expect(try await note(tagged)?["tags"]?.arrayValue == [])
        #expect(try await push("t4", tag: readded, removedAt: nil) == ["applied"])
        #expect(try await note(tagged)?["tags"]?.arrayValue == [.string("walk")])
        #expect(try await note(tagged)?["tag_links"]?[0]?["deleted_at"] == .null)
        #expect(try await server.run("SELECT count(*) FROM diary.conflict WHERE table_name = 'entry_tag' AND row_id = '\(tagged)/walk'", as: alice) == "3")

        // Messages are a union: two devices each add one to the same conversation.
        let talk = randomId()
        let first = randomId()
        let second = randomId()
        let fromA = clock.hlc("dev-a")
        let fromB = clock.hlc("dev-b")
        #expect(pushStatuses(try await server.push([("m1", Records.entry(id: talk, hlc: fromA, device: "dev-a",
                                                               messages: [Records.message(id: first, author: "person", text: "from the phone", minute: 1, hlc: fromA, device: "dev-a")]))],
                                         as: alice)) == ["applied"])
        #expect(pushStatuses(try await server.push([("m2", Records.entry(id: talk, hlc: fromB, device: "dev-b",
                                                               messages: [Records.message(id: second, author: "person", text: "from the laptop", minute: 2, hlc: fromB, device: "dev-b")]))],
                                         as: alice)) == ["applied"])
        #expect(try await note(talk)?["messages"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [first, second])
        // A message's deletion sticks; an old live copy does not bring it back.
        let removal = clock.hlc("dev-b")
        _ = try await server.push([("m3", Records.entry(id: talk, hlc: fromB, device: "dev-b",
                                                  messages: [Records.message(id: first, author: "person", text: "from the phone", minute: 1, hlc: removal,
                                                                             device: "dev-b", deletedAt: "2026-11-22T11:00:00.000+08:00")]))], as: alice)
        #expect(pushStatuses(try await server.push([("m4", Records.entry(id: talk, hlc: fromA, device: "dev-a",
                                                               messages: [Records.message(id: first, author: "person", text: "from the phone", minute: 1, hlc: fromA, device: "dev-a")]))],
                                         as: alice)) == ["unchanged"])
        #expect(try await note(talk)?["messages"]?[0]?["deleted_at"]?.stringValue == "2026-11-22T11:00:00.000+08:00")
    }

    @Test func clocksFromTheFutureAndMalformedItemsAreRejected() async throws {
        let server = try await SchemaServer.make()
        let alice = try await server.addPerson("alice")
        let clock = HLCSource()
        let twoDaysAhead = HybridTimestamp(wallMillis: HLCSource.nowMillis() + 2 * 86_400_000, counter: 0, device: "dev-a").description
        let ahead = try await server.push([("f1", Records.entry(id: randomId(), hlc: twoDaysAhead, device: "dev-a"))], as: alice)
        #expect(pushStatuses(ahead) == ["rejected"])
        #expect(ahead["results"]?[0]?["error"]?.stringValue == "clock_ahead")
        // A child's clock counts too.
        let t1 = clock.hlc("dev-a")
        let childAhead = try await server.push([("f2", Records.entry(id: randomId(), hlc: t1, device: "dev-a",
                                                               media: [Records.media(id: randomId(), sha256: fakeSHA256("x"), hlc: twoDaysAhead, device: "dev-a")]))],
                                         as: alice)
        #expect(childAhead["results"]?[0]?["error"]?.stringValue == "clock_ahead")
        #expect(try await server.admin("SELECT (SELECT count(*) FROM diary.entry) + (SELECT count(*) FROM diary.media) + (SELECT count(*) FROM diary.push_receipt)") == "0")
        #expect(try await server.admin("SELECT server_seq FROM diary.account WHERE user_id = '\(alice.id)'") == "0")
        // An hour ahead is only a fast clock.
        let hourAhead = HybridTimestamp(wallMillis: HLCSource.nowMillis() + 3_600_000, counter: 0, device: "dev-a").description
        #expect(pushStatuses(try await server.push([("f3", Records.entry(id: randomId(), hlc: hourAhead, device: "dev-a"))], as: alice)) == ["applied"])

        // One bad item in a batch is rejected; the others are applied.
        var malformed = Records.entry(id: randomId(), hlc: clock.hlc("dev-a"), device: "dev-a")
        malformed = malformed.replacing("hlc", with: .string("yesterday"))
        let batch = try await server.push([("g1", Records.entry(id: randomId(), hlc: clock.hlc("dev-a"), device: "dev-a")),
                                     ("g2", malformed),
                                     ("g3", Records.entry(id: randomId(), hlc: clock.hlc("dev-a"), device: "dev-a")),
                                     ("g4", .string("not a record")),
                                     ("g5", Records.entry(id: "NOT AN ID", hlc: clock.hlc("dev-a"), device: "dev-a")),
                                     ("g6", Records.entry(id: randomId(), hlc: clock.hlc("dev-a"), device: "dev-a")
                                         .replacing("occurred_at", with: .string("last tuesday, around noon")))], as: alice)
        #expect(pushStatuses(batch) == ["applied", "rejected", "applied", "rejected", "rejected", "rejected"])
        #expect(batch["results"]?[1]?["error"]?.stringValue?.hasPrefix("22023") == true)
        #expect(try await server.admin("SELECT count(*) FROM diary.entry WHERE user_id = '\(alice.id)'") == "3")
        #expect(try await server.admin("SELECT count(*) FROM diary.push_receipt WHERE user_id = '\(alice.id)'") == "3")
        #expect(batch["server_seq"]?.doubleValue == 3)

        // A batch of new entries is checked at once (diary.batch_clock_ms): the newest clock
        // record_clock_ms finds, or none when it would refuse one, and then the batch goes
        // record by record and only the bad one is refused.
        let fine = Records.entry(id: randomId(), hlc: clock.hlc("dev-a"), device: "dev-a",
                                 messages: [Records.message(id: randomId(), author: "person", text: "hi", minute: 2, hlc: clock.hlc("dev-a"), device: "dev-a")])
        #expect(try await server.admin("SELECT diary.batch_clock_ms(\(Records.batchLiteral(fine))) = diary.record_clock_ms($r$\(fine.serialized)$r$::jsonb)") == "t")
        let strangeClock = fine.setting("id", to: .string(randomId())).setting("field_clocks", to: .object([("mood", .string("soon"))]))
        let noDevice = fine.setting("id", to: .string(randomId())).setting("messages.0.device_id", to: .string(""))
        let noSuchDay = fine.setting("id", to: .string(randomId())).setting("messages.0.created_at", to: .string("2026-02-30T10:00:00.000Z"))
        #expect(try await server.admin("SELECT coalesce(diary.batch_clock_ms(\(Records.batchLiteral(fine, strangeClock)))::text, 'none')") == "none")
        #expect(try await server.admin("SELECT coalesce(diary.batch_clock_ms(\(Records.batchLiteral(noDevice, fine)))::text, 'none')") == "none")
        let checked = try await server.push([("h1", fine), ("h2", strangeClock), ("h3", noDevice), ("h4", noSuchDay)], as: alice)
        #expect(pushStatuses(checked) == ["applied", "rejected", "rejected", "rejected"])
        #expect(checked["results"]?[1]?["error"]?.stringValue?.contains("bad hlc soon") == true)
        #expect(try await server.admin("SELECT count(*) FROM diary.entry WHERE user_id = '\(alice.id)'") == "4")
    }

    // MARK: What the server takes, every client can read

    /// One field broken at a time: the server names the same field the client's reader
    /// names (or, for the readable ones, neither refuses), and push refuses what neither reads.
    @Test func theServerRefusesWhatNoClientCanRead() async throws {
        let server = try await SchemaServer.make()
        let alice = try await server.addPerson("alice")
        let clock = HLCSource()
        let t1 = clock.hlc("dev-a")
        let base = Records.entry(id: randomId(), hlc: t1, device: "dev-a",
                                 media: [Records.media(id: randomId(), sha256: fakeSHA256("p"), hlc: t1, device: "dev-a")],
                                 messages: [Records.message(id: randomId(), author: "person", text: "hi", minute: 41, hlc: t1, device: "dev-a")],
                                 tagLinks: [Records.tag("river", position: 0, hlc: t1, device: "dev-a")])
            .setting("edited_at", to: .string("2026-11-21T18:00:00.000+08:00")).setting("starred", to: .bool(true))
            .setting("order_key", to: .string("k1")).setting("field_clocks", to: .object([("content", .string(t1)), ("star", .null)]))
            .setting("context", to: .object([("place", .string("Tamsui")), ("latitude", .double(25.17)), ("longitude", .double(121.44)),
                                             ("weather", .object([("description", .string("clear")), ("temperature_c", .int(21))]))]))
        // (path, new value or nil to remove it, the field both must name; "" = still readable)
        let cases: [(path: String, value: JSON?, field: String)] = [
            ("id", .int(7), "id"), ("id", .string("NOT-HEX"), "id"), ("id", nil, "id"),
            ("time_zone", .string("Mars/Olympus_Mons"), "time_zone"), ("time_zone", .int(8), "time_zone"), ("time_zone", nil, "time_zone"),
            ("time_zone", .string("Europe/London"), ""), ("time_zone", .string("UTC"), ""),
            ("status", .string("published"), "status"), ("status", nil, "status"), ("status", .string("summary_failed"), ""),
            ("hlc", .string("yesterday"), "hlc"), ("hlc", .int(5), "hlc"), ("device_id", .int(5), "device_id"), ("device_id", nil, "device_id"),
            ("deleted_at", .string("soon"), "deleted_at"),
            ("created_at", .string("2026-11-21T17:40:00+0800"), "created_at"), ("created_at", .string("last tuesday"), "created_at"),
            ("created_at", nil, "created_at"), ("updated_at", .string("yesterday"), "updated_at"), ("updated_at", nil, "updated_at"),
            ("updated_at", .string("2026-11-21 17:45:00Z"), ""), ("occurred_at", .int(1234), "occurred_at"),
            ("note", .int(5), "note"), ("note", .null, ""), ("transcript", .bool(true), "transcript"), ("analysis", .array([]), "analysis"),
            ("analysis_provider", .object([]), "analysis_provider"),
            ("context", .string("beach"), "context"), ("context", .null, ""), ("context.place", .int(5), "context.place"),
            ("context.latitude", .string("north"), "context.latitude"), ("context.longitude", .bool(false), "context.longitude"),
            ("context.weather", .string("sunny"), ""), ("context.weather.description", .int(5), "context.weather.description"),
            ("context.weather.temperature_c", .string("hot"), "context.weather.temperature_c"),
            ("context.locality", .int(5), "context.locality"), ("context.country", .array([]), "context.country"),
            ("context.region", .string("New Taipei"), ""), ("context.weather.humidity_percent", .string("wet"), "context.weather.humidity_percent"),
            ("context.weather.moon_phase", .string("full"), "context.weather.moon_phase"),
            ("context.weather.sunrise", .string("dawn"), "context.weather.sunrise"),
            ("context.weather.sunset", .string("2026-11-21T09:05:00.000Z"), ""), ("context.weather.service", .int(1), "context.weather.service"),
            ("persona", nil, "persona"), ("persona", .int(3), "persona"), ("provider", .int(3), "provider"), ("title", .int(3), "title"),
            ("summary", .bool(false), "summary"), ("summarized_at", .string("x"), "summarized_at"), ("last_error", .int(1), "last_error"),
            ("digest", .int(2), "digest"), ("digest_through", .int(3), "digest_through"), ("edited_at", .string("x"), "edited_at"),
            ("starred", .string("yes"), "starred"), ("starred", .int(1), "starred"), ("starred", nil, ""), ("trashed_at", .int(5), "trashed_at"),
            ("order_key", .string("ABC"), "order_key"), ("order_key", .string("a0"), "order_key"), ("order_key", .int(5), "order_key"),
            ("field_clocks", .string("x"), "field_clocks"), ("field_clocks.content", .string("bad"), "field_clocks.content"),
            ("field_clocks.star", .int(5), "field_clocks.star"), ("field_clocks", .null, ""),
            ("media", .string("x"), "media"), ("media.0", .string("x"), "media[0].id"), ("media.0.kind", .string("gif"), "media[0].kind"), ("media.0.kind", .string("file"), ""),
            ("media.0.sha256", .string("abc"), "media[0].sha256"), ("media.0.ext", .string("JPG"), "media[0].ext"),
            ("media.0.ext", .string("jpegjpegx"), "media[0].ext"), ("media.0.ext", .int(1), "media[0].ext"),
            ("media.0.thumbnail", .string("abc"), "media[0].thumbnail"), ("media.0.thumbnail", .string(fakeSHA256("t")), ""),
            ("media.0.id", .string("X"), "media[0].id"), ("media.0.position", .int(-1), "media[0].position"),
            ("media.0.position", .double(1.5), "media[0].position"), ("media.0.position", .string("1"), "media[0].position"),
            ("media.0.hlc", .string("bad"), "media[0].hlc"), ("media.0.device_id", .int(1), "media[0].device_id"),
            ("media.0.deleted_at", .string("x"), "media[0].deleted_at"), ("media.0.mime", .int(1), "media[0].mime"),
            ("media.0.bytes", .int(-5), "media[0].bytes"), ("media.0.width", .string("4"), "media[0].width"),
            ("media.0.height", .int(-1), "media[0].height"), ("media.0.duration", .string("long"), "media[0].duration"),
            ("media.0.duration", .double(2.5), ""), ("media.0.taken_at", .string("x"), "media[0].taken_at"),
            ("messages", .object([]), "messages"), ("messages.0.author", .string("bot"), "messages[0].author"),
            ("messages.0.id", .string("Z"), "messages[0].id"), ("messages.0.persona", nil, "messages[0].persona"),
            ("messages.0.provider", .int(5), "messages[0].provider"), ("messages.0.text", .null, "messages[0].text"),
            ("messages.0.created_at", nil, "messages[0].created_at"), ("messages.0.hlc", nil, "messages[0].hlc"),
            ("tag_links.0.name", .string("  #  "), "tag_links[0].name"), ("tag_links.0.name", .string("「＃\u{3000}」"), "tag_links[0].name"),
            ("tag_links.0.name", .int(5), "tag_links[0].name"), ("tag_links.0.name", .string("#海邊"), ""),
            ("tag_links.0.position", .string("0"), "tag_links[0].position"), ("tag_links.0.created_at", .string("x"), "tag_links[0].created_at"),
            ("tag_links.0.deleted_at", .int(0), "tag_links[0].deleted_at"), ("tag_links", .null, ""),
            ("journal", .int(1), "journal"), ("journal", .string("Travel"), ""), ("media.0.anchor", .int(-1), "media[0].anchor"),
            ("media.0.anchor", .string("2"), "media[0].anchor"), ("media.0.anchor", .int(3), ""), ("tag_links.0.label", .int(1), "tag_links[0].label"),
            ("tag_links.0.label", .string("River"), ""), ("tag_links.0.label", .string("Sea"), ""),
            ("reflection", .string("week"), "reflection"), ("reflection", .null, ""),
            ("reflection", .object([("period", .string("week")), ("from", .string("2026-11-19")), ("to", .string("2026-11-25")),
                                    ("cites", .array([.string("a"), .string("b")]))]), ""),
            ("reflection", .object([("period", .string("week")), ("from", .string("2026-11-19")), ("to", .string("2026-11-25")),
                                    ("cites", .array([.int(1)]))]), "reflection"),
            ("reflection", .object([("period", .string("week")), ("to", .string("2026-11-25")), ("cites", .array([]))]), "reflection"),
            // A batch's values of one form are matched as lines of one string: a value may not pass as two.
            ("id", .string(""), "id"), ("id", .string("ab\ncd"), "id"),
            ("messages.0.created_at", .string("2026-11-21T17:40:00Z\n2026-11-21T17:41:00Z"), "messages[0].created_at"),
            ("tag_links.0.name", .string("  \n#"), "tag_links[0].name"),
            // A list that is null is no list; a null in a list is an item no one can read.
            ("messages", .null, ""), ("media", .null, ""), ("tag_links", .array([.null]), "tag_links[0].name"),
        ]
        // And every declared field, given a value of no kind it may have: a field the server's
        // checks left out would pass there.
        let declared: [(path: String, value: JSON?, field: String)] = EntryRecord.fields.compactMap { field in
            if case .tagNames = field.value { return nil }
            return (field.name, .array([.int(1)]), field.name)
        } + EntryRecord.contextFields.map { field in
            let path = field.inWeather ? "context.weather.\(field.name)" : "context.\(field.name)"
            return (path, .array([.int(1)]), path)
        } + EntryRecord.mediaFields.map { ("media.0.\($0.name)", .array([.int(1)]), "media[0].\($0.name)") }
          + EntryRecord.messageFields.map { ("messages.0.\($0.name)", .array([.int(1)]), "messages[0].\($0.name)") }
          + EntryRecord.tagLinkFields.map { ("tag_links.0.\($0.name)", .array([.int(1)]), "tag_links[0].\($0.name)") }
        let checked = cases + declared
        let records = [base] + checked.map { base.setting($0.path, to: $0.value) }
        let expected = [""] + checked.map(\.field)
        let clientFields = records.map { record -> String in
            do throws(RecordDecodingError) { _ = try EntryRecord(json: record); return "" } catch { return error.field }
        }
        let rows = records.enumerated().map { "(\($0.offset), $r$\($0.element.serialized)$r$::jsonb)" }.joined(separator: ",\n")
        // "ok" for readable: psql's output comes back trimmed, and empty first and last rows would go with it.
        let answer = try await server.admin("SELECT coalesce(diary.unreadable_entry_field(r), 'ok') FROM (VALUES \(rows)) v(n, r) ORDER BY n")
        let serverFields = answer.split(separator: "\n", omittingEmptySubsequences: false).map { $0 == "ok" ? "" : String($0) }
        try #require(serverFields.count == records.count)
        func label(_ index: Int) -> String {
            index == 0 ? "the whole record" : "\(checked[index - 1].path) = \(checked[index - 1].value?.serialized ?? "(removed)")"
        }
        for index in records.indices {
            #expect(clientFields[index] == expected[index], "client, \(label(index))")
            #expect(serverFields[index] == expected[index], "server, \(label(index))")
        }

        // A push's batch of new entries is checked at once (diary.batch_readable): the same verdicts.
        let batchAnswer = try await server.admin(
            "SELECT diary.batch_readable(jsonb_build_array(jsonb_build_object('key', 'k', 'record', r))) FROM (VALUES \(rows)) v(n, r) ORDER BY n")
        let batchVerdicts = batchAnswer.split(separator: "\n").map { $0 == "t" }
        try #require(batchVerdicts.count == records.count)
        for index in records.indices {
            #expect(batchVerdicts[index] == expected[index].isEmpty, "batch, \(label(index))")
        }
        // A batch is readable only when each of its records is.
        #expect(try await server.admin("SELECT diary.batch_readable(\(Records.batchLiteral(records[0], records[1], records[2])))") == "f")
        #expect(try await server.admin("SELECT diary.batch_readable(\(Records.batchLiteral(records[0], records[0])))") == "t")

        // Every zone name the server takes is one clients know.
        let zones = try await server.admin("SELECT name FROM diary.time_zone").split(separator: "\n").map(String.init)
        #expect(zones.count > 300)
        #expect(zones.filter { TimeZone(identifier: $0) == nil } == [])

        // Through push: the unreadable ones are refused, nothing of them is stored, the readable ones apply.
        let broken = base.setting("id", to: .string(randomId())).setting("media.0.kind", to: .string("gif"))
        let fine = base.setting("id", to: .string(randomId())).setting("media.0.id", to: .string(randomId()))
        let answered = try await server.push([("r1", broken), ("r2", fine)], as: alice)
        #expect(pushStatuses(answered) == ["rejected", "applied"])
        #expect(answered["results"]?[0]?["error"]?.stringValue?.contains("media[0].kind") == true)
        #expect(try await server.admin("SELECT count(*) FROM diary.entry") == "1")
        #expect(try await server.admin("SELECT count(*) FROM diary.media") == "1")
    }

    // MARK: pull

    @Test func pullNeverSkipsAPushThatCommitsLate() async throws {
        let server = try await SchemaServer.make()
        let alice = try await server.addPerson("alice")
        let clock = HLCSource()
        let firstId = randomId()
        let secondId = randomId()
        let first = Records.entry(id: firstId, hlc: clock.hlc("dev-a"), device: "dev-a")
        let second = Records.entry(id: secondId, hlc: clock.hlc("dev-b"), device: "dev-b")

        // Session 1 pushes inside a transaction it keeps open.
        let slow = try server.openSession(as: alice, name: "slow")
        defer { slow.close() }
        try slow.send("BEGIN;\nSELECT diary.push($j$\(Records.batch([("s-1", first)]))$j$::jsonb);\n")
        try await server.waitFor("SELECT count(*) FROM pg_stat_activity WHERE application_name = '\(slow.name)' AND state = 'idle in transaction' AND query LIKE '%diary.push%'")

        // Session 2's push waits for it on the account row.
        let quick = try server.startInBackground("SELECT diary.push($j$\(Records.batch([("s-2", second)]))$j$::jsonb);", as: alice, name: "quick")
        try await server.waitFor("SELECT count(*) FROM pg_stat_activity WHERE application_name = '\(quick.name)' AND wait_event_type = 'Lock'")
        try await Task.sleep(for: .seconds(1))
        #expect(quick.isRunning)
        // Meanwhile a pull sees neither.
        #expect(try await server.pull(after: 0, max: 10, as: alice)["items"]?.arrayValue?.isEmpty == true)

        try slow.send("COMMIT;\n")
        slow.close()
        #expect(await slow.waitForExit() == 0)
        #expect(await quick.waitForExit() == 0)

        let all = try await server.pull(after: 0, max: 10, as: alice)["items"]?.arrayValue ?? []
        #expect(all.compactMap { $0["record"]?["id"]?.stringValue } == [firstId, secondId])
        let seqs = all.compactMap { $0["seq"]?.doubleValue }
        try #require(seqs.count == 2)
        #expect(seqs[0] < seqs[1])
        // A device that pulled right after the first commit still gets the second.
        let rest = try await server.pull(after: Int64(seqs[0]), max: 10, as: alice)["items"]?.arrayValue ?? []
        #expect(rest.compactMap { $0["record"]?["id"]?.stringValue } == [secondId])
    }

    @Test func pullPagesThroughEverythingOnce() async throws {
        let server = try await SchemaServer.make()
        let alice = try await server.addPerson("alice")
        let clock = HLCSource()
        let ids = (0..<5).map { _ in randomId() }
        let settingHlc = clock.hlc("dev-a")
        var batch = ids.map { (key: "p-\($0)", record: Records.entry(id: $0, hlc: clock.hlc("dev-a"), device: "dev-a")) }
        batch.append((key: "p-setting", record: Records.setting(key: "persona", value: "calm", hlc: settingHlc, device: "dev-a")))
        _ = try await server.push(Array(batch[0..<3]), as: alice)
        _ = try await server.push(Array(batch[3...]), as: alice)

        var cursor: Int64 = 0
        var seen: [String] = []
        var pages: [Bool] = []
        for _ in 0..<3 {
            let page = try await server.pull(after: cursor, max: 2, as: alice)
            let items = page["items"]?.arrayValue ?? []
            #expect(items.count == 2)
            seen += items.compactMap { $0["record"]?["id"]?.stringValue ?? $0["record"]?["key"]?.stringValue }
            pages.append(page["more"] == .bool(true))
            cursor = Int64(page["next"]?.doubleValue ?? -1)
            #expect(page["server_seq"]?.doubleValue == 6)
        }
        #expect(pages == [true, true, false])
        #expect(seen == ids + ["persona"])
        let end = try await server.pull(after: cursor, max: 2, as: alice)
        #expect(end["items"]?.arrayValue?.isEmpty == true)
        #expect(end["next"]?.doubleValue == Double(cursor))
        #expect(end["more"] == .bool(false))
        // Settings come back in the client's shape.
        let setting = try await server.pull(after: 5, max: 1, as: alice)["items"]?[0]?["record"]
        #expect(setting?["value"]?.stringValue == "calm")
        #expect(setting?["hlc"]?.stringValue == settingHlc)
        #expect(setting?["updated_at"]?.stringValue == "2026-11-21T09:45:00.000Z")
    }

    @Test func pullWalksTheSeqIndex() async throws {
        let server = try await SchemaServer.make()
        let people = try await server.addPeople((0..<6).map { "p\($0)" })
        // A few thousand rows of several people, written directly (the admin bypasses RLS).
        for person in people {
            try await server.admin("""
                INSERT INTO diary.entry (user_id, id, hlc, device_id, created_at, occurred_at, doc, server_seq)
                SELECT '\(person.id)', 'e' || g, '001763770000123.000000.dev', 'dev', now(), now(), '{"kind": "entry"}', g
                FROM generate_series(1, 800) g;
                UPDATE diary.account SET server_seq = 800 WHERE user_id = '\(person.id)';
                """)
        }
        try await server.admin("ANALYZE")
        // auto_explain prints the plans of the statements inside pull() as notices; the
        // session then becomes the person (session_user too, so auth.uid() is theirs).
        let explained = await server.attempt("""
            LOAD 'auto_explain';
            SET auto_explain.log_min_duration = 0;
            SET auto_explain.log_nested_statements = on;
            SET auto_explain.log_level = notice;
            SET client_min_messages = notice;
            SET SESSION AUTHORIZATION \(people[2].role);
            SELECT jsonb_array_length(diary.pull(700, 50)->'items');
            """, as: nil)
        #expect(explained.succeeded)
        #expect(explained.output == "50")
        // A plain or a bitmap index scan, whichever the planner prefers for this little
        // data; never reading the whole table.
        let seqIndex = #"(Index Scan using|Index Only Scan using|Bitmap Index Scan on) entry_user_seq_idx"#
        #expect(explained.errors.range(of: seqIndex, options: .regularExpression) != nil, "\(explained.errors)")
        #expect(!explained.errors.contains("Seq Scan on entry "), "\(explained.errors)")

        // With sequential scans priced out, every statement pull() runs, auth.uid()'s lookup
        // of the login role included, must have an index to use: a seq scan left in the plan
        // means a missing index (or, as once for auth.uid(), a collation that cannot use it).
        let indexed = await server.attempt("""
            LOAD 'auto_explain';
            SET auto_explain.log_min_duration = 0;
            SET auto_explain.log_nested_statements = on;
            SET auto_explain.log_level = notice;
            SET enable_seqscan = off;
            SET SESSION AUTHORIZATION \(people[3].role);
            SELECT jsonb_array_length(diary.pull(0, 20)->'items');
            """, as: nil)
        #expect(indexed.output == "20")
        #expect(indexed.errors.contains("account_role_name_key"), "\(indexed.errors)")
        #expect(!indexed.errors.contains("Seq Scan"), "\(indexed.errors)")
    }

    // MARK: Media

    @Test func mediaChunksResumeAndFinish() async throws {
        let server = try await SchemaServer.make()
        let alice = try await server.addPerson("alice")
        let bob = try await server.addPerson("bob")
        let file = fakeSHA256("a photo")
        let name = "\(alice.id)/\(randomId())/\(file).jpg"
        func chunk(_ n: Int, _ hex: String) async throws {
            try await server.run("INSERT INTO diary.media_chunk (user_id, sha256, n, bytes) VALUES (auth.uid(), '\(file)', \(n), decode('\(hex)', 'hex')) ON CONFLICT DO NOTHING",
                           as: alice)
        }
        try await chunk(0, "00010203")
        try await chunk(2, "0809")
        try await chunk(0, "00010203")   // a retried chunk is harmless
        #expect(try await server.run("SELECT diary.missing_chunks('\(file)', 3)", as: alice) == "{1}")
        #expect(try await server.run("SELECT diary.finish_media('\(file)', 10, 3, '\(name)')", as: alice) == "f")
        #expect(try await server.run("SELECT diary.present_media(ARRAY['\(file)'])", as: alice) == "{}")
        try await chunk(1, "04050607")
        #expect(try await server.run("SELECT diary.missing_chunks('\(file)', 3)", as: alice) == "{}")
        #expect(try await server.run("SELECT diary.finish_media('\(file)', 11, 3, '\(name)')", as: alice) == "f")   // wrong size
        #expect(try await server.run("SELECT diary.finish_media('\(file)', 10, 3, '\(name)')", as: alice) == "t")
        // Nothing with no bytes is ever complete.
        let nothing = fakeSHA256("nothing")
        #expect(try await server.run("SELECT diary.finish_media('\(nothing)', 0, 0, '\(alice.id)/\(randomId())/\(nothing).jpg')", as: alice) == "f")
        #expect(try await server.run("SELECT diary.present_media(ARRAY['\(nothing)'])", as: alice) == "{}")
        #expect(try await server.run("SELECT diary.present_media(ARRAY['\(file)', '\(fakeSHA256("other"))'])", as: alice) == "{\(file)}")
        #expect(try await server.run("SELECT string_agg(encode(bytes, 'hex'), '' ORDER BY n) FROM diary.media_chunk WHERE user_id = auth.uid() AND sha256 = '\(file)'",
                               as: alice) == "00010203040506070809")
        // Bob has none of it: the same sha is a different file of his.
        #expect(try await server.run("SELECT diary.missing_chunks('\(file)', 3)", as: bob) == "{0,1,2}")
        #expect(try await server.run("SELECT diary.present_media(ARRAY['\(file)'])", as: bob) == "{}")
        #expect(try await server.run("SELECT diary.finish_media('\(file)', 10, 3, '\(name)')", as: bob) == "f")
        let empty = await server.attempt("INSERT INTO diary.media_chunk (user_id, sha256, n, bytes) VALUES (auth.uid(), 'x', 0, '')", as: bob)
        #expect(empty.sqlState == "23514")
    }

    @Test func mediaSpaceHasALimitTheOperatorSets() async throws {
        let server = try await SchemaServer.make()
        let alice = try await server.addPerson("alice")
        let bob = try await server.addPerson("bob")
        func upload(_ person: SchemaServer.Person, _ label: String, _ n: Int, bytes: Int) async -> PSQLOutcome {
            await server.attempt("""
                INSERT INTO diary.media_chunk (user_id, sha256, n, bytes)
                VALUES (auth.uid(), '\(fakeSHA256(label))', \(n), convert_to(repeat('x', \(bytes)), 'UTF8')) ON CONFLICT DO NOTHING
                """, as: person)
        }
        func quota(_ person: SchemaServer.Person?) async throws -> (limit: Double?, used: Double?) {
            let answer = try await server.json("SELECT diary.media_quota(\(person.map { "'\($0.role)'" } ?? "NULL"))", as: nil)
            return (answer["limit"]?.doubleValue, answer["used"]?.doubleValue)
        }
        // No limit until the operator sets one.
        #expect(await upload(alice, "a", 0, bytes: 1000).succeeded)
        #expect(try await quota(alice) == (nil, 1000))
        try await server.admin("SELECT diary.set_media_quota(NULL, 1500)")
        #expect(try await quota(nil) == (1500, nil))
        #expect(try await quota(bob) == (1500, 0))
        // Over the default: refused with the state the client knows, nothing counted.
        let over = await upload(alice, "a", 1, bytes: 600)
        #expect(over.sqlState == "IB001")
        #expect(try await quota(alice) == (1500, 1000))
        // A person's own limit beats the default.
        try await server.admin("SELECT diary.set_media_quota('\(alice.role)', 5000)")
        #expect(await upload(alice, "a", 1, bytes: 600).succeeded)
        #expect(await upload(alice, "a", 1, bytes: 600).succeeded, "a retried chunk is not counted twice")
        #expect(try await quota(alice) == (5000, 1600))
        #expect(await upload(bob, "b", 0, bytes: 1400).succeeded)
        #expect(await upload(bob, "b", 1, bytes: 200).sqlState == "IB001")
        // Removing chunks gives the space back; no default means no limit.
        try await server.run("DELETE FROM diary.media_chunk WHERE user_id = auth.uid() AND n = 1", as: alice)
        #expect(try await quota(alice) == (5000, 1000))
        try await server.admin("SELECT diary.set_media_quota(NULL, NULL)")
        #expect(await upload(bob, "b", 1, bytes: 200).succeeded)
        #expect(try await quota(bob) == (nil, 1600))
        // Only the operator sets or reads limits; nobody writes the counter by hand.
        #expect(await server.attempt("SELECT diary.set_media_quota('\(alice.role)', NULL)", as: alice).sqlState == "42501")
        #expect(await server.attempt("SELECT diary.media_quota('\(bob.role)')", as: alice).sqlState == "42501")
        #expect(await server.attempt("UPDATE diary.account SET media_bytes = 0", as: alice).sqlState == "42501")
        // Nor the change counter: set back, it would make the person's own pulls skip rows.
        let counter = try await server.run("SELECT server_seq FROM diary.account", as: alice)
        #expect(await server.attempt("UPDATE diary.account SET server_seq = 0", as: alice).sqlState == "42501")
        try await server.run("SELECT diary.advance_counter(0); SELECT diary.advance_counter(\(Int(counter)! + 1000));", as: alice)
        #expect(try await server.run("SELECT server_seq FROM diary.account", as: alice) == counter, "never back, never far ahead")
        #expect(await server.attempt("SELECT diary.media_quota('nobody_here')", as: nil).sqlState == "42704")
        #expect(await server.attempt("SELECT diary.set_media_quota(NULL, -1)", as: nil).sqlState == "22023")
    }

    // MARK: Accounts

    @Test func deletingAnAccountRemovesEverythingOfTheirs() async throws {
        let server = try await SchemaServer.make()
        let alice = try await server.addPerson("alice")
        let bob = try await server.addPerson("bob")
        let clock = HLCSource()
        let t1 = clock.hlc("dev-a")
        let entryId = randomId()
        let full = Records.entry(id: entryId, hlc: t1, device: "dev-a",
                                 media: [Records.media(id: randomId(), sha256: fakeSHA256("p"), hlc: t1, device: "dev-a")],
                                 messages: [Records.message(id: randomId(), author: "person", text: "hi", minute: 1, hlc: t1, device: "dev-a")],
                                 tagLinks: [Records.tag("family", position: 0, hlc: t1, device: "dev-a")])
        _ = try await server.push([("1", full), ("2", Records.setting(key: "persona", value: "calm", hlc: t1, device: "dev-a"))], as: alice)
        // A second version, so that the first is kept as a conflict.
        _ = try await server.push([("3", Records.entry(id: entryId, hlc: clock.hlc("dev-c"), device: "dev-c"))], as: alice)
        try await server.run("INSERT INTO diary.media_chunk (user_id, sha256, n, bytes) VALUES (auth.uid(), '\(fakeSHA256("p"))', 0, decode('ff', 'hex'))", as: alice)
        #expect(try await server.run("SELECT diary.finish_media('\(fakeSHA256("p"))', 1, 1, '\(alice.id)/\(entryId)/\(fakeSHA256("p")).jpg')", as: alice) == "t")
        _ = try await server.push([("1", Records.entry(id: randomId(), hlc: clock.hlc("dev-b"), device: "dev-b"))], as: bob)

        let alicesBefore = try await server.rowCounts(of: alice)
        #expect(alicesBefore.allSatisfy { $0 > 0 }, "every table should hold something of Alice's: \(alicesBefore)")
        let bobsBefore = try await server.rowCounts(of: bob)

        let removed = try await server.run("SELECT diary.delete_account()", as: alice)
        #expect(Int(removed) == alicesBefore.reduce(0, +))
        #expect(try await server.rowCounts(of: alice).allSatisfy { $0 == 0 })
        #expect(try await server.rowCounts(of: bob) == bobsBefore)

        // One audit row, which does not say whose account it was.
        let audit = try await server.admin("SELECT user_hash, rows_removed FROM diary.deletion_audit")
        let hash = try await sha256Hex(alice.id)
        #expect(audit == "\(hash)|\(removed)")
        #expect(!audit.contains(alice.id))
        // And Alice's login is gone.
        let login = await server.attempt("SELECT 1", as: alice)
        #expect(!login.succeeded)
        #expect(login.errors.contains("not permitted to log in"))
        #expect(try await server.admin("SELECT rolcanlogin FROM pg_roles WHERE rolname = '\(alice.role)'") == "f")
        #expect(try await server.run("SELECT count(*) FROM diary.entry", as: bob) == "1")
    }

    @Test func everyPersonCanReadTheConfig() async throws {
        let server = try await SchemaServer.make()
        let alice = try await server.addPerson("alice")
        #expect(try await server.run("SELECT count(*) FROM diary.config", as: alice) == "1", "the consent text, no provider by default")
        let consent = try await server.json("SELECT value FROM diary.config WHERE key = 'consent'", as: alice)
        #expect(consent["version"]?.doubleValue == 3, "version 3 says that sealing later cannot reach older backups")
        let chinese = try #require(consent["zh-Hant"]?.stringValue)
        let english = try #require(consent["en"]?.stringValue)
        #expect(chinese.contains("「InnerBloom 夥伴」"))
        #expect(english.contains("the InnerBloom companion"))
        for text in [chinese, english] {
            #expect(text.range(of: #"\bAI\b"#, options: .regularExpression) == nil)
        }
        // What is stored, who can read it, and how to take it back.
        for word in ["page", "conversations", "media", "tags", "settings", "can read", "Deleting your account", "sealed", "--no-seal", "diary-sync encrypt", "older backups"] {
            #expect(english.contains(word), "consent should mention \(word)")
        }
        let config = try await server.pull(after: 0, max: 1, as: alice)["config"]
        #expect(config?["provider"] == nil)
        #expect(config?["consent"]?["en"]?.stringValue == english)
        // An operator's choice survives re-running the script.
        try await server.admin("INSERT INTO diary.config VALUES ('provider', '\"remote\"')")
        try await server.applyScript()
        #expect(try await server.run("SELECT value #>> '{}' FROM diary.config WHERE key = 'provider'", as: alice) == "remote")
    }
}


func pushStatuses(_ answer: JSON) -> [String] {
    (answer["results"]?.arrayValue ?? []).map { $0["status"]?.stringValue ?? "?" }
}

/// The real SHA-256 of a text, by coreutils, independently of the server's own sha256().
func sha256Hex(_ text: String) async throws -> String {
    let run = try await runProcess(["sha256sum"], input: Data(text.utf8))
    return String(run.output.prefix(64))
}
