/// The daemon's JSON error object, `{"error": {"code", "message", ...}}` (HTTP-API.md §3.5), with the extra members
/// of HTTP-API.md §3.3.
struct DaemonErrorObject: Sendable, Hashable, Decodable {
    var code: String
    var message: String?
    var email: String?
    var verifiedProviders: [String]?
    /// The pending credential of `account-exists-with-different-credential`.
    var credential: SignInResult.Credential?
    /// The sealed pending credential of `account-exists-with-different-credential` with backend `accounts`
    /// (HTTP-API.md §3.10), for `POST /__/auth/user/link`.
    var pendingCredential: String?
    var mfaPendingCredential: String?
    var mfaInfo: AuthHandlerClient.JSON?

    init(code: String, message: String?) {
        self.code = code
        self.message = message
    }

    /// The whole answer body: the object under `error`.
    struct Answer: Decodable {
        var error: DaemonErrorObject
    }
}
