import DiaryKit
import DiarySeal
import SyncSession
import Foundation

/// `diary-sync encrypt`: an account that synced in clear becomes sealed, on the server, in
/// place. One device that holds the whole diary stores the envelope, then replaces every
/// clear row by its sealed form with the same clocks (no device fetches again what it
/// already has), sends every file again sealed, and ends by removing what stayed in clear:
/// the clear files, the versions kept by merges, the receipts. Every step may be repeated,
/// so a run cut off at any point is finished by running it again. While it lasts the server
/// takes no push from any device (their changes wait, named); afterwards only sealed ones.
package struct AccountSealing: Sendable {
    package let store: DiaryStore
    package let credentials: Credentials

    package init(store: DiaryStore, credentials: Credentials) {
        self.store = store
        self.credentials = credentials
    }

    /// Where the account stands on the server.
    package enum Stage: Sendable {
        /// It syncs in clear.
        case clear
        /// Being sealed with this envelope (a run cut off, or one on another device).
        case sealing(KeyEnvelope)
        /// Sealed with this envelope.
        case sealed(KeyEnvelope)
    }

    /// What one sealing replaced.
    package struct Outcome: Sendable, Equatable {
        package var pages = 0
        package var settings = 0
        package var files = 0
    }

    /// Clear rows sent back sealed per call (the server takes at most 50).
    static let resealBatch = 50

    package func stage() async throws -> Stage {
        let me = try await credentials.withServer(paths: store.paths) { try await $0.whoami() }
        guard let json = me["envelope"], json != .null else { return .clear }
        let envelope = try KeyEnvelope(json: json)
        return me["sealing"] == .bool(true) ? .sealing(envelope) : .sealed(envelope)
    }

    /// Makes sure this device holds the whole diary before anything changes: one sync in
    /// clear, after which none of its changes may still be queued and every file the server
    /// holds must be here (the clear copies are removed at the end).
    package func prepare() async throws {
        try await credentials.withServer(paths: store.paths) { server in
            _ = try await SyncEngine(store: store, userId: credentials.userId).run(server)
            let queued = try store.ledger.state().pending
            if queued > 0 { throw SealError.changesStillQueued(queued) }
            let notHere = try await server.presentMedia(try store.ledger.mediaTransfers("down").map(\.sha256))
            if !notHere.isEmpty { throw SealError.filesNotFetched(notHere.count) }
        }
    }

    /// Seals the account with `keys`, whose envelope is `envelope`; `begun` runs once the
    /// server holds the envelope. Ends with a sealed sync, which sends what waited meanwhile.
    package func seal(_ keys: DiaryKeys, envelope: KeyEnvelope, begun: () throws -> Void) async throws -> Outcome {
        let syncKeys = SyncKeys(keys, paths: store.paths)
        return try await credentials.withServer(paths: store.paths) { server in
            let state = try await server.beginSealing(envelope.json)
            try begun()
            var outcome = Outcome()
            if state["sealing"] == .bool(true) {
                while true {
                    try await resealRows(server, keys: keys, into: &outcome)
                    outcome.files += try await sendFilesSealed(server, keys: syncKeys)
                    if try await server.finishSealing()["sealed"] == .bool(true) { break }
                }
            }
            _ = try await SyncEngine(store: store, userId: credentials.userId, keys: syncKeys).run(server)
            return outcome
        }
    }

    /// Replaces the clear entries, page by page, and the clear settings by their sealed forms.
    private func resealRows(_ server: any SyncServer, keys: DiaryKeys, into outcome: inout Outcome) async throws {
        var after = ""
        var settingsDone = false
        while true {
            let page = try await server.clearRecords(after: after, limit: 200)
            var items: [String] = []
            for json in page["entries"]?.arrayValue ?? [] {
                let id = json["id"]?.stringValue ?? "?"
                guard let record = try? EntryRecord(json: json) else { throw SealError.unreadableOnServer(id) }
                items.append(#"{"record":"# + (try keys.sealed(record)).serialized + "}")
                after = id
            }
            if !settingsDone {
                for json in page["settings"]?.arrayValue ?? [] {
                    let setting = try SettingRecord(syncJSON: json)
                    items.append(#"{"was":"# + JSON.string(setting.key).serialized + #","record":"# + (try keys.sealed(setting)).serialized + "}")
                }
                settingsDone = true
            }
            for start in stride(from: 0, to: items.count, by: Self.resealBatch) {
                let answer = try await server.reseal("[" + items[start..<min(start + Self.resealBatch, items.count)].joined(separator: ",") + "]")
                for result in answer["results"]?.arrayValue ?? [] {
                    switch result["status"]?.stringValue {
                    case "sealed": if result["was"] != nil { outcome.settings += 1 } else { outcome.pages += 1 }
                    case "gone": break
                    default: throw SyncError.serverState("reseal: " + (result["error"]?.stringValue ?? "no status"))
                    }
                }
                await FaultPoint.pause("after-reseal")
            }
            guard page["more"] == .bool(true) else { return }
        }
    }

    /// Sends every file this device holds again, sealed; returns how many it queued. Files
    /// still unsent stop the sealing before the clear copies are removed.
    private func sendFilesSealed(_ server: any SyncServer, keys: SyncKeys) async throws -> Int {
        let queued = try store.ledger.queueHeldMediaToSend()
        var report = SyncReport()
        try await SyncEngine(store: store, userId: credentials.userId, keys: keys).sendMedia(server, into: &report)
        if report.mediaOverQuota > 0 { throw SyncError.mediaSpaceFull(waiting: report.mediaOverQuota) }
        let folder = ContentAddressedFolder(store.paths.media)
        let unsent = try store.ledger.mediaTransfers("up").filter {
            folder.holds(sha256: $0.sha256, fileExtension: $0.fileExtension, bytes: $0.bytes)
        }
        if !unsent.isEmpty { throw SealError.filesNotSealed(unsent.count) }
        return queued
    }
}
