/// Options of `--once`: one RFC 8252 loopback sign-in, then exit.
public struct OnceOptions: Sendable, Hashable {
    /// A `--param K=V` custom parameter sent to the IdP.
    public struct Parameter: Sendable, Hashable {
        public var name: String
        public var value: String
    }

    /// What `--id-token-file` with `--auth-type` asks for.
    public enum AuthType: String, Sendable, Hashable, CaseIterable {
        /// Link the new credential to the signed-in user (`linkViaRedirect`).
        case link
        /// Re-authenticate the signed-in user (`reauthViaRedirect`).
        case reauth
    }

    /// The signed-in user a link or reauth applies to.
    public struct Linking: Sendable, Hashable {
        /// A file holding the current user's ID token.
        public var idTokenFile: String
        /// Link or reauth.
        public var authType: AuthType
    }

    /// The default `--timeout`.
    public static let defaultTimeoutSeconds = 300

    /// The config file. With source ``ConfigLocation/Source/defaultPath`` the file is optional: when it does not
    /// exist, built-in providers work from the credential options alone.
    public var config: ConfigLocation
    /// The provider id (`--provider`).
    public var providerID: String
    /// The loopback port (`--port`); 0 = ephemeral.
    public var port: UInt16 = 0
    /// Extra scopes (`--scope`, repeatable), in order.
    public var scopes: [String] = []
    /// Custom parameters (`--param K=V`, repeatable), in order.
    public var parameters: [Parameter] = []
    /// Print the URL instead of launching a browser (`--no-browser`).
    public var noBrowser: Bool = false
    /// Give up after this many seconds (`--timeout`).
    public var timeoutSeconds: Int = OnceOptions.defaultTimeoutSeconds
    /// Write the result to this file, mode 0600, instead of stdout (`--output`).
    public var outputPath: String?
    /// Link or reauth instead of signing in (`--id-token-file` with `--auth-type`).
    public var linking: Linking?
    /// OAuth 2 / OIDC client id (`--client-id`).
    public var clientID: String?
    /// File holding the client secret (`--client-secret-file`).
    public var clientSecretFile: String?
    /// OAuth 1.0a consumer key (`--consumer-key`).
    public var consumerKey: String?
    /// File holding the consumer secret (`--consumer-secret-file`).
    public var consumerSecretFile: String?
}
