import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols
@testable import AuthHandlerSystem
@testable import auth_handler

struct OAuth1SignatureVerifierTests {
    static let url = "https://api.example.com:443/1.1/statuses/update.json?include_entities=true"
    static let body = [URLFormField(name: "status", value: "Hello Ladies + Gentlemen, a signed OAuth request!")]

    static func signedHeader(_ method: OAuth1SignatureMethod = .hmacSHA1) throws -> OAuth1AuthorizationHeader {
        let signer = OAuth1Signer(
            consumerKey: "fake-consumer-key", consumerSecret: "fake-consumer-secret", signatureMethod: method,
            realm: "Example")
        let wire = try signer.authorizationHeader(
            method: "POST", url: url, parameters: body, token: "token", tokenSecret: "token secret")
        return try OAuth1AuthorizationHeader(parsing: wire.value)
    }

    static func verify(
        _ header: OAuth1AuthorizationHeader, method: String = "POST", url: String = url,
        body: [URLFormField] = body, consumerSecret: String = "fake-consumer-secret",
        tokenSecret: String = "token secret", verifier: OAuth1SignatureVerifier = OAuth1SignatureVerifier()
    ) throws(OAuth1Error) {
        try verifier.verify(
            header: header, method: method, url: url, bodyFields: body, consumerSecret: consumerSecret,
            tokenSecret: tokenSecret)
    }

    @Test(arguments: OAuth1SignatureMethod.allCases)
    func signedRequestVerifies(_ method: OAuth1SignatureMethod) throws {
        let header = try Self.signedHeader(method)
        #expect(header.signatureMethodName == method.name)
        #expect(header.realm == "Example")
        try Self.verify(header)
    }

    @Test func explicitQueryFieldsReplaceTheURLQuery() throws {
        let header = try Self.signedHeader()
        try OAuth1SignatureVerifier().verify(
            header: header, method: "POST", url: "https://api.example.com/1.1/statuses/update.json",
            queryFields: [URLFormField(name: "include_entities", value: "true")], bodyFields: Self.body,
            consumerSecret: "fake-consumer-secret", tokenSecret: "token secret")
    }

    @Test func defaultPortAndHostCaseDoNotMatter() throws {
        try Self.verify(
            try Self.signedHeader(), url: "HTTPS://API.example.com/1.1/statuses/update.json?include_entities=true")
    }

    @Test(arguments: OAuth1SignatureMethod.allCases)
    func wrongSecretsAreRefused(_ method: OAuth1SignatureMethod) throws {
        let header = try Self.signedHeader(method)
        #expect(throws: OAuth1Error.signatureMismatch) { try Self.verify(header, consumerSecret: "other") }
        #expect(throws: OAuth1Error.signatureMismatch) { try Self.verify(header, tokenSecret: "other") }
        #expect(throws: OAuth1Error.signatureMismatch) { try Self.verify(header, tokenSecret: "") }
    }

    @Test func tamperedBodyParameterIsRefused() throws {
        let header = try Self.signedHeader()
        #expect(throws: OAuth1Error.signatureMismatch) {
            try Self.verify(header, body: [URLFormField(name: "status", value: "Hello Ladies")])
        }
        #expect(throws: OAuth1Error.signatureMismatch) {
            try Self.verify(header, body: Self.body + [URLFormField(name: "extra", value: "1")])
        }
        #expect(throws: OAuth1Error.signatureMismatch) { try Self.verify(header, body: []) }
    }

    @Test func tamperedProtocolParameterIsRefused() throws {
        var header = try Self.signedHeader()
        let index = try #require(header.parameters.firstIndex { $0.name == "oauth_timestamp" })
        header.parameters[index].value = "1"
        #expect(throws: OAuth1Error.signatureMismatch) { try Self.verify(header) }
    }

    @Test func changingTheRealmDoesNotMatter() throws {
        var header = try Self.signedHeader()
        header.realm = "Elsewhere"
        try Self.verify(header)
    }

    @Test func wrongMethodIsRefused() throws {
        let header = try Self.signedHeader()
        #expect(throws: OAuth1Error.signatureMismatch) { try Self.verify(header, method: "GET") }
    }

    @Test(
        arguments: [
            "http://api.example.com/1.1/statuses/update.json?include_entities=true",
            "https://api.example.com:8443/1.1/statuses/update.json?include_entities=true",
            "https://evil.example.com/1.1/statuses/update.json?include_entities=true",
            "https://api.example.com/1.1/statuses/Update.json?include_entities=true",
            "https://api.example.com/1.1/statuses/update.json?include_entities=false",
            "https://api.example.com/1.1/statuses/update.json",
        ])
    func wrongURLIsRefused(_ url: String) throws {
        let header = try Self.signedHeader()
        #expect(throws: OAuth1Error.signatureMismatch) { try Self.verify(header, url: url) }
    }

    @Test func plaintextStillBindsTheSecretsButNotTheRequest() throws {
        let header = try Self.signedHeader(.plaintext)
        #expect(header.signature == "fake-consumer-secret&token%20secret")
        try Self.verify(header, method: "GET", body: [])
    }

    @Test func methodsOutsideTheAcceptedSetAreRefused() throws {
        let header = try Self.signedHeader(.plaintext)
        let verifier = OAuth1SignatureVerifier(acceptedMethods: [.hmacSHA1, .hmacSHA256])
        #expect(throws: OAuth1Error.unsupportedSignatureMethod("PLAINTEXT")) {
            try Self.verify(header, verifier: verifier)
        }
    }

    static func header(replacing name: String, with value: String?) throws -> OAuth1AuthorizationHeader {
        var header = try signedHeader()
        header.parameters.removeAll { $0.name == name }
        if let value { header.parameters.append(URLFormField(name: name, value: value)) }
        return header
    }

    @Test(
        arguments: [
            ("oauth_signature", nil, OAuth1Error.missingProtocolParameter("oauth_signature")),
            ("oauth_consumer_key", nil, .missingProtocolParameter("oauth_consumer_key")),
            ("oauth_signature_method", nil, .missingProtocolParameter("oauth_signature_method")),
            ("oauth_signature_method", "RSA-SHA1", .unsupportedSignatureMethod("RSA-SHA1")),
            ("oauth_signature_method", "hmac-sha1", .unsupportedSignatureMethod("hmac-sha1")),
            ("oauth_timestamp", nil, .missingProtocolParameter("oauth_timestamp")),
            ("oauth_timestamp", "soon", .invalidTimestamp("soon")),
            ("oauth_nonce", nil, .missingProtocolParameter("oauth_nonce")),
            ("oauth_nonce", "", .missingProtocolParameter("oauth_nonce")),
            ("oauth_version", "2.0", .unsupportedVersion("2.0")),
        ] as [(String, String?, OAuth1Error)])
    func malformedProtocolParametersAreRefusedBeforeAnyLookUp(
        _ name: String, _ value: String?, _ expected: OAuth1Error
    ) throws {
        let header = try Self.header(replacing: name, with: value)
        #expect(throws: expected) { try OAuth1SignatureVerifier().checkProtocolParameters(header) }
        #expect(throws: expected) { try Self.verify(header) }
    }

    @Test func statusFollowsRFC5849Section3Point2() {
        #expect(OAuth1Error.signatureMismatch.httpStatus == 401)
        #expect(OAuth1Error.duplicateProtocolParameter("oauth_nonce").httpStatus == 400)
        #expect(OAuth1Error.unsupportedSignatureMethod("RSA-SHA1").httpStatus == 400)
        #expect(OAuth1Error.missingProtocolParameter("oauth_signature").httpStatus == 400)
        #expect(OAuth1Error.notOAuthScheme.httpStatus == 400)
    }

    @Test func protocolParameterRepeatedInTheBodyOrQueryIsRefused() throws {
        let header = try Self.signedHeader()
        #expect(throws: OAuth1Error.duplicateProtocolParameter("oauth_token")) {
            try Self.verify(header, body: Self.body + [URLFormField(name: "oauth_token", value: "token")])
        }
        #expect(throws: OAuth1Error.duplicateProtocolParameter("oauth_verifier")) {
            try Self.verify(header, url: Self.url + "&oauth_verifier=v&oauth_verifier=v")
        }
    }

    @Test func signerRefusesOAuthPrefixedRequestParameters() {
        let signer = OAuth1Signer(consumerKey: "k", consumerSecret: "s")
        #expect(throws: OAuth1Error.protocolParameterInRequestParameters("oauth_token")) {
            try signer.authorizationHeader(
                method: "POST", url: "https://example.com/", parameters: [URLFormField(name: "oauth_token", value: "t")]
            )
        }
        #expect(throws: OAuth1Error.protocolParameterInRequestParameters("oauth_callback")) {
            try signer.authorizationHeader(method: "POST", url: "https://example.com/?oauth_callback=x")
        }
    }

    @Test func signerMakesAFreshRandomNonceAndTheCurrentTimestamp() throws {
        let signer = OAuth1Signer(consumerKey: "k", consumerSecret: "s")
        let first = try signer.authorizationHeader(method: "POST", url: "https://example.com/")
        let second = try signer.authorizationHeader(method: "POST", url: "https://example.com/")
        let nonce = try #require(first.nonce)
        #expect(nonce.utf8.count == 43)
        #expect(nonce.utf8.allSatisfy(RFC3986.isUnreserved))
        #expect(nonce != second.nonce)
        let timestamp = try #require(first.timestamp)
        #expect(timestamp > 1_700_000_000)
        #expect(first.token == nil)
    }
}
