import AuthHandlerCore

/// Options of `accounts` (HTTP-API.md §1.8, docs/OPERATIONS.md "Managing accounts").
struct AccountsOptions: Sendable, Hashable {
    /// The config file naming the accounts database.
    var config: ConfigLocation
    /// What to do.
    var action: AccountsAction
    /// `--json`: JSON on stdout for scripts instead of lines for people.
    var json: Bool

    /// Creates the options.
    init(config: ConfigLocation, action: AccountsAction, json: Bool = false) {
        self.config = config
        self.action = action
        self.json = json
    }
}

/// One `accounts` action with its arguments. `user` is a localId or an e-mail address, as typed.
enum AccountsAction: Sendable, Hashable {
    /// `list [--limit N] [--after LOCALID]`: a page of users ordered by localId.
    case list(limit: Int, after: String?)
    case show(user: String)
    case disable(user: String)
    case enable(user: String)
    /// `delete USER`, which does nothing unless `confirmed` (`--yes`).
    case delete(user: String, confirmed: Bool)
    case revokeSessions(user: String)
    /// `set-password USER`: the password comes from standard input, never the command line.
    case setPassword(user: String)
    case setClaims(user: String, claims: ClaimsSource)
    /// `import FILE --format firebase|bcrypt-csv [--hash-key B64 --salt-separator B64 --rounds N --mem-cost N]`
    /// (docs/ACCOUNTS.md "Imported users"); `-` reads standard input.
    case importUsers(file: String, format: ImportFormat, firebase: FirebaseHashFlags)
    /// `export [FILE]`: every user as `firebase auth:export` JSON, into `file` (created 0600) or, when nil,
    /// on standard output.
    case export(file: String?)

    /// The file formats `import` reads.
    enum ImportFormat: String, Sendable, Hashable, CaseIterable {
        case firebase
        case bcryptCSV = "bcrypt-csv"
    }

    /// The Firebase project's hash parameters as flags, each nil when not given (then the config's apply).
    struct FirebaseHashFlags: Sendable, Hashable {
        var hashKey: [UInt8]?
        var saltSeparator: [UInt8]?
        var rounds: Int?
        var memCost: Int?

        var isEmpty: Bool { hashKey == nil && saltSeparator == nil && rounds == nil && memCost == nil }
    }

    /// Where `set-claims` takes its JSON from.
    enum ClaimsSource: Sendable, Hashable {
        /// The argument after USER.
        case argument(String)
        /// Standard input (the argument `-`).
        case standardInput
    }

    /// `list`'s page size when `--limit` is not given, and the largest it may be.
    static let (defaultLimit, maximumLimit) = (100, 1000)

    /// The action words, as typed.
    enum Name: String, Sendable, Hashable, CaseIterable {
        case list
        case show
        case disable
        case enable
        case delete
        case revokeSessions = "revoke-sessions"
        case setPassword = "set-password"
        case setClaims = "set-claims"
        case importUsers = "import"
        case export

        /// The arguments after the action word, as help and messages write them.
        var arguments: [String] {
            switch self {
            case .list: []
            case .export: ["[FILE]"]
            case .importUsers: ["FILE"]
            case .setClaims: ["USER", "JSON|-"]
            default: ["USER"]
            }
        }
    }
}
