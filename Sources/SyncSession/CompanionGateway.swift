import DiaryKit
import Foundation

/// The operator's companion gateway as this device learnt it from its last pull (F-015): an
/// OpenAI-compatible endpoint that holds the model keys, reached with the person's own
/// Supabase session; and the server's count of what they use of it (F-020), which the person
/// cannot reset by editing their diary.
package struct CompanionGateway: Sendable {
    package let url: String
    package let model: String
    /// The account has premium (F-024): no limits, and requests say so.
    package let premium: Bool
    package let tokens: SupabaseTokens

    /// The gateway, when this device is signed in through Supabase and its server names one;
    /// a Postgres login has no session token to send, so it keeps its own companions.
    package static func signedIn(paths: DiaryPaths, store: DiaryStore) throws -> CompanionGateway? {
        guard let named = try store.deviceSetting(SyncLedger.serverGatewayKey), let json = JSON.parse(Data(named.utf8)),
              let url = json["url"]?.stringValue, let model = json["model"]?.stringValue,
              case let .supabase(session)? = try? Credentials.load(paths)?.login else { return nil }
        return CompanionGateway(url: url, model: model, premium: try store.deviceSetting(SyncLedger.serverPremiumKey) == "true",
                                tokens: SupabaseTokens(session, paths: paths))
    }

    /// A token good for at least another minute, renewed one process at a time.
    package func accessToken() async throws -> String { try await tokens.current() }
}

extension CompanionGateway: UsageCounter {
    /// Counts the use with `diary.use_companion`; a refusal is the limit reached, and any
    /// other failure leaves the usage unknown, which counts as used up (the seed's rule). An
    /// ended session says so, since only logging in again helps.
    package func count(_ use: CompanionUse) async throws {
        let arguments: JSON
        switch use {
        case let .reply(entryId): arguments = .object([("what", .string("reply")), ("entry_id", .string(entryId))])
        case .page: arguments = .object([("what", .string("page")), ("zone", .string(TimeZone.current.identifier))])
        }
        let answer: JSON
        do {
            answer = try await tokens.rpc("use_companion", arguments.serialized)
        } catch let error as SyncError where error == .auth(.sessionEnded) || error == .notLoggedIn {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw CompanionError.usageUnknown
        }
        guard case let .bool(allowed)? = answer["allowed"] else { throw CompanionError.usageUnknown }
        guard allowed else {
            let limit = answer["limit"]?.integerValue.flatMap { Int(exactly: $0) } ?? 0
            switch use {
            case .reply: throw CompanionError.turnLimitReached(limit: limit)
            case .page: throw CompanionError.pageLimitReached(limit: limit)
            }
        }
    }
}
