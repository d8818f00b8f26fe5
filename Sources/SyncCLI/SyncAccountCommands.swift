import ArgumentParser
import DiaryArchive
import DiaryCLI
import DiaryKit
import SyncSession
import DiarySync
import Foundation

/// The options naming a Supabase project and the person's email.
struct SupabaseOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("A Supabase project: https://xyz.supabase.co.", valueName: "url"))
    var supabase: String?

    @Option(name: .customLong("anon-key"), help: ArgumentHelp(
        "The project's anon (public) key; default: SUPABASE_ANON_KEY, else the one saved at the last login.", valueName: "key"))
    var anonKey: String?

    @Option(name: .long, help: ArgumentHelp("Your email address (with --supabase).", valueName: "address"))
    var email: String?

    init() {}

    /// The project, its key from the flag, the environment or this device's last login.
    func project(_ context: CommandContext, url: String) throws -> SupabaseProject {
        var saved: String?
        if case let .supabase(session)? = (try? Credentials.load(context.paths))?.login { saved = session.project.anonKey }
        guard let key = anonKey ?? context.environment["SUPABASE_ANON_KEY"] ?? saved else { throw SyncError.anonKeyNeeded }
        return try SupabaseProject(url: url, anonKey: key)
    }

    func requireEmail() throws -> String {
        guard let email, !email.isEmpty else { throw InputError.usage(.badOption(detail: "--email")) }
        return email
    }
}

/// `diary-sync signup`: a new account on a Supabase project.
struct SignupCommand: ServerTaskCommand {
    static let configuration = CommandConfiguration(
        commandName: "signup",
        abstract: "Create an account on a Supabase project with your email and a password, and log this device in.",
        discussion: """
            Asks for the new password on the terminal (or reads it with --password-stdin). When the \
            project confirms email addresses first, a confirmation email is sent: open its link, then \
            run diary-sync login. The session is kept in a 0600 file under $XDG_STATE_HOME/diary/.
            """)

    @OptionGroup package var global: GlobalOptions
    @OptionGroup var supabase: SupabaseOptions
    @OptionGroup var sealing: SealingOptions

    @Flag(name: .customLong("password-stdin"), help: "Read the password from standard input (for scripts).")
    var passwordStdin = false

    @Flag(name: .customLong("accept-consent"), help: "Accept the server's terms without asking (for scripts; they are still printed).")
    var acceptConsent = false

    init() {}

    func perform(_ context: CommandContext) async throws {
        guard let url = supabase.supabase else { throw InputError.usage(.badOption(detail: "--supabase")) }
        let project = try supabase.project(context, url: url)
        let email = try supabase.requireEmail()
        let store = try context.openStore()
        guard let password = passwordStdin ? try Prompt.readStdinLine() : context.askSecret(.newPasswordPrompt(email: email)) else {
            throw SyncError.passwordNeeded
        }
        switch try await project.signUp(email: email, password: password) {
        case .confirmationSent:
            context.say(.confirmationSent(email: email))
        case let .session(session, _):
            try await LoginCommand.finish(session, context: context, store: store, acceptConsent: acceptConsent, sealing: sealing)
        }
    }
}

/// `diary-sync login`: connect this device to a person's account.
struct LoginCommand: ServerTaskCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Log this device in to a sync server: Postgres (--url) or a Supabase project (--supabase).",
        discussion: """
            With --url, the password is asked on the terminal and kept in a 0600 file under \
            $XDG_STATE_HOME/diary/. With --supabase and --email, type your password, or press Enter \
            to get a one-time code by email and type that; scripts use --password-stdin, or \
            --send-code and then --code-stdin. The session's tokens are kept in the same 0600 file and \
            renewed by themselves; they are never in the diary, a log or a message. The server's terms \
            are shown once and must be accepted. A new account is sealed: you choose a diary passphrase \
            (asked twice; not the login password) and a recovery key is printed once; the server then \
            keeps only what it cannot read. On another device the same passphrase opens it; with a lost \
            passphrase, --recovery-key - opens it and sets a new one. --no-seal keeps a new account in \
            clear. After logging in, run diary-sync (or diary-sync watch).
            """)

    @OptionGroup package var global: GlobalOptions
    @OptionGroup var supabase: SupabaseOptions
    @OptionGroup var sealing: SealingOptions

    @Option(name: .long, help: ArgumentHelp("A Postgres server: postgres://user@host[:port]/database[?sslmode=…].", valueName: "url"))
    var url: String?

    @Flag(name: .customLong("password-stdin"), help: "Read the password from standard input (for scripts).")
    var passwordStdin = false

    @Flag(name: .customLong("send-code"), help: "Email a one-time code and stop (with --supabase); then log in with --code-stdin.")
    var sendCode = false

    @Flag(name: .customLong("code-stdin"), help: "Read the emailed one-time code from standard input (with --supabase).")
    var codeStdin = false

    @Flag(name: .customLong("accept-consent"), help: "Accept the server's terms without asking (for scripts; they are still printed).")
    var acceptConsent = false

    init() {}

    func perform(_ context: CommandContext) async throws {
        switch (url, supabase.supabase) {
        case let (url?, nil): try await logInToPostgres(url, context: context)
        case let (nil, project?): try await logInToSupabase(project, context: context)
        default: throw InputError.usage(.badOption(detail: "--url | --supabase"))
        }
    }

    private func logInToPostgres(_ url: String, context: CommandContext) async throws {
        let address = try ServerAddress(url)
        let password = try Prompt.password(context, address: address, fromStdin: passwordStdin)
        let store = try context.openStore()
        let (userId, consent) = try await Accounts.verifyLogin(address, password: password)
        let credentials = Credentials(address: address.asUser(address.user), password: password, userId: userId)
        try await Self.save(credentials, consent: consent, context: context, store: store, acceptConsent: acceptConsent, sealing: sealing)
    }

    private func logInToSupabase(_ url: String, context: CommandContext) async throws {
        let project = try supabase.project(context, url: url)
        let email = try supabase.requireEmail()
        if sendCode {
            try await project.sendCode(email: email)
            context.say(.codeSent(email: email))
            return
        }
        let store = try context.openStore()
        let session: SupabaseSession
        if codeStdin {
            session = try await project.verify(email: email, code: try Prompt.readStdinLine()).0
        } else if passwordStdin {
            session = try await project.logIn(email: email, password: try Prompt.readStdinLine()).0
        } else {
            guard context.hasTerminal else { throw SyncError.passwordNeeded }
            if let password = context.askSecret(.emailPasswordPrompt(email: email)) {
                session = try await project.logIn(email: email, password: password).0
            } else {
                try await project.sendCode(email: email)
                context.say(.codeSent(email: email))
                guard let code = context.askOnTerminal(.codePrompt), !code.isEmpty else { throw SyncError.passwordNeeded }
                session = try await project.verify(email: email, code: code).0
            }
        }
        try await Self.finish(session, context: context, store: store, acceptConsent: acceptConsent, sealing: sealing)
    }

    /// Checks a new Supabase session against the server, then keeps it.
    static func finish(_ session: SupabaseSession, context: CommandContext, store: DiaryStore, acceptConsent: Bool,
                       sealing: SealingOptions) async throws {
        let (userId, consent) = try await Accounts.verifySession(session, paths: context.paths)
        try await save(Credentials(login: .supabase(session), userId: userId), consent: consent, context: context, store: store,
                       acceptConsent: acceptConsent, sealing: sealing)
    }

    /// Asks for the server's terms when they are new to this person, brings the sealed
    /// diary's keys (nothing is kept when the passphrase fails), then saves the login.
    private static func save(_ credentials: Credentials, consent: ServerConsent?, context: CommandContext, store: DiaryStore,
                             acceptConsent: Bool, sealing: SealingOptions) async throws {
        try Accounts.checkBinding(credentials, store: store)
        var credentials = credentials
        let accepted = try? Credentials.load(context.paths)?.consentVersion
        if let consent, accepted.flatMap({ $0 }).map({ $0 < consent.version }) ?? true {
            Output.standardError(consent.text(context.language))
            if !acceptConsent {
                guard context.askYesNo(.consentAccept) == true else { throw SyncError.consentDeclined }
            }
            credentials.consentVersion = consent.version
        }
        let keys = try await sealing.keys(for: credentials, context: context, store: store)
        try Accounts.saveLogin(credentials, keys: keys, store: store)
        context.say(.loggedIn(user: credentials.account, server: credentials.server))
    }
}

/// `diary-sync logout`: forget the login (and, asked, the local diary).
struct LogoutCommand: DiaryCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "Forget this device's login; --wipe-local also clears the diary on this device.")

    @OptionGroup package var global: GlobalOptions

    @Flag(name: .customLong("wipe-local"), help: "Also delete every page and media file on this device (asks first).")
    var wipeLocal = false

    @Flag(name: .customLong("yes"), help: "Do not ask for confirmation (for scripts).")
    var yes = false

    init() {}

    func execute(_ context: CommandContext) async throws {
        if wipeLocal, !yes {
            guard context.askOnTerminal(.confirmWipe)?.lowercased() == "yes" else { throw SyncError.notConfirmed }
        }
        let store = try context.openStore()
        if let credentials = try? Credentials.load(context.paths) { await Accounts.endSession(credentials) }
        try Accounts.logout(store: store, wipeLocal: wipeLocal)
        context.say(wipeLocal ? .localDiaryWiped : .loggedOut)
    }
}

/// `diary-sync delete-account`: remove everything of this person from the server.
struct DeleteAccountCommand: ServerTaskCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-account",
        abstract: "Delete all of your pages, chats and media on the server (asks first); the local diary stays.",
        discussion: "Only an audit record with a hashed user id stays on the server. The login is disabled and this device logged out.")

    @OptionGroup package var global: GlobalOptions

    @Flag(name: .customLong("yes"), help: "Do not ask for confirmation (for scripts).")
    var yes = false

    init() {}

    func perform(_ context: CommandContext) async throws {
        let store = try context.openStore()
        let credentials = try SyncRunner.credentials(context)
        if !yes {
            let user = credentials.account
            guard context.askOnTerminal(.confirmDeleteAccount(user: user)) == user else {
                throw SyncError.notConfirmed
            }
        }
        let removed = try await Accounts.deleteAccount(store: store, credentials: credentials)
        context.say(.accountDeleted(rows: removed))
    }
}

/// `diary-sync server-init`: install the diary's tables and functions on a server.
struct ServerInitCommand: ServerTaskCommand {
    static let configuration = CommandConfiguration(
        commandName: "server-init",
        abstract: "Install or upgrade the diary's tables, row-level security and functions on a Postgres server.",
        discussion: """
            For the server's operator, run once (again after upgrades; it is idempotent). The admin \
            password comes from the URL, PGPASSWORD, --password-stdin or the terminal. --print-sql prints \
            the same SQL instead, to paste into Supabase's SQL editor.
            """)

    @OptionGroup package var global: GlobalOptions

    @Option(name: .long, help: ArgumentHelp("An admin login: postgres://admin@host[:port]/database.", valueName: "url"))
    var url: String?

    @Flag(name: .customLong("password-stdin"), help: "Read the admin password from standard input.")
    var passwordStdin = false

    @Flag(name: .customLong("print-sql"), help: "Print the SQL on standard output and connect nowhere.")
    var printSQL = false

    init() {}

    func perform(_ context: CommandContext) async throws {
        if printSQL {
            try Output.line(ServerSchema.script)
            return
        }
        guard let url else { throw InputError.usage(.badOption(detail: "--url")) }
        let address = try ServerAddress(url)
        let password = try Prompt.adminPassword(context, address: address, fromStdin: passwordStdin)
        let version = try await Accounts.initialiseServer(address, password: password)
        context.say(.serverReady(version: version))
    }
}

/// `diary-sync user-add`: the operator creates a person's login.
struct UserAddCommand: ServerTaskCommand {
    static let configuration = CommandConfiguration(
        commandName: "user-add",
        abstract: "Create a person's login on the server (the operator's job); prints a new password once.",
        discussion: """
            The admin password comes from the URL, PGPASSWORD or the terminal. The new login's password \
            is generated and printed once on standard output, or read from standard input with \
            --password-stdin. Only a SCRAM-SHA-256 verifier of it is sent to the server.
            """)

    @OptionGroup package var global: GlobalOptions

    @Argument(help: ArgumentHelp("The new login: lowercase letters, digits and _, starting with a letter.", valueName: "name"))
    var name: String

    @Option(name: .long, help: ArgumentHelp("An admin login: postgres://admin@host[:port]/database.", valueName: "url"))
    var url: String

    @Flag(name: .customLong("password-stdin"), help: "Read the new login's password from standard input instead of generating one.")
    var passwordStdin = false

    init() {}

    func perform(_ context: CommandContext) async throws {
        let address = try ServerAddress(url)
        let adminPassword = try Prompt.adminPassword(context, address: address, fromStdin: false)
        let newPassword = passwordStdin ? try Prompt.readStdinLine() : Accounts.generatePassword()
        let userId = try await Accounts.addUser(address, password: adminPassword, name: name, newPassword: newPassword)
        if context.json {
            try Output.json(.object([("kind", .string("user")), ("name", .string(name)), ("user_id", .string(userId)),
                                     ("password", passwordStdin ? .null : .string(newPassword))]))
        } else if !passwordStdin {
            try Output.line(newPassword)
        }
        context.say(.userAdded(name: name, passwordShown: !passwordStdin))
    }
}

/// `diary-sync quota`: the operator shows or sets how much media space people may use.
struct QuotaCommand: ServerTaskCommand {
    static let configuration = CommandConfiguration(
        commandName: "quota",
        abstract: "Show or set the media space a login may use on the server (the operator's job).",
        discussion: """
            Without --user, the default for every login without a limit of its own. LIMIT is a size \
            in decimal units (500M, 2G, 1.5T) or none. A device whose upload would go past its limit \
            keeps the file, syncs its pages, and exits 69 until the limit is raised.
            """)

    @OptionGroup package var global: GlobalOptions

    @Option(name: .long, help: ArgumentHelp("An admin login: postgres://admin@host[:port]/database.", valueName: "url"))
    var url: String

    @Option(name: .long, help: ArgumentHelp("The login whose limit to show or set.", valueName: "name"))
    var user: String?

    @Argument(help: ArgumentHelp("The new limit (500M, 2G, none); without it, the limit is shown.", valueName: "limit"))
    var limit: String?

    init() {}

    func perform(_ context: CommandContext) async throws {
        let newLimit: Int64?? = try limit.map { text in
            if text.lowercased() == "none" { return .none }
            guard let bytes = ByteCount.parse(text) else { throw SyncError.badSize(text) }
            return bytes
        }
        let address = try ServerAddress(url)
        let adminPassword = try Prompt.adminPassword(context, address: address, fromStdin: false)
        let quota = try await Accounts.mediaQuota(address, password: adminPassword, user: user, limit: newLimit)
        if context.json {
            try Output.json(.object([("kind", .string("quota")), ("user", .optional(user)),
                                     ("limit_bytes", quota.limit.map { .int($0) } ?? .null),
                                     ("used_bytes", quota.used.map { .int($0) } ?? .null)]))
        } else {
            try Output.line(Phrase.quotaLine(user: user, limit: quota.limit, used: quota.used).text(context.language))
        }
    }
}

/// Passwords: from standard input, the URL, the environment (operators) or the terminal.
enum Prompt {
    static func password(_ context: CommandContext, address: ServerAddress, fromStdin: Bool) throws -> String {
        if fromStdin { return try readStdinLine() }
        if let password = address.password { return password }
        guard let typed = context.askSecret(.passwordPrompt(user: address.user)) else { throw SyncError.passwordNeeded }
        return typed
    }

    static func adminPassword(_ context: CommandContext, address: ServerAddress, fromStdin: Bool) throws -> String? {
        if fromStdin { return try readStdinLine() }
        if let password = address.password ?? context.environment["PGPASSWORD"] { return password }
        // A server that trusts local logins needs none; one that does will say so.
        return context.askSecret(.passwordPrompt(user: address.user))
    }

    /// The first line of standard input, without its newline.
    static func readStdinLine() throws -> String {
        guard let line = readLine(strippingNewline: true), !line.isEmpty else { throw SyncError.passwordNeeded }
        return line
    }
}
