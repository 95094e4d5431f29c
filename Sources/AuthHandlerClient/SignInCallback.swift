import Foundation

/// The browser's return to the app (HTTP-API.md §3.2): the redirect URL with `code` and `eventId`, or with `error`,
/// `error_description` and `eventId`.
struct SignInCallback: Sendable, Hashable {
    enum Outcome: Sendable, Hashable {
        /// The result code to redeem.
        case code(String)
        /// The sign-in failed before a result existed (`user-cancelled`, `provider-error`, ...).
        case failure(DaemonErrorObject)
    }

    var outcome: Outcome
    /// Absent when the start had none; `begin` always sends one.
    var eventId: String?

    /// The parameters the daemon added to `url`; the app's own query parameters are left alone.
    init(_ url: URL) throws(AuthHandlerClientError) {
        let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? ""
        guard let pairs = QueryEncoding.decode(query) else {
            throw .invalidCallbackURL(message: "the callback URL's query is not valid percent-encoded UTF-8")
        }
        var added: [String: String] = [:]
        for (name, value) in pairs where ["code", "eventId", "error", "error_description"].contains(name) {
            guard added.updateValue(value, forKey: name) == nil else {
                throw .invalidCallbackURL(message: "the callback URL carries \(name) more than once")
            }
        }
        eventId = added["eventId"]
        switch (added["code"], added["error"]) {
        case (let code?, nil) where !code.isEmpty:
            outcome = .code(code)
        case (nil, let error?) where !error.isEmpty:
            outcome = .failure(DaemonErrorObject(code: error, message: added["error_description"]))
        default:
            throw .invalidCallbackURL(
                message: "the callback URL carries neither a code nor an error (or both): pass the URL the browser "
                    + "was sent back to, with its query")
        }
    }
}
