import DiaryKit
import DiarySeal
import SyncSession
import Foundation
import NIOCore

// How a sealed diary travels: each record sealed on this device before it leaves and opened
// after it comes (DiarySeal), each file sealed chunk by chunk under a name the server cannot
// look up. The field checks the server makes on clear records are this device's job here:
// a record that would not read back is refused before it leaves, and a pulled one that does
// not open or read is set aside like any unreadable record.

/// The keys a sync seals and opens with. A device that meets an items key it lacks (made by
/// `keys rotate` on another) learns the newer envelope once, keeps it, and goes on.
package final class SyncKeys: Sendable {
    private let current: Locked<DiaryKeys>
    private let paths: DiaryPaths

    package init(_ keys: DiaryKeys, paths: DiaryPaths) {
        current = Locked(keys)
        self.paths = paths
    }

    /// The keys of this login on this device, or nil for a diary that syncs in clear.
    package static func load(_ paths: DiaryPaths, account: String) throws -> SyncKeys? {
        try KeyFile.load(paths, account: account).map { SyncKeys($0, paths: paths) }
    }

    var keys: DiaryKeys { current.withLock { $0 } }

    /// How each of these files travels sealed.
    func files(_ transfers: [MediaTransfer]) -> [SealedFile] {
        let keys = keys
        return transfers.map { SealedFile($0, keys: keys) }
    }

    /// Takes the items keys of the server's envelope; false when it has no newer one.
    func refresh(from server: any SyncServer) async throws -> Bool {
        guard let json = try await server.whoami()["envelope"], json != .null else { throw SealError.envelopeUnreadable }
        let newer = try keys.refreshed(from: try KeyEnvelope(json: json))
        guard newer.currentItemsKey > keys.currentItemsKey else { return false }
        try KeyFile.save(newer, paths)
        current.withLock { $0 = newer }
        return true
    }

    /// The record as it leaves this device, sealed after the checks a server would make, and
    /// its idempotency key: a keyed hash of the record in clear, so that the same change
    /// sealed again (new nonces) after a lost answer is still recognised as sent.
    func wire(_ record: QueuedChange.Record) throws -> (text: String, key: String) {
        let keys = keys
        switch record {
        case let .entry(entry):
            let clear = entry.json
            // What another device could not read back stops here, named, instead of reaching it.
            _ = try EntryRecord(json: clear)
            return (try keys.sealed(entry).serialized, keys.pushKey(Array(clear.serialized.utf8)))
        case let .setting(setting):
            return (try keys.sealed(setting).serialized, keys.pushKey(Array(setting.syncJSON.serialized.utf8)))
        }
    }
}

/// A file as a sealed diary's server holds it: under a keyed name, sealed chunk by chunk.
struct SealedFile {
    let sealing: SealedMedia
    /// The file as this device knows it.
    let plain: MediaTransfer

    init(_ plain: MediaTransfer, keys: DiaryKeys) {
        self.plain = plain
        sealing = SealedMedia(sha256: plain.sha256, keys: keys)
    }

    /// The transfer as the server sees it: the keyed name, the sealed size, no type.
    var wire: MediaTransfer {
        MediaTransfer(sha256: sealing.objectName, entryId: plain.entryId, fileExtension: "sealed",
                      bytes: SealedMedia.sealedSize(plainBytes: plain.bytes), mime: "application/octet-stream")
    }

    /// Writes the sealed form of the file read from `source` into the state folder's
    /// `sealing/`, where an upload reads it; the same bytes every time, so an upload cut off
    /// resumes. Nil when the file could not be read whole.
    func writeSealed(from source: Int32, paths: DiaryPaths) throws -> String? {
        let folder = paths.stateDirectory.appendingPathComponent("sealing")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent(sealing.objectName).path
        let target = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard target >= 0 else { throw StoreError.cannotCreateHome(folder.path) }
        defer { close(target) }
        guard try sealing.seal(from: source, plainBytes: plain.bytes, into: target) else {
            unlink(path)
            return nil
        }
        return path
    }
}

/// A sealed diary's envelope on the server: what a login finds, and how a new one is kept.
package enum SealedAccount {
    /// What the server holds for this person.
    package enum Found: Sendable {
        /// A sealed diary: its envelope.
        case sealed(KeyEnvelope)
        /// A diary in clear, with pages already (`hasChanges`) or none yet.
        case clear(hasChanges: Bool)
    }

    /// Looks at the person's account on the server; `saved` is false during a login, before
    /// the credentials are kept.
    package static func look(_ credentials: Credentials, paths: DiaryPaths, saved: Bool = true) async throws -> Found {
        let me = try await credentials.withServer(paths: paths, saved: saved) { try await $0.whoami() }
        if let json = me["envelope"], json != .null { return .sealed(try KeyEnvelope(json: json)) }
        return .clear(hasChanges: (me["server_seq"]?.doubleValue ?? 0) > 0)
    }

    /// Stores `envelope` as the person's (the first one seals the account).
    package static func put(_ envelope: KeyEnvelope, _ credentials: Credentials, paths: DiaryPaths, saved: Bool = true) async throws {
        try await credentials.withServer(paths: paths, saved: saved) { try await $0.putEnvelope(envelope.json) }
    }
}
