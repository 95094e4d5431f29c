import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerSystem
import Foundation

/// Signs outgoing OAuth 1.0a requests (RFC 5849 §3.1) and gives the `Authorization` header to send.
///
/// Protocol parameters travel only in the header (§3.5.1, the preferred method); the caller sends the
/// request parameters it passes here in the URL query or the form body, exactly as signed.
package struct OAuth1Signer: Sendable {
    /// `oauth_consumer_key`: the client identifier.
    package var consumerKey: String
    /// The client shared secret.
    package var consumerSecret: String
    /// The signature method; HMAC-SHA1 by default.
    package var signatureMethod: OAuth1SignatureMethod
    /// The optional realm put in the header (never signed).
    package var realm: String?
    /// Whether to send the optional `oauth_version="1.0"`; Twitter's documentation sends it.
    package var sendsVersion: Bool
    /// The wall clock `oauth_timestamp` is read from (§3.3: seconds since the epoch, which the server compares with
    /// its own clock; docs/ARCHITECTURE.md "Time"); the system's unless set.
    package var now: WallClock = systemWallClock

    package init(
        consumerKey: String, consumerSecret: String, signatureMethod: OAuth1SignatureMethod = .default,
        realm: String? = nil, sendsVersion: Bool = true
    ) {
        self.consumerKey = consumerKey
        self.consumerSecret = consumerSecret
        self.signatureMethod = signatureMethod
        self.realm = realm
        self.sendsVersion = sendsVersion
    }

    /// Signs a request and returns its `Authorization` header (use `.value` for the field value).
    ///
    /// - Parameters:
    ///   - method: the HTTP method, e.g. `POST`.
    ///   - url: the absolute request URL; a query in it is signed as request parameters.
    ///   - parameters: decoded form-body parameters (and any query parameters not already in `url`).
    ///   - token: `oauth_token`, the temporary or token credential; nil for a temporary-credential request.
    ///   - tokenSecret: the matching secret; empty when there is no token (§2.1).
    ///   - callback: `oauth_callback` for the temporary-credential request (§2.1).
    ///   - verifier: `oauth_verifier` for the token request (§2.3).
    ///   - nonce: a fixed nonce for known-answer tests; by default 32 CSPRNG bytes as base64url.
    ///   - timestamp: a fixed timestamp for known-answer tests; by default the Unix time of ``now``.
    package func authorizationHeader(
        method: String, url: String, parameters: [URLFormField] = [], token: String? = nil, tokenSecret: String = "",
        callback: String? = nil, verifier: String? = nil, nonce: String? = nil, timestamp: Int64? = nil
    ) throws(OAuth1Error) -> OAuth1AuthorizationHeader {
        let uri = try BaseStringURI(url)
        var queryFields: [URLFormField] = []
        if let query = uri.query {
            guard let fields = try? FormURLEncoding.decode(query) else {
                throw .invalidPercentEncoding(parameter: "the URL query")
            }
            queryFields = fields
        }
        for field in queryFields where Self.hasProtocolPrefix(field.name) {
            throw .protocolParameterInRequestParameters(field.name)
        }
        for field in parameters where Self.hasProtocolPrefix(field.name) {
            throw .protocolParameterInRequestParameters(field.name)
        }

        let chosenNonce: String
        if let nonce {
            chosenNonce = nonce
        } else {
            do { chosenNonce = try SecureRandom.base64URLString(byteCount: 32) } catch { throw .crypto(error) }
        }
        let chosenTimestamp = timestamp ?? Int64(now().timeIntervalSince1970)

        var protocolParameters: [URLFormField] = []
        protocolParameters.reserveCapacity(9)
        protocolParameters.append(URLFormField(name: "oauth_consumer_key", value: consumerKey))
        if let token, !token.isEmpty { protocolParameters.append(URLFormField(name: "oauth_token", value: token)) }
        protocolParameters.append(URLFormField(name: "oauth_signature_method", value: signatureMethod.name))
        protocolParameters.append(URLFormField(name: "oauth_timestamp", value: String(chosenTimestamp)))
        protocolParameters.append(URLFormField(name: "oauth_nonce", value: chosenNonce))
        if let callback { protocolParameters.append(URLFormField(name: "oauth_callback", value: callback)) }
        if let verifier { protocolParameters.append(URLFormField(name: "oauth_verifier", value: verifier)) }
        if sendsVersion { protocolParameters.append(URLFormField(name: "oauth_version", value: "1.0")) }

        let signature = try OAuth1Signature(
            method: signatureMethod,
            baseString: SignatureBaseString(method: method, uri: uri, queryFields, parameters, protocolParameters),
            consumerSecret: consumerSecret, tokenSecret: tokenSecret)
        protocolParameters.append(URLFormField(name: "oauth_signature", value: signature.value))
        return OAuth1AuthorizationHeader(realm: realm, parameters: protocolParameters)
    }

    /// The `oauth_` prefix of protocol parameters (§3.5), compared exactly: names are case-sensitive (§3.1).
    static func hasProtocolPrefix(_ name: String) -> Bool {
        name.utf8.starts(with: "oauth_".utf8)
    }
}
