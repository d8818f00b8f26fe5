import DiaryKit
import Foundation

/// `diary-sync watch`: stays connected and syncs whenever something changes. The server's
/// NOTIFY is only a poke; every (re)connect starts with a full catch-up sync, local writes
/// are noticed within a fraction of a second, and a slow poll covers a lost poke.
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
                try await ServerConnection.with(credentials.address, password: credentials.password) { server in
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

    private func session(_ server: ServerConnection, connected: () -> Void) async throws {
        let engine = SyncEngine(store: store, userId: credentials.userId)
        synced(try await engine.run(server))
        connected()
        let (pokes, poke) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        // The person's own random channel; a server from before schema 3 used the user id.
        let channel = try await server.json("SELECT diary.whoami()::text")["channel"]?.stringValue
            ?? "diary_" + credentials.userId.replacingOccurrences(of: "-", with: "")
        let store = store
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await server.listen(channel) { poke.yield() }
                throw SyncError.offline
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
                while true {
                    try await Task.sleep(for: Self.slowPoll)
                    poke.yield()
                }
            }
            group.addTask {
                for await _ in pokes { synced(try await engine.run(server, dueOnly: true)) }
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
