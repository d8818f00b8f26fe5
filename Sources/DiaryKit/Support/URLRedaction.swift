import Foundation

/// A URL as messages and logs may show it: no password and no secret query value, even
/// when the URL does not parse (a password with an unescaped `:`, `/` or `@` in it).
package enum URLRedaction {
    /// Query parameters whose values are secrets.
    static let secretParameters: Set<String> = [
        "api-key", "api_key", "apikey", "key", "token", "access_token", "auth", "password", "pass", "secret", "sig", "signature",
    ]

    /// `text` with everything after the user name up to the last `@` (the whole userinfo,
    /// whatever characters the password holds) and every secret query value replaced by `…`.
    package static func shown(_ text: String) -> String {
        var result = text
        let afterScheme = result.range(of: "://").map(\.upperBound) ?? result.startIndex
        // The password ends at the last '@', not the first: "bob:p@ss/w:rd@host" is all one userinfo.
        if let at = result[afterScheme...].lastIndex(of: "@") {
            let userinfo = result[afterScheme..<at]
            let user = userinfo.prefix { $0 != ":" }
            result.replaceSubrange(afterScheme..<at, with: user.count < userinfo.count ? "\(user):…" : String(user))
        }
        guard let question = result.firstIndex(of: "?") else { return result }
        let query = result[result.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            let name = pair.prefix { $0 != "=" }
            let decoded = (String(name).removingPercentEncoding ?? String(name)).lowercased()
            return secretParameters.contains(decoded) && name.count < pair.count ? "\(name)=…" : String(pair)
        }
        return String(result[...question]) + query.joined(separator: "&")
    }
}
