import DiaryKit
import SyncSession
import Foundation
import Logging
import NIOCore
import NIOSSL
import PostgresNIO

/// One connection to the sync server, and the only place that speaks its wire protocol.
/// Every failure comes out as a `SyncError`; raw server messages are never shown.
package final class ServerConnection: Sendable {
    private let connection: PostgresConnection
    // Nothing is logged: a log line could carry a query, and queries carry a person's diary.
    static let logger = Logger(label: "diary-sync", factory: { _ in SwiftLogNoOpLogHandler() })

    private init(_ connection: PostgresConnection) { self.connection = connection }

    /// Connects and logs in.
    static func open(_ address: ServerAddress, password: String?, timeout: TimeAmount = .seconds(10)) async throws -> ServerConnection {
        var configuration = PostgresConnection.Configuration(
            host: address.host, port: address.port, username: address.user, password: password,
            database: address.database, tls: try tls(address))
        configuration.options.connectTimeout = timeout
        configuration.options.additionalStartupParameters = [("application_name", "diary-sync")]
        return try await translatingErrors {
            ServerConnection(try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger))
        }
    }

    private static func tls(_ address: ServerAddress) throws -> PostgresConnection.Configuration.TLS {
        var settings = TLSConfiguration.makeClientConfiguration()
        switch address.tls {
        case .disable: return .disable
        case .verifyFull: return .require(try NIOSSLContext(configuration: settings))
        case .verifyCA:
            settings.certificateVerification = .noHostnameVerification
            return .require(try NIOSSLContext(configuration: settings))
        case .prefer, .require:
            // As libpq's prefer/require: encrypted, without checking whose certificate it is.
            settings.certificateVerification = .none
            let context = try NIOSSLContext(configuration: settings)
            return address.tls == .prefer ? .prefer(context) : .require(context)
        }
    }

    /// Connects, runs `body`, and closes the connection whatever happened.
    package static func with<T: Sendable>(_ address: ServerAddress, password: String?,
                                  _ body: (ServerConnection) async throws -> T) async throws -> T {
        let server = try await open(address, password: password)
        do {
            let result = try await body(server)
            await server.close()
            return result
        } catch {
            await server.close()
            throw error
        }
    }

    /// Runs one statement of a trusted script (the project's own SQL, never input); the
    /// first column of its first row, if any.
    @discardableResult
    package func run(script statement: String) async throws -> String? {
        try await text(PostgresQuery(unsafeSQL: statement))
    }

    // A query sent on a connection the server has already closed (a restart, an idle
    // timeout) can wait forever for an answer instead of failing; check first.
    private func requireOpen() throws {
        if connection.isClosed { throw SyncError.offline }
    }

    /// Closes the connection (errors on the way out do not matter).
    func close() async { try? await connection.close() }

    /// Runs a statement and returns the first column of its first row as text, if any.
    @discardableResult
    func text(_ query: PostgresQuery) async throws -> String? {
        try await Self.translatingErrors {
            try requireOpen()
            let rows = try await connection.query(query, logger: Self.logger)
            var first: String?
            for try await row in rows where first == nil {
                first = try row.decode(String?.self)
            }
            return first
        }
    }

    /// Runs a statement whose answer is one JSON value (the sync functions).
    func json(_ query: PostgresQuery) async throws -> JSON {
        guard let text = try await text(query), let json = JSON.parse(Data(text.utf8)) else {
            throw SyncError.serverState("empty answer")
        }
        return json
    }

    /// Runs statements in one transaction.
    func transaction<T: Sendable>(_ body: @Sendable (ServerConnection) async throws -> T) async throws -> T {
        try await text("BEGIN")
        do {
            let result = try await body(self)
            try await text("COMMIT")
            return result
        } catch {
            _ = try? await text("ROLLBACK")
            throw error
        }
    }

    /// Streams `(n, bytes)` rows of a query to `body`, one at a time.
    func chunks(_ query: PostgresQuery, _ body: (Int, ByteBuffer) throws -> Void) async throws {
        try await Self.translatingErrors {
            try requireOpen()
            let rows = try await connection.query(query, logger: Self.logger)
            for try await (number, bytes) in rows.decode((Int32, ByteBuffer).self) {
                try body(Int(number), bytes)
            }
        }
    }

    /// Waits for notifications on a channel, calling `poke` for each, until the connection
    /// drops or the task is cancelled.
    func listen(_ channel: String, poke: @Sendable () async -> Void) async throws {
        try await Self.translatingErrors {
            try await connection.listen(on: channel) { notifications in
                for try await _ in notifications { await poke() }
            }
        }
    }

    /// Maps driver and server errors to what a person can act on.
    static func translatingErrors<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as SyncError {
            throw error
        } catch let error as StoreError {
            throw error
        } catch let error as PSQLError {
            throw classify(error)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            // Connection refused, reset, timed out, TLS failures: the network's doing.
            throw SyncError.offline
        }
    }

    static func classify(_ error: PSQLError) -> SyncError {
        guard error.code == .server, let state = error.serverInfo?[.sqlState] else {
            if error.code == .authMechanismRequiresPassword || error.code == .saslError { return .permissionDenied }
            return .offline
        }
        switch state {
        case "42501", "28000", "28P01": return .permissionDenied
        case "3D000", "3F000", "42883", "42P01": return .serverNotReady
        case "42710": return .userExists("")
        case "0A000": return .foreignAuth
        case "22023": return .badUserName("")
        case "42704": return .noSuchAccount("")
        // Raised by diary.count_media_bytes when a chunk would go over the person's limit.
        case "IB001": return .mediaSpaceFull(waiting: 0)
        default:
            // 08 connection, 53 resources, 57 shutting down, 40 serialization: try again later.
            if ["08", "53", "57", "40"].contains(String(state.prefix(2))) { return .offline }
            return .serverState(state)
        }
    }
}
