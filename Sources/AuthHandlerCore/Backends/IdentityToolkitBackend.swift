import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerSystem
import Foundation

/// Backend `identitytoolkit`: Identity Toolkit's `accounts:signInWithIdp` (Firebase Auth, Identity Platform,
/// the Firebase Auth emulator). Reference:
/// https://cloud.google.com/identity-platform/docs/reference/rest/v1/accounts/signInWithIdp
///
/// The API key goes in the `key` query parameter, the form Identity Toolkit documents and the only one the
/// Auth emulator accepts (its `apiKey` security scheme is `in: query`); `X-Goog-Api-Key` would keep it out of
/// URLs, but the emulator refuses it. The URL is never logged: `HTTPClientError` drops the query, and every
/// message is scrubbed of the key as well.
package struct IdentityToolkitBackend: SignInBackend {
    private let baseURL: String
    private let tenantId: String?
    /// Holds the API key as its secret.
    private let exchange: BackendExchange

    /// `baseURL` is the API root, e.g. `https://identitytoolkit.googleapis.com/v1` or the emulator's
    /// `http://127.0.0.1:9099/identitytoolkit.googleapis.com/v1`.
    package init(
        baseURL: URL, apiKey: Secret, tenantId: String? = nil, fetcher: any HTTPFetching,
        timeout: Duration = BackendExchange.defaultTimeout
    ) {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.tenantId = tenantId
        exchange = BackendExchange(
            backend: IdentityToolkitAnswer.backendName, secret: apiKey, fetcher: fetcher, timeout: timeout)
    }

    package func signIn(_ request: BackendSignInRequest) async throws(BackendError) -> JSONValue? {
        let sensitive = exchange.sensitiveValues(of: request)
        var body: [String: JSONValue] = [
            "requestUri": .string(request.requestUri),
            "postBody": .string(try IdentityToolkitPostBody.form(for: request)),
            "returnSecureToken": .bool(true),
            "returnIdpCredential": .bool(true),
        ]
        if request.authType.requiresIDToken {
            guard let idToken = request.idToken, !idToken.isEmpty else { throw .invalidIDToken }
            body["idToken"] = .string(idToken)
        }
        if let tenantId { body["tenantId"] = .string(tenantId) }

        let response = try await exchange.post(
            to: baseURL + "/accounts:signInWithIdp?key=" + FormURLEncoding.percentEncode(exchange.secret.reveal()),
            headers: ["Content-Type": "application/json", "Accept": "application/json"],
            body: JSONValue.object(body).serialized(sortingKeys: true), scrubbing: sensitive)
        return try IdentityToolkitAnswer.interpret(
            status: response.status, body: response.body, request: request, scrubbing: sensitive)
    }

}
