import DiaryKit
import Foundation

/// Where the sync server is: a `postgres://user[:password]@host[:port]/database?sslmode=…`
/// URL taken apart. The password, if the URL had one, is kept apart and never printed.
package struct ServerAddress: Sendable, Equatable {
    package enum TLSMode: String, Sendable {
        case disable, prefer, require
        /// `verify-ca`: the certificate must chain to a trusted authority.
        case verifyCA = "verify-ca"
        /// `verify-full`: … and be valid for the host name.
        case verifyFull = "verify-full"
    }

    package var host: String
    package var port: Int
    package var user: String
    package var database: String
    package var tls: TLSMode
    /// The password written in the URL, if any (scripts only; better given on stdin).
    package var password: String?

    /// Parses a `postgres://` or `postgresql://` URL.
    package init(_ text: String) throws(SyncError) {
        guard let components = URLComponents(string: text), ["postgres", "postgresql"].contains(components.scheme ?? ""),
              let host = components.host, !host.isEmpty, let user = components.user, !user.isEmpty else {
            throw SyncError.badAddress(URLRedaction.shown(text))
        }
        let database = String(components.path.drop { $0 == "/" })
        self.host = host
        port = components.port ?? 5432
        self.user = user.removingPercentEncoding ?? user
        self.database = database.isEmpty ? self.user : (database.removingPercentEncoding ?? database)
        password = components.password.map { $0.removingPercentEncoding ?? $0 }
        let mode = components.queryItems?.first { $0.name == "sslmode" }?.value ?? (Self.isLoopback(host) ? "disable" : "prefer")
        switch mode {
        case "disable", "allow": tls = .disable
        case "prefer": tls = .prefer
        case "require": tls = .require
        case "verify-ca": tls = .verifyCA
        case "verify-full": tls = .verifyFull
        default: throw SyncError.badAddress(URLRedaction.shown(text))
        }
    }

    /// The URL without its password: what is stored and shown.
    package var description: String {
        var components = URLComponents()
        components.scheme = "postgres"
        components.user = user
        components.host = host
        components.port = port == 5432 ? nil : port
        components.path = "/" + database
        if tls != .prefer, !(tls == .disable && Self.isLoopback(host)) {
            components.queryItems = [URLQueryItem(name: "sslmode", value: tls.rawValue)]
        }
        return components.string ?? "postgres://\(user)@\(host)/\(database)"
    }

    /// The same server as another login.
    package func asUser(_ name: String) -> ServerAddress {
        var copy = self
        copy.user = name
        copy.password = nil
        return copy
    }

    private static func isLoopback(_ host: String) -> Bool { ["localhost", "127.0.0.1", "::1", "[::1]"].contains(host) }
}
