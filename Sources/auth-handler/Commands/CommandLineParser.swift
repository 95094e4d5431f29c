import AuthHandlerAccounts
import AuthHandlerCore
import AuthHandlerCrypto
import AuthHandlerHTTP

/// Parses `auth-handler` arguments (HTTP-API.md §1) into an ``AuthHandlerCommand``, or one usage-error line.
///
/// The command word, if any, comes first; options follow in any order, as `--name VALUE` or `--name=VALUE`.
/// To add a command: add a case to ``AuthHandlerCommand``, its options to ``CommandLineOption``,
/// a line to ``allowedOptions(for:)`` and a branch to ``parse(_:)``.
struct CommandLineParser: Sendable {
    /// The environment, for `$AUTH_HANDLER_CONFIG`.
    var environment: [String: String]

    /// Creates a parser.
    init(environment: [String: String]) {
        self.environment = environment
    }

    /// Parses the arguments after the program name.
    func parse(_ arguments: [String]) throws(CommandLineUsageError) -> AuthHandlerCommand {
        var remaining = arguments[...]
        var name = AuthHandlerCommand.Name.serve
        if let first = remaining.first, !first.hasPrefix("-") {
            if first == "help" {
                return try helpCommand(Array(remaining.dropFirst()))
            }
            guard let command = AuthHandlerCommand.Name(rawValue: first) else {
                var message = "unknown command '\(first)'"
                let names = AuthHandlerCommand.Name.allCases.map(\.rawValue)
                if let suggestion = Self.closest(to: first, in: names) { message += " (did you mean '\(suggestion)'?)" }
                throw CommandLineUsageError("\(message); see 'auth-handler --help'")
            }
            name = command
            remaining = remaining.dropFirst()
        }
        let explicitCommand = arguments.first == name.rawValue
        let seen = try scan(remaining, command: name, explicit: explicitCommand)
        if seen.contains(.help) { return .help(explicitCommand || seen.contains(.once) ? name : nil) }
        if seen.contains(.version) { return .version }

        switch name {
        case .serve:
            let config = ConfigLocation.resolve(option: seen.last(.config), environment: environment)
            if seen.contains(.once) { return .once(try onceOptions(seen, config: config)) }
            if let onceOnly = seen.options.first(where: { CommandLineOption.onceOnly.contains($0.option) }) {
                throw CommandLineUsageError(
                    "option '\(onceOnly.spelling)' needs '--once'; see 'auth-handler --help'")
            }
            return .serve(ServeOptions(config: config))
        case .checkConfig:
            return .checkConfig(
                CheckConfigOptions(config: ConfigLocation.resolve(option: seen.last(.config), environment: environment))
            )
        case .fakeIdP:
            var options = FakeIdPOptions(configPath: seen.last(.config))
            if let text = seen.last(.listen) {
                guard let address = ListenAddress(parsing: text) else {
                    throw CommandLineUsageError(
                        "'--listen' expects HOST:PORT, got '\(text)'; \(ListenAddress.expectedForm)")
                }
                options.listen = address
            }
            return .fakeIdP(options)
        case .demo:
            return .demo(DemoOptions(headless: seen.contains(.headless)))
        case .accounts:
            return .accounts(
                AccountsOptions(
                    config: ConfigLocation.resolve(option: seen.last(.config), environment: environment),
                    action: try Self.accountsAction(seen), json: seen.contains(.json)))
        case .login:
            guard let server = seen.last(.server), let provider = seen.last(.provider) else {
                throw CommandLineUsageError(
                    "'login' needs '--server URL' and '--provider ID'; e.g. "
                        + "'auth-handler login --server https://auth.example.com --provider github.com'")
            }
            return .login(
                LoginOptions(
                    server: server, providerID: provider, scopes: seen.all(.scope),
                    parameters: try Self.parameters(seen.all(.param)), outputPath: seen.last(.output),
                    sessionPath: seen.last(.sessionFile)))
        case .token, .logout:
            guard let server = seen.last(.server) else {
                throw CommandLineUsageError(
                    "'\(name.rawValue)' needs '--server URL', the server 'auth-handler login' signed in to")
            }
            var options = SessionCommandOptions(server: server, sessionPath: seen.last(.sessionFile))
            options.forceRefresh = seen.contains(.forceRefresh)
            if name == .logout {
                options.scope = try SessionCommandOptions.scope(parsing: seen.all(.scope))
                return .logout(options)
            }
            return .token(options)
        }
    }

    private func helpCommand(_ rest: [String]) throws(CommandLineUsageError) -> AuthHandlerCommand {
        guard let topic = rest.first else { return .help(nil) }
        guard rest.count == 1, let name = AuthHandlerCommand.Name(rawValue: topic) else {
            throw CommandLineUsageError(
                "unknown help topic '\(rest.joined(separator: " "))'; see 'auth-handler --help'")
        }
        return .help(name)
    }

    /// The options a command accepts, besides `--help` and `--version`.
    static func allowedOptions(for command: AuthHandlerCommand.Name) -> Set<CommandLineOption> {
        switch command {
        case .serve: Set([.config, .once]).union(CommandLineOption.onceOnly)
        case .checkConfig: [.config]
        case .fakeIdP: [.listen, .config]
        case .demo: [.headless]
        case .login: [.server, .provider, .scope, .param, .output, .sessionFile]
        case .token: [.server, .sessionFile, .forceRefresh]
        case .logout: [.server, .sessionFile, .scope]
        case .accounts: [.config, .json, .limit, .after, .yes, .format, .hashKey, .saltSeparator, .rounds, .memCost]
        }
    }

    // MARK: - Scanning

    /// The options found on the command line, in order.
    struct ScannedOptions {
        var options: [(option: CommandLineOption, spelling: String, value: String?)] = []
        /// The arguments that are no option or option value, in order (only `accounts` takes any).
        var positionals: [String] = []

        func contains(_ option: CommandLineOption) -> Bool { options.contains { $0.option == option } }

        func last(_ option: CommandLineOption) -> String? { options.last { $0.option == option }?.value }

        func all(_ option: CommandLineOption) -> [String] {
            options.filter { $0.option == option }.compactMap(\.value)
        }
    }

    private func scan(
        _ arguments: ArraySlice<String>, command: AuthHandlerCommand.Name, explicit: Bool
    ) throws(CommandLineUsageError) -> ScannedOptions {
        let allowed = Self.allowedOptions(for: command)
        let helpHint = explicit ? "'auth-handler \(command.rawValue) --help'" : "'auth-handler --help'"
        var scanned = ScannedOptions()
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            if command == .accounts, explicit {
                // A localId may begin with '-' (base64url), so only '--name' and '-h' are options here, and after
                // '--' nothing is.
                if argument == "--" {
                    scanned.positionals += arguments[index...]
                    break
                }
                if !argument.hasPrefix("--"), argument != "-h" {
                    scanned.positionals.append(argument)
                    continue
                }
            }
            guard argument.hasPrefix("-"), argument.count > 1 else {
                if AuthHandlerCommand.Name(rawValue: argument) != nil {
                    throw CommandLineUsageError(
                        "unexpected argument '\(argument)'; the command goes first: 'auth-handler \(argument) ...'")
                }
                throw CommandLineUsageError("unexpected argument '\(argument)'; see \(helpHint)")
            }
            var spelling = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                spelling = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let option = CommandLineOption(spelling: spelling) else {
                throw Self.unknownOption(spelling, command: command, helpHint: helpHint)
            }
            if option == .help || option == .version {
                if inlineValue != nil { throw CommandLineUsageError("option '\(spelling)' takes no value") }
                scanned.options.append((option, spelling, nil))
                continue
            }
            guard allowed.contains(option) else {
                let owner = explicit ? "'\(command.rawValue)'" : "'serve'"
                throw CommandLineUsageError(
                    "option '\(spelling)' does not apply to \(owner); see 'auth-handler \(command.rawValue) --help'")
            }
            if !option.takesValue {
                if inlineValue != nil {
                    throw CommandLineUsageError("option '\(spelling)' takes no value; see \(helpHint)")
                }
                scanned.options.append((option, spelling, nil))
                continue
            }
            let value = try Self.value(
                of: option, spelling: spelling, inline: inlineValue, arguments: arguments, index: &index,
                helpHint: helpHint)
            if !option.isRepeatable && scanned.contains(option) {
                throw CommandLineUsageError("option '\(spelling)' is given more than once; give it once")
            }
            scanned.options.append((option, spelling, value))
        }
        return scanned
    }

    /// The value of `option`: after `=`, else the next argument (consumed), which must not be another option.
    private static func value(
        of option: CommandLineOption, spelling: String, inline: String?, arguments: ArraySlice<String>,
        index: inout Int, helpHint: String
    ) throws(CommandLineUsageError) -> String {
        let value: String
        if let inline {
            value = inline
        } else {
            guard index < arguments.endIndex, !arguments[index].hasPrefix("--") else {
                throw CommandLineUsageError(
                    "option '\(spelling)' needs a value: '\(spelling) \(option.valueName)'; see \(helpHint)")
            }
            value = arguments[index]
            index += 1
        }
        if value.isEmpty {
            throw CommandLineUsageError("option '\(spelling)' needs a non-empty \(option.valueName)")
        }
        return value
    }

    /// The refusal of an option no command knows, with the closest one the command takes when it looks like a typo.
    private static func unknownOption(
        _ spelling: String, command: AuthHandlerCommand.Name, helpHint: String
    ) -> CommandLineUsageError {
        var message = "unknown option '\(spelling)'"
        let candidates = allowedOptions(for: command).map { "--\($0.rawValue)" }
        if let suggestion = closest(to: spelling, in: candidates) {
            message += " (did you mean '\(suggestion)'?)"
        }
        return CommandLineUsageError("\(message); see \(helpHint)")
    }

    // MARK: - accounts

    /// The action and its arguments. No message repeats an argument after the action word: it may be a password
    /// typed where it does not belong.
    private static func accountsAction(_ seen: ScannedOptions) throws(CommandLineUsageError) -> AccountsAction {
        let names = AccountsAction.Name.allCases.map(\.rawValue)
        guard let word = seen.positionals.first else {
            throw CommandLineUsageError(
                "'accounts' needs an action: \(names.joined(separator: ", ")); see 'auth-handler accounts --help'")
        }
        guard let name = AccountsAction.Name(rawValue: word) else {
            var message = "unknown accounts action '\(word)'"
            if let suggestion = closest(to: word, in: names) { message += " (did you mean '\(suggestion)'?)" }
            throw CommandLineUsageError("\(message); see 'auth-handler accounts --help'")
        }
        let arguments = Array(seen.positionals.dropFirst())
        let usage = (["auth-handler accounts", name.rawValue] + name.arguments).joined(separator: " ")
        if name == .setPassword, arguments.count > 1 {
            throw CommandLineUsageError(
                "'accounts set-password' reads the password from standard input, never from the command line "
                    + "(ps and shell history show arguments); run '\(usage)' and type it, or pipe it in")
        }
        // An argument written `[NAME]` may be left out (`export`'s FILE: standard output).
        let optional = name.arguments.filter { $0.hasPrefix("[") }.count
        guard (name.arguments.count - optional...name.arguments.count).contains(arguments.count) else {
            let expected = name.arguments.isEmpty ? "no arguments" : name.arguments.joined(separator: " ")
            throw CommandLineUsageError(
                "'accounts \(name.rawValue)' takes \(expected), got \(arguments.count) argument(s); usage: '\(usage)'")
        }
        if seen.contains(.yes), name != .delete {
            throw CommandLineUsageError("option '--yes' applies to 'accounts delete' only")
        }
        if name != .list, let paging = seen.options.first(where: { $0.option == .limit || $0.option == .after }) {
            throw CommandLineUsageError("option '\(paging.spelling)' applies to 'accounts list' only")
        }
        let importOptions: Set<CommandLineOption> = [.format, .hashKey, .saltSeparator, .rounds, .memCost]
        if name != .importUsers, let option = seen.options.first(where: { importOptions.contains($0.option) }) {
            throw CommandLineUsageError("option '\(option.spelling)' applies to 'accounts import' only")
        }
        switch name {
        case .list:
            var limit = AccountsAction.defaultLimit
            if let text = seen.last(.limit) {
                guard text.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(text),
                    (1...AccountsAction.maximumLimit).contains(value)
                else {
                    throw CommandLineUsageError(
                        "'--limit' expects a whole number from 1 to \(AccountsAction.maximumLimit), got '\(text)'")
                }
                limit = value
            }
            let after = seen.last(.after)
            if let after, LocalID(after) == nil {
                throw CommandLineUsageError(
                    "'--after' expects a localId (1 to 128 letters, digits, '-' or '_'), got '\(after)'")
            }
            return .list(limit: limit, after: after)
        case .show: return .show(user: arguments[0])
        case .disable: return .disable(user: arguments[0])
        case .enable: return .enable(user: arguments[0])
        case .delete: return .delete(user: arguments[0], confirmed: seen.contains(.yes))
        case .revokeSessions: return .revokeSessions(user: arguments[0])
        case .setPassword: return .setPassword(user: arguments[0])
        case .setClaims:
            let source: AccountsAction.ClaimsSource = arguments[1] == "-" ? .standardInput : .argument(arguments[1])
            return .setClaims(user: arguments[0], claims: source)
        case .importUsers: return try importAction(seen, file: arguments[0])
        case .export: return .export(file: arguments.first.flatMap { $0 == "-" ? nil : $0 })
        }
    }

    /// `import FILE --format …` with the Firebase hash flags, each checked for its form; the hash key is never
    /// repeated in a message.
    private static func importAction(_ seen: ScannedOptions, file: String) throws(CommandLineUsageError)
        -> AccountsAction
    {
        let formats = AccountsAction.ImportFormat.allCases.map(\.rawValue).joined(separator: " or ")
        guard let text = seen.last(.format) else {
            throw CommandLineUsageError("'accounts import' needs '--format \(formats)'")
        }
        guard let format = AccountsAction.ImportFormat(rawValue: text) else {
            throw CommandLineUsageError("'--format' expects \(formats), got '\(text)'")
        }
        var flags = AccountsAction.FirebaseHashFlags()
        for (option, spelling) in [(CommandLineOption.hashKey, "--hash-key"), (.saltSeparator, "--salt-separator")] {
            guard let value = seen.last(option) else { continue }
            guard let bytes = Base64.decode(value), !bytes.isEmpty else {
                throw CommandLineUsageError("'\(spelling)' expects standard base64 (as the Firebase console shows it)")
            }
            if option == .hashKey { flags.hashKey = bytes } else { flags.saltSeparator = bytes }
        }
        for option in [CommandLineOption.rounds, .memCost] {
            guard let value = seen.last(option) else { continue }
            guard value.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(value), (1...64).contains(number)
            else {
                throw CommandLineUsageError(
                    "'--\(option.rawValue)' expects a whole number from 1 to 64, got '\(value)'")
            }
            if option == .rounds { flags.rounds = number } else { flags.memCost = number }
        }
        if format == .bcryptCSV, !flags.isEmpty {
            throw CommandLineUsageError("the Firebase hash options apply to 'accounts import --format firebase' only")
        }
        return .importUsers(file: file, format: format, firebase: flags)
    }

    // MARK: - --once

    private func onceOptions(
        _ seen: ScannedOptions, config: ConfigLocation
    ) throws(CommandLineUsageError) -> OnceOptions {
        guard let providerID = seen.last(.provider) else {
            throw CommandLineUsageError(
                "'--once' needs '--provider ID'; e.g. 'auth-handler --once --provider google.com'")
        }
        guard let kind = ProviderConfig.impliedProtocol(forID: providerID) else {
            let builtIns = BuiltInProvider.ids.joined(separator: ", ")
            throw CommandLineUsageError(
                "unknown provider '\(providerID)'; expected one of \(builtIns), or oidc.NAME, oauth2.NAME, oauth1.NAME")
        }
        var options = OnceOptions(config: config, providerID: providerID)
        if let text = seen.last(.port) {
            guard text.allSatisfy({ $0.isASCII && $0.isNumber }), let port = UInt16(text) else {
                throw CommandLineUsageError("'--port' expects a port number 0-65535, got '\(text)'")
            }
            options.port = port
        }
        for scope in seen.all(.scope) {
            if scope.contains(where: \.isWhitespace) {
                throw CommandLineUsageError("'--scope' takes one scope, got '\(scope)'; repeat '--scope' for each")
            }
            options.scopes.append(scope)
        }
        options.parameters = try Self.parameters(seen.all(.param))
        options.noBrowser = seen.contains(.noBrowser)
        if let text = seen.last(.timeout) {
            guard text.allSatisfy({ $0.isASCII && $0.isNumber }), let seconds = Int(text), seconds > 0,
                seconds <= Int(Int32.max)
            else {
                throw CommandLineUsageError("'--timeout' expects a positive whole number of seconds, got '\(text)'")
            }
            options.timeoutSeconds = seconds
        }
        options.outputPath = seen.last(.output)
        options.linking = try Self.linking(idTokenFile: seen.last(.idTokenFile), authType: seen.last(.authType))
        options.clientID = seen.last(.clientId)
        options.clientSecretFile = seen.last(.clientSecretFile)
        options.consumerKey = seen.last(.consumerKey)
        options.consumerSecretFile = seen.last(.consumerSecretFile)
        let misplaced: [CommandLineOption] =
            kind == .oauth1 ? [.clientId, .clientSecretFile] : [.consumerKey, .consumerSecretFile]
        if let wrong = seen.options.first(where: { misplaced.contains($0.option) }) {
            let instead =
                kind == .oauth1
                ? "use '--consumer-key' and '--consumer-secret-file' for OAuth 1.0a"
                : "use '--client-id' and '--client-secret-file' for \(kind.rawValue)"
            throw CommandLineUsageError("option '\(wrong.spelling)' does not apply to \(providerID); \(instead)")
        }
        return options
    }

    /// The `--param NAME=VALUE` pairs, each name at most once.
    private static func parameters(_ pairs: [String]) throws(CommandLineUsageError) -> [OnceOptions.Parameter] {
        var parameters: [OnceOptions.Parameter] = []
        for pair in pairs {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw CommandLineUsageError(
                    "'--param' expects NAME=VALUE, got '\(pair)'; e.g. '--param login_hint=alice'")
            }
            let parameter = OnceOptions.Parameter(
                name: String(pair[..<equals]), value: String(pair[pair.index(after: equals)...]))
            if parameters.contains(where: { $0.name == parameter.name }) {
                throw CommandLineUsageError("'--param \(parameter.name)=...' is given more than once; give it once")
            }
            parameters.append(parameter)
        }
        return parameters
    }

    /// `--id-token-file` with `--auth-type`, which come together or not at all.
    private static func linking(idTokenFile: String?, authType: String?) throws(CommandLineUsageError)
        -> OnceOptions.Linking?
    {
        switch (idTokenFile, authType) {
        case (nil, nil):
            return nil
        case (.some, nil):
            throw CommandLineUsageError("'--id-token-file' needs '--auth-type link' or '--auth-type reauth'")
        case (nil, .some):
            throw CommandLineUsageError(
                "'--auth-type' needs '--id-token-file FILE' holding the signed-in user's ID token")
        case (.some(let file), .some(let text)):
            guard let authType = OnceOptions.SignedInUserAction(rawValue: text) else {
                throw CommandLineUsageError("'--auth-type' expects 'link' or 'reauth', got '\(text)'")
            }
            return OnceOptions.Linking(idTokenFile: file, action: authType)
        }
    }

    /// The candidate closest to a misspelt word, when close enough to be a likely typo.
    static func closest(to word: String, in candidates: [String]) -> String? {
        let scored = candidates.sorted().map { ($0, ConfigValidator.editDistance(word, $0)) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        return best.1 <= 2 ? best.0 : nil
    }
}
