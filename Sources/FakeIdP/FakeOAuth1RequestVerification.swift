import AuthHandlerCore
import AuthHandlerHTTP
import AuthHandlerProtocols
import Foundation

/// The checks every signed OAuth 1.0a request to the fake IdP goes through, in the order a provider runs them.
extension FakeIdPRouter {
    /// The methods the fake IdP verifies.
    static let oauth1Verifier = OAuth1SignatureVerifier(acceptedMethods: [.hmacSHA1, .hmacSHA256, .plaintext])

    /// Parses the `Authorization: OAuth ...` header (400 when absent or malformed); checks nothing else.
    func oauth1Header(_ request: ServerRequest) throws(FakeOAuth1Refusal) -> OAuth1AuthorizationHeader {
        let values = request.headers.values(for: "Authorization")
        guard let value = values.first else {
            throw .malformed(
                "authorization-header",
                "no Authorization header; sign the request and send "
                    + "`Authorization: OAuth oauth_consumer_key=\"...\", ...`")
        }
        guard values.count == 1 else {
            throw .malformed("authorization-header", "more than one Authorization header; send exactly one")
        }
        do {
            return try OAuth1AuthorizationHeader(parsing: value)
        } catch {
            throw FakeOAuth1Refusal(error)
        }
    }

    /// Checks that the protocol parameters are present and well formed (400); returns the signature method.
    func checkOAuth1ProtocolParameters(_ header: OAuth1AuthorizationHeader) throws(FakeOAuth1Refusal)
        -> OAuth1SignatureMethod
    {
        do {
            return try Self.oauth1Verifier.checkProtocolParameters(header)
        } catch {
            throw FakeOAuth1Refusal(error)
        }
    }

    /// A protocol parameter from the header, or else from the form body or the query (RFC 5849 §3.5.2, §3.5.3).
    func oauth1Parameter(_ name: String, header: OAuth1AuthorizationHeader, request: ServerRequest) -> String? {
        header.parameter(name) ?? request.formFields.first(named: name) ?? request.queryItems.first(named: name)
    }

    /// The consumer's secret; 401 when `oauth_consumer_key` names no configured consumer.
    func oauth1ConsumerSecret(_ header: OAuth1AuthorizationHeader) throws(FakeOAuth1Refusal) -> String {
        let key = header.consumerKey ?? ""
        guard let secret = state.configuration.oauth1Secret(forConsumer: key) else {
            throw .unauthorized(
                "consumer", "oauth_consumer_key '\(key)' is not a consumer of this fake IdP; use a configured key")
        }
        return secret
    }

    /// Checks the timestamp window, the signature (or applies a queued bad signature) and the nonce, in that order.
    ///
    /// The nonce is recorded only once the signature is good, so that a forged request cannot burn a
    /// client's nonce. PLAINTEXT may omit timestamp and nonce (RFC 5849 §3.1); when present they are checked.
    func verifyOAuth1Signature(
        _ request: ServerRequest, header: OAuth1AuthorizationHeader, consumerSecret: String, tokenSecret: String,
        failure: FakeFailureKind?
    ) async throws(FakeOAuth1Refusal) {
        if let timestamp = header.timestamp {
            let skew = Double(timestamp) - (await state.now()).timeIntervalSince1970
            let window = state.configuration.timestampWindowSeconds
            guard abs(skew) <= Double(window) else {
                throw .unauthorized(
                    "timestamp",
                    "oauth_timestamp is \(Int64(skew.rounded())) s away from the server clock; "
                        + "the window is ±\(window) s. Sign again with the current time")
            }
        }

        if failure == .badSignature {
            throw .unauthorized(
                "signature", OAuth1Error.signatureMismatch.description + " (fake-idp: queued bad-signature failure)")
        }
        var url = baseURL + request.path
        if !request.rawQuery.isEmpty { url += "?" + request.rawQuery }
        do {
            try Self.oauth1Verifier.verify(
                header: header, method: request.method, url: url, bodyFields: request.formFields,
                consumerSecret: consumerSecret, tokenSecret: tokenSecret)
        } catch {
            throw FakeOAuth1Refusal(error)
        }

        if let nonce = header.nonce, !nonce.isEmpty, let timestamp = header.parameter("oauth_timestamp") {
            let consumerKey = header.consumerKey ?? ""
            guard await state.useNonce(consumerKey: consumerKey, timestamp: timestamp, nonce: nonce) else {
                throw .unauthorized(
                    "nonce",
                    "this oauth_nonce was already used by this consumer with this oauth_timestamp; "
                        + "send a fresh nonce with every request")
            }
        }
    }
}
