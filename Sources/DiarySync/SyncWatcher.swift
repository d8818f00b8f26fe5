import DiaryKit
import SyncSession
import Foundation

/// `diary-sync watch`: stays connected and syncs whenever something changes. Over Postgres
/// the server's NOTIFY is only a poke; every (re)connect starts with a full catch-up sync,
/// local writes are noticed within a fraction of a second, and a slow poll covers a lost poke.
///
/// Through Supabase it polls: an idle sync is one small RPC, first 5 seconds after anything
/// moved, then twice as long each quiet round up to a minute. Realtime would need a WebSocket
/// client and Realtime's own protocol, and it checks every change against every subscriber's
/// row-level security, which Supabase itself names as the limit of postgres_changes at scale;
/// one read per device a minute is cheaper for a diary written a few times a day.
package struct SyncWatcher: Sendable {
    package let store: DiaryStore
    package let credentials: Credentials
    /// Called after every sync, with what moved.
    package let synced: @Sendable (SyncReport) -> Void
    /// Called when the connection is lost (once per outage) and with the pause before retrying.
    package let problem: @Sendable (SyncError, Int) -> Void

    static let localPoll: Duration = .milliseconds(200)
    static let slowPoll: Duration = .seconds(30)
    static let longestPause = 30
    /// Supabase's polling: soonest and latest between two looks at the server.
    static let remotePoll = (first: 5, last: 60)

    package init(store: DiaryStore, credentials: Credentials, synced: @escaping @Sendable (SyncReport) -> Void,
                problem: @escaping @Sendable (SyncError, Int) -> Void) {
        self.store = store
        self.credentials = credentials
        self.synced = synced
        self.problem = problem
    }

    /// Runs until cancelled (Ctrl-C) or until the server refuses the login.
    package func run() async throws {
        var pause = 1
        var announced = false
        while !Task.isCancelled {
            do {
                try await credentials.withServer(paths: store.paths) { server in
                    try await session(server) {
                        pause = 1
                        announced = false
                    }
                }
            } catch let error as SyncError where error == .offline || error.isServerState {
                if !announced { problem(error, pause) }
                announced = true
                try await Task.sleep(for: .seconds(pause))
                pause = min(pause * 2, Self.longestPause)
            }
        }
    }

    private func session(_ server: any SyncServer, connected: () -> Void) async throws {
        let engine = try SyncEngine(store: store, credentials: credentials)
        synced(try await engine.run(server))
        connected()
        let (pokes, poke) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        // When the server is only polled, how long until the next look (seconds).
        let nextLook = Locked(Self.remotePoll.first)
        let store = store
        let connection = server as? ServerConnection
        try await withThrowingTaskGroup(of: Void.self) { group in
            if let connection {
                // The person's own random channel; a server from before schema 3 used the user id.
                let channel = try await connection.whoami()["channel"]?.stringValue
                    ?? "diary_" + credentials.userId.replacingOccurrences(of: "-", with: "")
                group.addTask {
                    try await connection.listen(channel) { poke.yield() }
                    throw SyncError.offline
                }
            }
            group.addTask {
                // Over Postgres this covers a lost poke; through Supabase it is how others' changes are seen.
                while true {
                    try await Task.sleep(for: connection == nil ? .seconds(nextLook.withLock { $0 }) : Self.slowPoll)
                    poke.yield()
                }
            }
            group.addTask {
                var mark = try store.externalChangeMark()
                while true {
                    try await Task.sleep(for: Self.localPoll)
                    let now = try store.externalChangeMark()
                    if now != mark { mark = now; poke.yield() }
                }
            }
            group.addTask {
                for await _ in pokes {
                    let report = try await engine.run(server, dueOnly: true)
                    nextLook.withLock { $0 = report.isEmpty ? min($0 * 2, Self.remotePoll.last) : Self.remotePoll.first }
                    synced(report)
                }
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }
}

extension SyncError {
    var isServerState: Bool {
        if case .serverState = self { return true }
        return false
    }
}
