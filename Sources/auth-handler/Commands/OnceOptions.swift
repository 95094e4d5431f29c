import AuthHandlerCore

/// Options of `--once`: one RFC 8252 loopback sign-in, then exit.
struct OnceOptions: Sendable, Hashable {
    /// A `--param K=V` custom parameter sent to the IdP.
    struct Parameter: Sendable, Hashable {
        var name: String
        var value: String
    }

    /// What `--id-token-file` with `--auth-type` asks for.
    enum SignedInUserAction: String, Sendable, Hashable, CaseIterable {
        /// Link the new credential to the signed-in user (`linkViaRedirect`).
        case link
        /// Re-authenticate the signed-in user (`reauthViaRedirect`).
        case reauth
    }

    /// The signed-in user a link or reauth applies to.
    struct Linking: Sendable, Hashable {
        /// A file holding the current user's ID token.
        var idTokenFile: String
        /// Link or reauth.
        var action: SignedInUserAction
    }

    /// The default `--timeout`.
    static let defaultTimeoutSeconds = 300

    /// The config file. With source ``ConfigLocation/Source/defaultPath`` the file is optional: when it does not
    /// exist, built-in providers work from the credential options alone.
    var config: ConfigLocation
    /// The provider id (`--provider`).
    var providerID: String
    /// The loopback port (`--port`); 0 = ephemeral.
    var port: UInt16 = 0
    /// Extra scopes (`--scope`, repeatable), in order.
    var scopes: [String] = []
    /// Custom parameters (`--param K=V`, repeatable), in order.
    var parameters: [Parameter] = []
    /// Print the URL instead of launching a browser (`--no-browser`).
    var noBrowser: Bool = false
    /// Give up after this many seconds (`--timeout`).
    var timeoutSeconds: Int = OnceOptions.defaultTimeoutSeconds
    /// Write the result to this file, mode 0600, instead of stdout (`--output`).
    var outputPath: String?
    /// Link or reauth instead of signing in (`--id-token-file` with `--auth-type`).
    var linking: Linking?
    /// OAuth 2 / OIDC client id (`--client-id`).
    var clientID: String?
    /// File holding the client secret (`--client-secret-file`).
    var clientSecretFile: String?
    /// OAuth 1.0a consumer key (`--consumer-key`).
    var consumerKey: String?
    /// File holding the consumer secret (`--consumer-secret-file`).
    var consumerSecretFile: String?
}
