import ArgumentParser
import CompanionClient
import DiaryCLI
import DiaryKit
import Foundation

/// `diary-new`: a draft from one photo or video (F-001), with an optional line of text (F-002).
package struct NewCommand: DiaryCommand {
    package static let configuration = CommandConfiguration(
        commandName: "diary-new",
        abstract: "Start a diary entry from a photo or a video.",
        discussion: """
            Stores the media in the diary (content-addressed, stored once however often it is added) \
            and prints the new draft: JSON Lines when piped, readable text on a terminal. \
            The InnerBloom companion's welcome goes to stderr. Continue with diary-chat; finish with diary-save.
            """,
        version: DiaryVersion.current)

    @OptionGroup package var global: GlobalOptions

    @Argument(help: ArgumentHelp("The photo (JPEG, PNG, HEIC, WebP, GIF) or video (MP4, MOV, M4V, WebM).", valueName: "file"))
    var media: String?

    @Option(name: .long, help: ArgumentHelp("A line about the moment (at most 500 characters by default).", valueName: "text"))
    var text: String?

    @Flag(name: .long, help: "Start an entry with no photo or video, just words.")
    var textOnly = false

    @Option(name: .long, help: ArgumentHelp("When it happened (2026-11-21 17:40 or RFC 3339); default: the capture time, else now.", valueName: "time"))
    var at: String?

    @Option(name: .long, help: ArgumentHelp("Where it happened.", valueName: "place"))
    var place: String?

    @Option(name: .long, help: ArgumentHelp("Where it happened as latitude,longitude (default: the photo's GPS); used for the weather.", valueName: "lat,lon"))
    var location: String?

    @Option(name: .long, help: ArgumentHelp("A voice memo (m4a, mp3, wav, ogg, flac, webm): kept with the entry and transcribed into it.", valueName: "file"))
    var voice: String?

    @Option(name: .long, help: ArgumentHelp("The companion: warm, clear, fun or empath.", valueName: "name"))
    var persona: String?

    package init() {}

    package func execute(_ context: CommandContext) async throws {
        if textOnly && media != nil { throw InputError.usage(.badOption(detail: "--text-only")) }
        guard textOnly || media != nil || voice != nil else { throw InputError.usage(.chooseMedia) }
        let coordinates = try location.map(Self.coordinates)
        let note = try text.map { try Conversation.trimmed($0, limit: context.config.textLimit) }
        let zone = TimeZone.current
        var occurredAt: Date?
        if let at {
            guard let parsed = Timestamps.parse(at, zone: zone) else { throw InputError.usage(.badDate(text: at)) }
            occurredAt = parsed
        }
        let store = try context.openStore()
        defer { context.purgeExpiredTrash(store) }
        let chosen = try context.persona(flag: persona, entryPersona: nil, store: store)
        // Set up before anything is stored, so a configuration error leaves no entry behind;
        // a companion that cannot listen only means the memo waits (said after the welcome).
        var listener: Result<Conversation, CompanionError>?
        if voice != nil {
            do { listener = .success(try context.conversation(store)) } catch let error as CompanionError { listener = .failure(error) }
        }

        var items: [MediaItem] = []
        var moment = EntryContext(place: place.flatMap { $0.isEmpty ? nil : $0 })
        if let media {
            let intake = try MediaIntake.store(URL(fileURLWithPath: media), limits: context.mediaLimits,
                                               timeZone: zone, into: context.paths.media)
            items.append(intake.item)
            moment.latitude = intake.latitude
            moment.longitude = intake.longitude
        }
        if let coordinates { (moment.latitude, moment.longitude) = coordinates }
        if let voice {
            items.append(try MediaIntake.storeVoiceMemo(URL(fileURLWithPath: voice), limits: context.mediaLimits, into: context.paths.media))
        }
        let new = NewEntry(occurredAt: occurredAt ?? items.first?.takenAt ?? Date(), timeZone: zone,
                           note: note.flatMap { $0.isEmpty ? nil : $0 }, context: moment,
                           persona: chosen.id, media: items)
        let id: String
        do {
            id = try store.createEntry(new)
        } catch {
            // The file was copied in first; take it back out unless another entry uses it.
            for item in items where (try? store.media.isReferenced(sha256: item.sha256)) == false {
                MediaIntake.remove(item, from: context.paths.media)
            }
            throw error
        }
        MediaPreviews.ensure(items, store: store)
        context.say(.welcome(companion: chosen.title(context.language)))
        if let memo = items.first(where: { $0.kind == .audio }), let listener {
            try await transcribe(memo, entryId: id, with: listener, context: context, store: store)
        }
        let entry = try store.entry(id: id)
        if context.json {
            try Output.json(Rendering.entryJSON(entry, paths: context.paths))
        } else {
            try Output.line(Rendering.entryRow(entry, language: context.language))
        }
    }

    /// Puts the memo's words into the entry. The entry is already stored, memo included, so
    /// a failure here is a notice, not an error: `diary-chat --reanalyze` tries again.
    private func transcribe(_ memo: MediaItem, entryId: String, with listener: Result<Conversation, CompanionError>,
                            context: CommandContext, store: DiaryStore) async throws {
        do {
            let conversation = try listener.get()
            let heard = try await Interruption.cancellable { try await conversation.transcribe(memo) }
            heard.notices.forEach(context.say)
            try store.setTranscript(entryId: entryId, text: heard.text)
        } catch CompanionError.cancelled {
            context.say(.notHeard)
        } catch let error as CompanionError {
            context.say(ErrorReport.describe(error).0)
        }
    }

    /// Reads `25.13,121.74`.
    static func coordinates(_ text: String) throws -> (Double, Double) {
        let parts = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let latitude = parts[0], let longitude = parts[1],
              (-90...90).contains(latitude), (-180...180).contains(longitude) else {
            throw InputError.usage(.badOption(detail: "--location \(text) (latitude,longitude, e.g. 25.13,121.74)"))
        }
        return (latitude, longitude)
    }
}
