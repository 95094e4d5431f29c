import AuthHandlerHTTP

/// Verifies the signature of an incoming OAuth 1.0a request (RFC 5849 §3.2), as a provider does.
///
/// Use in two steps: `checkProtocolParameters` before looking anything up (it needs no secrets and
/// refuses malformed requests with a 400-class error), then `verify` with the secrets found under
/// `header.consumerKey` and `header.token`. Timestamp window and nonce replay are the caller's policy:
/// `header.timestamp` and `header.nonce` carry the values.
package struct OAuth1SignatureVerifier: Sendable {
    /// The signature methods this server accepts.
    package var acceptedMethods: Set<OAuth1SignatureMethod>

    package init(acceptedMethods: Set<OAuth1SignatureMethod> = Set(OAuth1SignatureMethod.allCases)) {
        self.acceptedMethods = acceptedMethods
    }

    /// Checks that the required protocol parameters are present and well formed; returns the signature method.
    package func checkProtocolParameters(_ header: OAuth1AuthorizationHeader) throws(OAuth1Error)
        -> OAuth1SignatureMethod
    {
        guard header.consumerKey != nil else { throw .missingProtocolParameter("oauth_consumer_key") }
        guard let methodName = header.signatureMethodName else {
            throw .missingProtocolParameter("oauth_signature_method")
        }
        guard let method = OAuth1SignatureMethod(name: methodName), acceptedMethods.contains(method) else {
            throw .unsupportedSignatureMethod(methodName)
        }
        guard header.signature != nil else { throw .missingProtocolParameter("oauth_signature") }
        if let version = header.version, version != "1.0" { throw .unsupportedVersion(version) }
        if let text = header.parameter("oauth_timestamp"), header.timestamp == nil { throw .invalidTimestamp(text) }
        if method.usesBaseString {
            guard header.timestamp != nil else { throw .missingProtocolParameter("oauth_timestamp") }
            guard let nonce = header.nonce, !nonce.isEmpty else { throw .missingProtocolParameter("oauth_nonce") }
        }
        return method
    }

    /// Verifies the request's signature in constant time; throws `signatureMismatch` when it is wrong.
    ///
    /// - Parameters:
    ///   - header: the parsed `Authorization` header.
    ///   - method: the HTTP method of the request as received.
    ///   - url: the absolute request URL as the client addressed it (scheme, `Host`, path).
    ///   - queryFields: the decoded query; nil to take it from `url`.
    ///   - bodyFields: the decoded body, only when it is `application/x-www-form-urlencoded` (§3.4.1.3.1).
    ///   - consumerSecret: the secret of `header.consumerKey`.
    ///   - tokenSecret: the secret of `header.token`; empty when the request carries no token.
    package func verify(
        header: OAuth1AuthorizationHeader, method: String, url: String, queryFields: [URLFormField]? = nil,
        bodyFields: [URLFormField] = [], consumerSecret: String, tokenSecret: String = ""
    ) throws(OAuth1Error) {
        let signatureMethod = try checkProtocolParameters(header)
        let uri = try BaseStringURI(url)
        let query: [URLFormField]
        if let queryFields {
            query = queryFields
        } else if let rawQuery = uri.query {
            guard let fields = try? FormURLEncoding.decode(rawQuery) else {
                throw .invalidPercentEncoding(parameter: "the URL query")
            }
            query = fields
        } else {
            query = []
        }
        try refuseRepeatedProtocolParameters(header: header, query: query, body: bodyFields)

        let expected = try OAuth1Signature(
            method: signatureMethod,
            baseString: SignatureBaseString(method: method, uri: uri, query, bodyFields, header.parameters),
            consumerSecret: consumerSecret, tokenSecret: tokenSecret)
        guard let received = header.signature, expected.matches(received) else { throw .signatureMismatch }
    }

    /// Refuses an `oauth_*` parameter sent both in the header and in the query or body, or twice there
    /// (§3.1 step 2, §3.5: one location, once).
    private func refuseRepeatedProtocolParameters(
        header: OAuth1AuthorizationHeader, query: [URLFormField], body: [URLFormField]
    ) throws(OAuth1Error) {
        var seen: Set<String> = []
        for list in [query, body] {
            for field in list where OAuth1Signer.hasProtocolPrefix(field.name) {
                guard header.parameter(field.name) == nil, seen.insert(field.name).inserted else {
                    throw .duplicateProtocolParameter(field.name)
                }
            }
        }
    }
}
