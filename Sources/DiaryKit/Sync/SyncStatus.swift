import Foundation

/// What `diary-sync status` reports: the outbox and whether this device is logged in.
public struct SyncStatus: Sendable {
    public var pendingChanges: Int
    public var loggedIn: Bool
    public var lastSyncAt: Date?

    /// Reads the outbox and the credentials file (its presence only; never its content).
    public static func read(store: DiaryStore) throws -> SyncStatus {
        let credentials = store.paths.stateDirectory.appendingPathComponent("credentials")
        return SyncStatus(pendingChanges: try store.pendingChangeCount(),
                          loggedIn: FileManager.default.fileExists(atPath: credentials.path),
                          lastSyncAt: nil)
    }
}
