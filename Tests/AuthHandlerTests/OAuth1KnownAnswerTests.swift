import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerCrypto
@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols
@testable import auth_handler

/// Published OAuth 1.0a vectors: RFC 5849 §1.2 and §3.4.1.1 (with errata 2550), and Twitter's
/// "Creating a signature" page (developer.twitter.com/en/docs/authentication/oauth-1-0a/creating-a-signature).
struct OAuth1KnownAnswerTests {
    /// RFC 5849 §1.2: printer.example.com's client credentials at photos.example.net.
    let rfcPrinter = OAuth1Signer(
        consumerKey: "dpf43f3p2l4k3l03", consumerSecret: "kd94hf93k423kf44", realm: "Photos", sendsVersion: false)

    @Test("RFC 5849 §1.2 initiate: 74KNZJeDHnMBp0EMJ9ZHt/XKycU=")
    func rfc5849InitiateRequest() throws {
        let header = try rfcPrinter.authorizationHeader(
            method: "POST", url: "https://photos.example.net/initiate", callback: "http://printer.example.com/ready",
            nonce: "wIjqoS", timestamp: 137_131_200)
        #expect(header.signature == "74KNZJeDHnMBp0EMJ9ZHt/XKycU=")
        #expect(header.value.contains(#"oauth_signature="74KNZJeDHnMBp0EMJ9ZHt%2FXKycU%3D""#))
        #expect(header.value.contains(#"oauth_callback="http%3A%2F%2Fprinter.example.com%2Fready""#))
    }

    @Test("RFC 5849 §1.2 token: gKgrFCywp7rO0OXSjdot/IHF7IU=")
    func rfc5849TokenRequest() throws {
        let header = try rfcPrinter.authorizationHeader(
            method: "POST", url: "https://photos.example.net/token", token: "hh5s93j4hdidpola",
            tokenSecret: "hdhd0244k9j7ao03", verifier: "hfdp7dh39dks9884", nonce: "walatlh", timestamp: 137_131_201)
        #expect(header.signature == "gKgrFCywp7rO0OXSjdot/IHF7IU=")
    }

    /// §1.2 calls the first two requests HTTPS but not this one, and the printed value is the `http://`
    /// signature; over `https://` the same request signs as `91yh92rtXzicpezVYjTDNzieVps=`.
    @Test("RFC 5849 §1.2 GET /photos: MdpQcU8iPSUjWoN/UDMsK2sui9I=")
    func rfc5849PhotosRequest() throws {
        let header = try rfcPrinter.authorizationHeader(
            method: "GET", url: "http://photos.example.net/photos?file=vacation.jpg&size=original",
            token: "nnch734d00sl2jdk", tokenSecret: "pfkkdhi9sl3r4s00", nonce: "chapoH", timestamp: 137_131_202)
        #expect(header.signature == "MdpQcU8iPSUjWoN/UDMsK2sui9I=")
    }

    @Test("RFC 5849 §1.2 initiate header as printed verifies on the server side")
    func rfc5849PrintedInitiateHeaderVerifies() throws {
        let header = try OAuth1AuthorizationHeader(
            parsing: """
                OAuth realm="Photos", oauth_consumer_key="dpf43f3p2l4k3l03", oauth_signature_method="HMAC-SHA1", \
                oauth_timestamp="137131200", oauth_nonce="wIjqoS", \
                oauth_callback="http%3A%2F%2Fprinter.example.com%2Fready", \
                oauth_signature="74KNZJeDHnMBp0EMJ9ZHt%2FXKycU%3D"
                """)
        #expect(header.realm == "Photos")
        #expect(header.callback == "http://printer.example.com/ready")
        #expect(header.timestamp == 137_131_200)
        #expect(header.nonce == "wIjqoS")
        try OAuth1SignatureVerifier().verify(
            header: header, method: "POST", url: "https://photos.example.net/initiate",
            consumerSecret: "kd94hf93k423kf44")
    }

    /// The §3.4.1.1 request: `POST /request?b5=%3D%253D&a3=a&c%40=&a2=r%20b` with body `c2&a3=2+q`.
    static let rfcExampleURL = "http://example.com/request?b5=%3D%253D&a3=a&c%40=&a2=r%20b"
    static let rfcExampleBody = [URLFormField(name: "c2", value: ""), URLFormField(name: "a3", value: "2 q")]
    static let rfcExampleProtocolParameters = [
        URLFormField(name: "oauth_consumer_key", value: "9djdj82h48djs9d2"),
        URLFormField(name: "oauth_token", value: "kkk9d7dh3k39sjv7"),
        URLFormField(name: "oauth_signature_method", value: "HMAC-SHA1"),
        URLFormField(name: "oauth_timestamp", value: "137131201"),
        URLFormField(name: "oauth_nonce", value: "7d8f3e4a"),
    ]

    static func rfcExampleBaseString() throws -> SignatureBaseString {
        let uri = try BaseStringURI(rfcExampleURL)
        let query = try FormURLEncoding.decode(uri.query ?? "")
        return SignatureBaseString(
            method: "POST", uri: uri, parameters: query, rfcExampleBody, rfcExampleProtocolParameters)
    }

    @Test("RFC 5849 §3.4.1.1 base string: POST&http%3A%2F%2Fexample.com%2Frequest&a2%3Dr%2520b%26a3%3D2%2520q…")
    func rfc5849BaseString() throws {
        let expected =
            "POST&http%3A%2F%2Fexample.com%2Frequest&a2%3Dr%2520b%26a3%3D2%2520q"
            + "%26a3%3Da%26b5%3D%253D%25253D%26c%2540%3D%26c2%3D%26oauth_consumer_"
            + "key%3D9djdj82h48djs9d2%26oauth_nonce%3D7d8f3e4a%26oauth_signature_m"
            + "ethod%3DHMAC-SHA1%26oauth_timestamp%3D137131201%26oauth_token%3Dkkk" + "9d7dh3k39sjv7"
        #expect(try Self.rfcExampleBaseString().string == expected)
    }

    @Test("RFC 5849 §3.4.1.3.2 normalised parameters: a2=r%20b&a3=2%20q&a3=a&b5=%3D%253D&c%40=&c2=&oauth_…")
    func rfc5849NormalizedParameters() throws {
        let query = try FormURLEncoding.decode("b5=%3D%253D&a3=a&c%40=&a2=r%20b")
        let expected =
            "a2=r%20b&a3=2%20q&a3=a&b5=%3D%253D&c%40=&c2=&oauth_consumer_key=9dj"
            + "dj82h48djs9d2&oauth_nonce=7d8f3e4a&oauth_signature_method=HMAC-SHA1"
            + "&oauth_timestamp=137131201&oauth_token=kkk9d7dh3k39sjv7"
        #expect(
            SignatureBaseString.normalizedParameters(query, Self.rfcExampleBody, Self.rfcExampleProtocolParameters)
                == expected)
    }

    @Test("RFC 5849 §3.4.1.1 signature (errata 2550): r6/TJjbCOr97/+UU0NsvSne7s5g=")
    func rfc5849ExampleSignature() throws {
        let baseString = try Self.rfcExampleBaseString()
        let signature = try OAuth1Signature(
            method: .hmacSHA1, baseString: baseString, consumerSecret: "j49sk3j29djd", tokenSecret: "dh893hdasih9")
        #expect(signature.value == "r6/TJjbCOr97/+UU0NsvSne7s5g=")
    }

    @Test("RFC 5849 §3.4.1.1 signature as printed, bYT5CMsGcbgUdFHObYMEfcx6bsw=, is wrong (errata 2550)")
    func rfc5849PrintedSignatureIsTheErratum() throws {
        let baseString = try Self.rfcExampleBaseString()
        let signature = try OAuth1Signature(
            method: .hmacSHA1, baseString: baseString, consumerSecret: "j49sk3j29djd", tokenSecret: "dh893hdasih9")
        #expect(!signature.matches("bYT5CMsGcbgUdFHObYMEfcx6bsw="))
    }

    @Test("Twitter creating-a-signature: hCtSmYh+iHYCEqBWrE7C7hYmtUk=")
    func twitterCreatingASignature() throws {
        let signer = OAuth1Signer(
            consumerKey: "xvz1evFS4wEEPTGEFPHBog", consumerSecret: "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw")
        let header = try signer.authorizationHeader(
            method: "POST", url: "https://api.twitter.com/1.1/statuses/update.json?include_entities=true",
            parameters: [URLFormField(name: "status", value: "Hello Ladies + Gentlemen, a signed OAuth request!")],
            token: "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb",
            tokenSecret: "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE",
            nonce: "kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg", timestamp: 1_318_622_958)
        #expect(header.signature == "hCtSmYh+iHYCEqBWrE7C7hYmtUk=")
        #expect(header.value.contains(#"oauth_signature="hCtSmYh%2BiHYCEqBWrE7C7hYmtUk%3D""#))
        #expect(header.version == "1.0")
    }
}
