import AuthHandlerCore
import AuthHandlerHTTP
import FakeIdP
import Foundation

/// The config `--once` runs with: the config file when there is one, the credential options (or their environment
/// variables) on top, then the loopback settings of an RFC 8252 sign-in. The file's settings and the provider entry go
/// through ``ConfigValidator``, so they are validated exactly as `serve` and `check-config` validate a file; the
/// settings `--once` decides itself are set on the typed ``AuthHandlerConfig``.
enum OnceConfiguration {
    /// `--client-id` when the option is not given.
    static let clientIDVariable = "AUTH_HANDLER_CLIENT_ID"
    /// `--client-secret-file` when the option is not given.
    static let clientSecretFileVariable = "AUTH_HANDLER_CLIENT_SECRET_FILE"
    /// `--consumer-key` when the option is not given.
    static let consumerKeyVariable = "AUTH_HANDLER_CONSUMER_KEY"
    /// `--consumer-secret-file` when the option is not given.
    static let consumerSecretFileVariable = "AUTH_HANDLER_CONSUMER_SECRET_FILE"
    /// The only app redirect `--once` allows: its own page, on any loopback port (HTTP-API.md §2.7, RFC 8252 §7.3).
    static let allowedDonePage = "http://127.0.0.1" + OnceCommand.donePath

    /// Why no config could be made: always exit 78, with one line.
    struct Problem: Error {
        let message: String
    }

    /// The provider credentials given on the command line or in the environment (options win).
    struct Credentials {
        var clientID: String?
        var clientSecretFile: String?
        var consumerKey: String?
        var consumerSecretFile: String?

        init(options: OnceOptions, environment: [String: String], protocolKind: ProviderConfig.ProtocolKind) {
            let variable = { (name: String) in environment[name].flatMap { $0.isEmpty ? nil : $0 } }
            // Variables of the other protocol family are ignored; the options of it are refused by the parser.
            if protocolKind == .oauth1 {
                consumerKey = options.consumerKey ?? variable(OnceConfiguration.consumerKeyVariable)
                consumerSecretFile =
                    options.consumerSecretFile ?? variable(OnceConfiguration.consumerSecretFileVariable)
            } else {
                clientID = options.clientID ?? variable(OnceConfiguration.clientIDVariable)
                clientSecretFile = options.clientSecretFile ?? variable(OnceConfiguration.clientSecretFileVariable)
            }
        }
    }

    /// The top-level settings `--once` sets itself, whatever the config file says.
    static let settingsOfItsOwn: Set<String> = [
        "listen", "opsListen", "publicURL", "store", "allowedRedirectURLs", "sessionTTLSeconds", "providers",
    ]

    /// The config file's top-level members, and the directory its relative paths are resolved against.
    struct FileDocument {
        /// The members; empty when there is no file.
        var members: [String: JSONValue] = [:]
        /// The file's directory, or the current one when there is no file.
        var baseDirectory: String
        /// Whether a file was read.
        var exists = false
    }

    /// Builds and validates the config for `options`: the file's settings are validated as `serve` validates them,
    /// the provider entry with the credentials written over it, and the loopback settings are set on the result.
    static func load(
        _ options: OnceOptions, environment: [String: String], secrets: SecretEnvironment, currentDirectory: String
    ) -> Result<AuthHandlerConfig, Problem> {
        let id = options.providerID
        let protocolKind = ProviderConfig.impliedProtocol(forID: id) ?? .oauth2
        let credentials = Credentials(options: options, environment: environment, protocolKind: protocolKind)
        let location = options.config
        let file: FileDocument
        switch document(location, currentDirectory: currentDirectory) {
        case .success(let document): file = document
        case .failure(let problem): return .failure(problem)
        }
        let fileEntry = file.members["providers"]?[id]
        if fileEntry == nil,
            let missing = missingCredentials(id: id, protocolKind: protocolKind, credentials: credentials)
        {
            let situation =
                file.exists
                ? "\(location.path) has no providers.\(id) entry"
                : "there is no config file (\(location.path) does not exist)"
            return .failure(Problem(message: "\(id) has no credentials and \(situation): \(missing)"))
        }
        var validator = ConfigLoader(environment: secrets).validator(baseDirectory: file.baseDirectory)
        var config = validator.validate(.object(file.members.filter { !settingsOfItsOwn.contains($0.key) }))
        let provider = validator.provider(
            id: id, value: entry(fileEntry, credentials: credentials, currentDirectory: currentDirectory),
            at: ConfigPath.root.key("providers").entry(id))
        let errors = validator.problems.filter { $0.severity == .error }
        guard let provider, errors.isEmpty else {
            let first = errors.first.map { "\($0.path): \($0.message)" } ?? "the config is not valid"
            let source = file.exists ? "\(location.path) with the command-line settings" : "the command-line settings"
            return .failure(
                Problem(
                    message: "\(source) have \(errors.count) problem(s), the first: \(first); "
                        + "fix the option, its environment variable or the config file"))
        }
        config.providers = [id: provider]
        setLoopbackSignIn(on: &config, options: options)
        return .success(config)
    }

    /// One sign-in on loopback, nothing else: the port of `--port`, no operations listener (it would also clash with
    /// a daemon's), no public URL, a memory store, the done page as the only app redirect, and `--timeout`.
    static func setLoopbackSignIn(on config: inout AuthHandlerConfig, options: OnceOptions) {
        config.listen = [ListenAddress(host: "127.0.0.1", port: options.port)]
        config.opsListen = nil
        config.publicURL = nil
        config.store = .memory
        config.allowedRedirectURLs = URL(string: allowedDonePage).map { [$0] } ?? []
        config.sessionTTLSeconds = options.timeoutSeconds
    }

    /// The config file's members; none when the default path does not exist (fine for `--once`).
    static func document(_ location: ConfigLocation, currentDirectory: String) -> Result<FileDocument, Problem> {
        let fileBytes: [UInt8]?
        switch read(location) {
        case .success(let bytes): fileBytes = bytes
        case .failure(let problem): return .failure(problem)
        }
        guard let fileBytes else { return .success(FileDocument(baseDirectory: currentDirectory)) }
        // One reading, with the configuration's depth limit: the syntax error's position, or the document.
        let document: JSONValue
        switch JSONSyntax.parse(fileBytes, maximumDepth: JSONSyntax.configurationMaximumDepth) {
        case .success(let value): document = value
        case .failure(let failure): return .failure(Problem(message: "\(location.path): \(failure); fix the file"))
        }
        guard let members = document.objectValue else {
            return .failure(Problem(message: "\(location.path): expected a JSON object at the top level"))
        }
        let baseDirectory = (absolute(location.path, in: currentDirectory) as NSString).deletingLastPathComponent
        return .success(FileDocument(members: members, baseDirectory: baseDirectory, exists: true))
    }

    /// The file's bytes; nil when the default path does not exist (fine for `--once`).
    static func read(_ location: ConfigLocation) -> Result<[UInt8]?, Problem> {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: location.path, isDirectory: &isDirectory) else {
            if location.source == .defaultPath { return .success(nil) }
            return .failure(Problem(message: ConfigFileError(path: location.path, reason: .missing).description))
        }
        if isDirectory.boolValue {
            return .failure(Problem(message: ConfigFileError(path: location.path, reason: .isDirectory).description))
        }
        guard let data = FileManager.default.contents(atPath: location.path) else {
            return .failure(Problem(message: ConfigFileError(path: location.path, reason: .unreadable).description))
        }
        return .success(Array(data))
    }

    /// What is missing to configure `id` without a config entry; nil when the credentials suffice.
    static func missingCredentials(id: String, protocolKind: ProviderConfig.ProtocolKind, credentials: Credentials)
        -> String?
    {
        guard ProviderConfig.isBuiltIn(id) else {
            return "a custom provider needs its protocol and endpoints; describe it under providers in a --config file"
        }
        if protocolKind == .oauth1 {
            guard credentials.consumerKey != nil, credentials.consumerSecretFile != nil else {
                return "pass --consumer-key KEY and --consumer-secret-file FILE (or set \(consumerKeyVariable) and "
                    + "\(consumerSecretFileVariable)), or a --config file with a providers.\(id) entry"
            }
        } else {
            guard credentials.clientID != nil, credentials.clientSecretFile != nil else {
                return "pass --client-id ID and --client-secret-file FILE (or set \(clientIDVariable) and "
                    + "\(clientSecretFileVariable)), or a --config file with a providers.\(id) entry"
            }
        }
        return nil
    }

    /// The provider entry as the validator reads it: the file's (when it is an object), with the given credentials
    /// written over it as a client id and `{"file": PATH}` secret references.
    static func entry(_ fileEntry: JSONValue?, credentials: Credentials, currentDirectory: String) -> JSONValue {
        var fields: [String: JSONValue] = [:]
        if let fileEntry {
            // Not an object: left as it is, for the validator to report.
            guard let object = fileEntry.objectValue else { return fileEntry }
            fields = object
        }
        let secretFile = { (path: String) in
            JSONValue.object(["file": .string(absolute(path, in: currentDirectory))])
        }
        if let clientID = credentials.clientID { fields["clientId"] = .string(clientID) }
        if let path = credentials.clientSecretFile { fields["clientSecret"] = secretFile(path) }
        if let consumerKey = credentials.consumerKey { fields["consumerKey"] = .string(consumerKey) }
        if let path = credentials.consumerSecretFile { fields["consumerSecret"] = secretFile(path) }
        return .object(fields)
    }

    /// `path` made absolute against `directory` (a secret file given on the command line is relative to the cwd).
    static func absolute(_ path: String, in directory: String) -> String {
        path.hasPrefix("/") ? path : (directory as NSString).appendingPathComponent(path)
    }
}
