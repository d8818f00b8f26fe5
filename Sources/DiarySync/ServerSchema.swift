import DiaryKit
import SyncSession
/// The server side of sync, shipped as SQL: the `diary` schema on Postgres (or Supabase)
/// with its tables, row-level security, privileges and the functions the client calls
/// (`push`, `pull`, the media chunk functions, `add_user`, `whoami`, `delete_account`).
/// `diary-sync server-init` runs it statement by statement inside one transaction under an
/// advisory lock; an operator may also paste it into Supabase's SQL editor. The contract
/// it implements is the sync protocol: records travel in the archive's JSON shape, each
/// person sees only their own rows, and a person's changes are numbered in commit order.
package enum ServerSchema {
    /// The newest version this build knows.
    package static let version = 11
    /// The whole script: idempotent, safe to paste into Supabase's SQL editor or to re-run.
    /// Its text is the `.sql` files in `ServerSQL/`, in the order of their names (embedded at
    /// build time by the EmbedSQL plugin, so the installed tools need no files beside
    /// them); each `{{name}}` in them is a check made below from the record's fields.
    package static let script: String = assemble(EmbeddedSQL.files)

    /// The files joined, each `{{name}}` replaced by its generated SQL.
    static func assemble(_ files: [(name: String, text: String)]) -> String {
        var text = files.map(\.text).joined()
        if text.hasSuffix("\n") { text.removeLast() }
        for (name, sql) in generated {
            text = text.replacingOccurrences(of: "{{" + name + "}}", with: sql)
        }
        precondition(!text.contains("{{"), "a {{name}} in ServerSQL/ that nothing generates")
        return text
    }

    /// The SQL each `{{name}}` of the files stands for.
    private static let generated: [String: String] = [
        "time_form": WrittenForm.time.pattern,
        "count_form": WrittenForm.count.pattern,
        "id_form": WrittenForm.id.pattern,
        "hlc_form": WrittenForm.hlc.pattern,
        "tag_name_remains": tagNameRemains,
        "field_kind_tests": fieldKinds.map { "                WHEN '\($0.rawValue)' THEN " + test($0, "v") }.joined(separator: "\n"),
        "unreadable_identity": firstUnreadable("rec", path: "''", Fields.identity),
        "statuses": statuses,
        "unreadable_clock_fields": firstUnreadable("rec", path: "''", Fields.clock + Fields.own),
        "unreadable_place": firstUnreadable("rec->'context'", path: "'context.'", Fields.place),
        "unreadable_weather": firstUnreadable("weather", path: "'context.weather.'", Fields.weather),
        "clock_parts": Fields.clockParts.map { "'\($0)'" }.joined(separator: ", "),
        "parts_apart": partsApart.map { "'\($0.rawValue)'" }.joined(separator: ", "),
        "fields_apart": partsApart.flatMap(EntryRecord.fields(of:)).map { "'\($0.name)'" }.joined(separator: ", "),
        "stored_fields_apart": partsApart.flatMap(EntryRecord.fields(of:)).map { "'\($0.name)', stored->'\($0.name)'" }.joined(separator: ", "),
        "part_fields": "CASE part" + partsApart.map { part in
            " WHEN '\(part.rawValue)' THEN ARRAY[" + EntryRecord.fields(of: part).map { "'\($0.name)'" }.joined(separator: ", ") + "]"
        }.joined() + " END",
        "unreadable_media": firstUnreadable("child", path: "format('media[%s].', n)", Fields.media),
        "media_kinds": mediaKinds,
        "authors": authors,
        "unreadable_message": firstUnreadable("child", path: "format('messages[%s].', n)", Fields.message),
        "unreadable_tag_link": firstUnreadable("child", path: "format('tag_links[%s].', n)", Fields.tagLink),
        "entry_shaped": entryShaped("p.rec"),
        "items_shaped": itemsShaped("batch"),
        "entry_forms_match": entryFormsMatch("batch"),
        // Each list of an entry's items adds its clocks to the batch's.
        "item_clocks": itemShapes.map { """

                UNION ALL
                SELECT c.value->>'hlc', c.value->>'device_id', (c.value->>'created_at')::timestamptz, NULL, (c.value->>'deleted_at')::timestamptz
                  FROM \(batchItems("batch", $0.part))
    """ }.joined(),
    ]

    /// The parts of an entry that merge apart from its content (`EntryRecord.fields` says which
    /// fields each holds).
    private static let partsApart = FieldClocks.Part.allCases.filter { $0 != .content }
    /// Every status an entry can have, every kind of media, every author of a message: SQL lists.
    private static let statuses = EntryStatus.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")
    private static let mediaKinds = MediaKind.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")
    private static let authors = Author.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")

    // MARK: What a client can read

    /// What a record's field must be, named as `diary.unreadable_field` names it: a kind of
    /// value, and whether it may be left out ("?"; `text` is a string that may be).
    enum FieldKind: String {
        case string, text, time, id, count, digest, hlc
        case optionalTime = "time?", optionalCount = "count?", optionalFinite = "finite?", optionalBool = "bool?"
        case optionalDigest = "digest?", optionalHLC = "hlc?"

        /// The kind of value it holds when given.
        var value: ValueKind {
            switch self {
            case .string, .text: .string
            case .time, .optionalTime: .time
            case .id: .id
            case .count, .optionalCount: .count
            case .optionalFinite: .finite
            case .optionalBool: .bool
            case .digest, .optionalDigest: .digest
            case .hlc, .optionalHLC: .hlc
            }
        }

        /// True when absent or null is fine.
        var isOptional: Bool {
            switch self {
            case .string, .time, .id, .count, .digest, .hlc: false
            case .text, .optionalTime, .optionalCount, .optionalFinite, .optionalBool, .optionalDigest, .optionalHLC: true
            }
        }
    }

    /// A value's kind as the checks know it.
    enum ValueKind {
        case string, time, id, count, finite, bool, digest, hlc

        /// Its JSON type.
        var jsonType: String {
            switch self {
            case .string, .time, .id, .digest, .hlc: "string"
            case .count, .finite: "number"
            case .bool: "boolean"
            }
        }

        /// The written form its text must take, for the kinds that have one.
        var form: WrittenForm? {
            switch self {
            case .time: .time
            case .id: .id
            case .count: .count
            case .digest: .digest
            case .hlc: .hlc
            case .string, .finite, .bool: nil
            }
        }
    }

    /// The field kinds `diary.unreadable_field` knows, each with its SQL test: the same test
    /// serves the check of a whole item at once and the search for the field that failed.
    private static let fieldKinds: [FieldKind] = [.string, .text, .time, .optionalTime, .id, .count, .optionalCount,
                                                  .optionalFinite, .optionalBool, .digest, .optionalDigest, .hlc]

    /// The SQL that is true when `value` (a jsonb expression) is readable as `kind`.
    private static func test(_ kind: FieldKind, _ value: String) -> String {
        let given: String = switch kind.value {
        case .string: "jsonb_typeof(\(value)) = 'string'"
        case .time: "diary.is_time(\(value))"
        case .id: "diary.is_id(\(value))"
        case .count: "diary.is_count(\(value))"
        case .finite: "diary.is_finite(\(value))"
        case .bool: "jsonb_typeof(\(value)) = 'boolean'"
        case .digest: "(jsonb_typeof(\(value)) = 'string' AND length(\(value) #>> '{}') = 64 AND (\(value) #>> '{}') ~ '^\(WrittenForm.digest.pattern)$')"
        case .hlc: "diary.is_hlc(\(value))"
        }
        return kind.isOptional ? "(NOT diary.is_given(\(value)) OR \(given))" : given
    }

    /// The SQL that is true when `check(kind, value)` holds for every one of `fields` of
    /// `item` (NULL counts as no).
    private static func every(_ item: String, _ fields: [Field], _ check: (FieldKind, String) -> String) -> String {
        "(" + fields.map { check($0.1, "(\(item) -> '\($0.0)')") }.joined(separator: " AND ") + ")"
    }

    /// An expression naming the first of `fields` of `item` a client could not read, or NULL.
    /// All are tested in one expression first; only when that fails does
    /// `diary.unreadable_field` go field by field to name the one (most records are fine, and
    /// one expression costs a fraction of a loop over the fields).
    private static func firstUnreadable(_ item: String, path: String, _ fields: [Field]) -> String {
        let spec = fields.map { "'\($0.0)', '\($0.1.rawValue)'" }.joined(separator: ", ")
        return "CASE WHEN coalesce(\(every(item, fields, test)), false) THEN NULL ELSE diary.unreadable_field(\(item), \(path), ARRAY[\(spec)]) END"
    }

    // MARK: The same rules, for a whole batch at once (diary.batch_readable)

    /// A written form values are matched against, as a pattern without anchors: the
    /// single-value tests (`diary.is_time`, `is_id`, `is_count`, digests) and the batch's
    /// matches use the same. Batches match the forms in the order of their names.
    enum WrittenForm: String, Comparable {
        case count, digest, ext, hlc, id, time
        case orderKey = "order_key", tagName = "tag_name"

        var pattern: String {
            switch self {
            case .time: timeForm
            case .id: "[0-9a-f-]+"
            case .hlc: hlcForm
            case .digest: "[0-9a-f]+"
            case .count: "[0-9]+"
            case .orderKey: "[0-9a-z]*[1-9a-z]"
            case .ext: "[a-z0-9]+"
            case .tagName: "[^\\n]*\(tagNameRemains)[^\\n]*"
            }
        }

        static func < (a: WrittenForm, b: WrittenForm) -> Bool { a.rawValue < b.rawValue }
    }

    /// YYYY-MM-DD(T| )HH:MM:SS[.fff](Z|±HH:MM), as `diary.is_time` takes it.
    private static let timeForm = "[0-9][0-9][0-9][0-9]-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])[T ](?:[01][0-9]|2[0-3]):[0-5][0-9]:(?:[0-5][0-9]|60)(?:\\.[0-9]+)?(?:[Zz]|[+-][0-9][0-9]:[0-9][0-9])"
    /// 15 digits '.' 6 digits '.' something, as `diary.is_hlc` takes it (written out: bounded
    /// repeats make large automata). No form may match a newline, which ends each value.
    private static let hlcForm = String(repeating: "[0-9]", count: 15) + "\\." + String(repeating: "[0-9]", count: 6) + "\\.[^\\n]+"

    /// The SQL that is true when `value` has the type and size of `kind`; its written form is
    /// matched apart (`formValues`). The value is looked up once where the type alone decides
    /// (a lookup copies the value out of the record, and most fields are optional text).
    private static func shaped(_ kind: FieldKind, _ value: String) -> String {
        let type = kind.value.jsonType
        let typed = kind.isOptional ? "coalesce(jsonb_typeof(\(value)), 'null') IN ('\(type)', 'null')" : "jsonb_typeof(\(value)) = '\(type)'"
        let size: String? = switch kind.value {
        case .id: "length(\(value) #>> '{}') <= 64"
        case .digest: "length(\(value) #>> '{}') = 64"
        case .count: "length(\(value) #>> '{}') <= 19 AND (\(value) #>> '{}')::numeric <= 9223372036854775807"
        case .finite: "abs((\(value) #>> '{}')::numeric) < 1e308"
        case .string, .time, .bool, .hlc: nil
        }
        guard let size else { return typed }
        // A JSON null's text is SQL NULL: an optional value not given passes its size.
        return "(\(typed) AND coalesce(\(size), true))"
    }

    /// The SQL that is true when every one of `fields` of `item` has its type and size.
    private static func allShaped(_ item: String, _ fields: [Field]) -> String { every(item, fields, shaped) }

    /// The values of `fields` of `item` that have a written form, each with its form.
    private static func formValues(_ item: String, _ fields: [Field]) -> [(form: WrittenForm, sql: String)] {
        fields.compactMap { field, kind in kind.value.form.map { ($0, "\(item)->>'\(field)'") } }
    }

    /// A sub-query, true when each of `values` (over the rows `from`) has its written form:
    /// per form, all rows' values in one string, a line each, matched once; and no value holds
    /// a newline, which would hide where it ends.
    private static func formsMatch(_ values: [(form: WrittenForm, sql: String)], from: String) -> String {
        let byForm = Dictionary(grouping: values, by: \.form)
        let matches = byForm.keys.sorted().map { form in
            // Each value given starts a line; a value not given adds nothing.
            let lines = "concat(" + byForm[form]!.map { "E'\\n' || (\($0.sql))" }.joined(separator: ", ") + ")"
            return "coalesce(string_agg(\(lines), '') ~ '^(?:\\n\(form.pattern))*$', true)"
        }
        let oneLineEach = "coalesce(bool_and(strpos(concat(\(values.map(\.sql).joined(separator: ", "))), E'\\n') = 0), true)"
        return "(SELECT " + (matches + [oneLineEach]).joined(separator: "\n                    AND ") + "\n                  FROM \(from))"
    }

    /// The SQL that is true when the entry record `rec` passes every check of
    /// `diary.unreadable_entry_field` but the written forms.
    private static func entryShaped(_ rec: String) -> String {
        func given(_ value: String) -> String { "diary.is_given(\(value))" }
        func isList(_ part: String) -> String {
            let list = "\(rec)->'\(part)'"
            return "(NOT \(given(list)) OR jsonb_typeof(\(list)) = 'array')"
        }
        let context = "\(rec)->'context'", weather = "\(rec)->'context'->'weather'"
        let reflection = "\(rec)->'reflection'", clocks = "\(rec)->'field_clocks'", orderKey = "\(rec)->'order_key'"
        var checks: [String] = [
            "jsonb_typeof(\(rec)) = 'object' AND \(rec)->'kind' = '\"entry\"'",
            allShaped(rec, Fields.identity),
            "EXISTS (SELECT 1 FROM diary.time_zone z WHERE z.name = \(rec)->>'time_zone')",
            "\(rec)->>'status' IN (\(statuses)) AND jsonb_typeof(\(rec)->'status') = 'string'",
            allShaped(rec, Fields.clock + Fields.own),
        ]
        let weatherShaped: String = "(jsonb_typeof(\(weather)) IS DISTINCT FROM 'object' OR \(allShaped(weather, Fields.weather)))"
        checks.append("(NOT \(given(context)) OR (jsonb_typeof(\(context)) = 'object' AND \(allShaped(context, Fields.place))"
                      + "\n                 AND \(weatherShaped)))")
        let reflectionParts: String = ["period", "from", "to"].map { " AND jsonb_typeof(\(reflection)->'\($0)') = 'string'" }.joined()
        checks.append("(NOT \(given(reflection)) OR (jsonb_typeof(\(reflection)) = 'object'\(reflectionParts) AND jsonb_typeof(\(reflection)->'cites') = 'array'"
                      + "\n                 AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(\(reflection)->'cites') c WHERE jsonb_typeof(c.value) <> 'string')))")
        let clockParts: String = Fields.clockParts.map { " AND \(shaped(.optionalHLC, "\(clocks)->'\($0)'"))" }.joined()
        checks.append("(NOT \(given(clocks)) OR (jsonb_typeof(\(clocks)) = 'object'\(clockParts)))")
        checks.append("(NOT \(given(orderKey)) OR length(\(rec)->>'order_key') <= 64)")
        checks += itemShapes.map { isList($0.part) }
        return checks.joined(separator: "\n        AND ")
    }

    /// What each item of an entry's lists must be (but the written forms), as SQL on `c.value`.
    private static let itemShapes: [(part: String, test: String)] = [
        ("media", "c.value->>'kind' IN (\(mediaKinds)) AND jsonb_typeof(c.value->'kind') = 'string'"
            + " AND \(allShaped("c.value", Fields.media)) AND length(c.value->>'ext') <= 8"),
        ("messages", "c.value->>'author' IN (\(authors)) AND jsonb_typeof(c.value->'author') = 'string'"
            + " AND \(allShaped("c.value", Fields.message))"),
        ("tag_links", "jsonb_typeof(c.value->'name') = 'string' AND \(allShaped("c.value", Fields.tagLink))"),
    ]

    /// Rows `c(value)`: every item of the list `part` of every record of `batch`, in one scan
    /// of the batch. A list that is null is no list (lax `[*]` would take the null for an
    /// item); one that is neither null nor a list is refused by the record's own checks.
    private static func batchItems(_ batch: String, _ part: String) -> String {
        #"jsonb_path_query(\#(batch), '$[*].record ? (@.\#(part).type() != "null").\#(part)[*]') c(value)"#
    }

    /// The SQL that is true when every item of every record of `batch` has its shape.
    private static func itemsShaped(_ batch: String) -> String {
        itemShapes.map { "NOT EXISTS (SELECT 1 FROM \(batchItems(batch, $0.part)) WHERE NOT coalesce(\($0.test), false))" }
            .joined(separator: "\n               AND ")
    }

    /// The SQL that is true when every value with a written form in the entry records of
    /// `batch` has it: the records' own fields, then each list of items.
    private static func entryFormsMatch(_ batch: String) -> String {
        let records = "diary.batch_items(\(batch)) p"
        let entry = formValues("p.rec", Fields.identity + Fields.clock + Fields.own)
            + formValues("(p.rec->'context'->'weather')", Fields.weather)
            + formValues("(p.rec->'field_clocks')", Fields.clockParts.map { ($0, .hlc) }) + [(.orderKey, "p.rec->>'order_key'")]
        return [formsMatch(entry, from: records),
                formsMatch(formValues("c.value", Fields.media) + [(.ext, "c.value->>'ext'")], from: batchItems(batch, "media")),
                formsMatch(formValues("c.value", Fields.message), from: batchItems(batch, "messages")),
                formsMatch(formValues("c.value", Fields.tagLink) + [(.tagName, "c.value->>'name'")], from: batchItems(batch, "tag_links"))]
            .joined(separator: "\n            AND ")
    }

    /// A tag name is read trimmed of spaces, quotes and leading '#': this pattern finds what remains.
    private static let tagNameRemains = #"[^[:space:]\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"''「」『』#＂＃＇]"#

    /// A field of a record: its name and what it must be.
    typealias Field = (name: String, kind: FieldKind)

    /// The fields of a record's parts and what each must be, in the order they are checked.
    private enum Fields {
        static let identity: [Field] = [("id", .id)] + EntryRecord.fields.compactMap { field in
            if case .zone = field.value { (field.name, .string) } else { nil }
        }
        static let clock: [Field] = [("hlc", .hlc), ("device_id", .string), ("deleted_at", .optionalTime)]
        /// The entry's own fields that a kind alone checks, in the order records write them
        /// (the zone, status, context, reflection and part clocks have checks of their own).
        static let own: [Field] = EntryRecord.fields.compactMap { field in
            let kind: FieldKind? = switch field.value {
            case let .plain(value): Fields.kind(value)
            case .orderKey: .text
            case .zone, .status, .context, .fieldClocks, .reflection, .tagNames: nil
            }
            return kind.map { (field.name, $0) }
        }
        static let place: [Field] = context(inWeather: false)
        static let weather: [Field] = context(inWeather: true)
        private static func context(inWeather: Bool) -> [Field] {
            EntryRecord.contextFields.filter { $0.inWeather == inWeather }.compactMap { field in kind(field.value).map { (field.name, $0) } }
        }
        static let media: [Field] = items(EntryRecord.mediaFields) + clock
        static let message: [Field] = items(EntryRecord.messageFields) + clock
        static let tagLink: [Field] = items(EntryRecord.tagLinkFields) + clock
        /// The fields of an item that a kind alone checks.
        private static func items<Item>(_ fields: [ItemField<Item>]) -> [Field] {
            fields.compactMap { field in kind(field.value).map { (field.name, $0) } }
        }
        /// What a kind alone checks of a value; nil for those with checks of their own (a media
        /// kind, an author, a tag name; a file's extension is a string whose form is checked apart).
        private static func kind<Record>(_ value: FieldValue<Record>) -> FieldKind? {
            switch value {
            case .id: .id
            case .string, .fileExtension: .string
            case .text: .text
            case .time: .time
            case .optionalTime: .optionalTime
            case .flag: .optionalBool
            case .count, .byteCount: .count
            case .optionalCount: .optionalCount
            case .optionalNumber: .optionalFinite
            case .digest: .digest
            case .optionalDigest: .optionalDigest
            case .mediaKind, .author, .tagName: nil
            }
        }
        /// The parts of an entry with a clock of their own in `field_clocks`.
        static let clockParts = FieldClocks.Part.allCases.map(\.rawValue)
    }
}
