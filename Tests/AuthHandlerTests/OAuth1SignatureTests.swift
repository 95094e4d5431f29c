import Foundation
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerCrypto
@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols

struct OAuth1SignatureTests {
    @Test func signingKeyEncodesBothSecretsAndAlwaysHasTheAmpersand() {
        #expect(
            OAuth1Signature.signingKey(consumerSecret: "kd94hf93k423kf44", tokenSecret: "")
                == Array("kd94hf93k423kf44&".utf8))
        #expect(OAuth1Signature.signingKey(consumerSecret: "", tokenSecret: "") == Array("&".utf8))
        #expect(OAuth1Signature.signingKey(consumerSecret: "a&b", tokenSecret: "c d") == Array("a%26b&c%20d".utf8))
    }

    /// RFC 5849 §2.1 and §2.3 print these PLAINTEXT signatures for client secret `ja893SD9`.
    @Test func plaintextIsTheSigningKey() throws {
        let baseString = SignatureBaseString(method: "POST", uri: try BaseStringURI("https://server.example.com/"))
        let temporary = try OAuth1Signature(
            method: .plaintext, baseString: baseString, consumerSecret: "ja893SD9", tokenSecret: "")
        #expect(temporary.value == "ja893SD9&")
        let token = try OAuth1Signature(
            method: .plaintext, baseString: baseString, consumerSecret: "ja893SD9", tokenSecret: "xyz4992k83j47x0b")
        #expect(token.value == "ja893SD9&xyz4992k83j47x0b")
    }

    @Test func hmacSHA256DiffersFromSHA1AndIsA32ByteMAC() throws {
        let baseString = SignatureBaseString(
            method: "GET", uri: try BaseStringURI("https://example.com/"),
            parameters: [URLFormField(name: "a", value: "1")])
        let sha1 = try OAuth1Signature(method: .hmacSHA1, baseString: baseString, consumerSecret: "c", tokenSecret: "t")
        let sha256 = try OAuth1Signature(
            method: .hmacSHA256, baseString: baseString, consumerSecret: "c", tokenSecret: "t")
        #expect(Base64.decode(sha1.value)?.count == 20)
        #expect(Base64.decode(sha256.value)?.count == 32)
        #expect(sha1.value != sha256.value)
    }

    @Test func matchesIsExact() throws {
        let baseString = SignatureBaseString(method: "GET", uri: try BaseStringURI("https://example.com/"))
        let signature = try OAuth1Signature(
            method: .hmacSHA1, baseString: baseString, consumerSecret: "c", tokenSecret: "")
        #expect(signature.matches(signature.value))
        #expect(!signature.matches(String(signature.value.dropLast())))
        #expect(!signature.matches(signature.value + "="))
        #expect(!signature.matches(""))
    }

    @Test func signatureMethodNamesAreCaseSensitive() {
        #expect(OAuth1SignatureMethod(name: "HMAC-SHA1") == .hmacSHA1)
        #expect(OAuth1SignatureMethod(name: "HMAC-SHA256") == .hmacSHA256)
        #expect(OAuth1SignatureMethod(name: "PLAINTEXT") == .plaintext)
        #expect(OAuth1SignatureMethod(name: "hmac-sha1") == nil)
        #expect(OAuth1SignatureMethod(name: "RSA-SHA1") == nil)
        #expect(OAuth1SignatureMethod.default == .hmacSHA1)
    }
}

/// The signer dates `oauth_timestamp` by the wall clock it is given (docs/ARCHITECTURE.md "Time"), not by the
/// process's own clock, so a test moves time instead of waiting.
struct OAuth1SignerClockTests {
    @Test func theTimestampComesFromTheInjectedWallClock() throws {
        var signer = OAuth1Signer(consumerKey: "k", consumerSecret: "s")
        signer.now = { Date(timeIntervalSince1970: 1_318_622_958) }
        let header = try signer.authorizationHeader(method: "GET", url: "https://api.example.com/1/resource")
        #expect(header.parameter("oauth_timestamp") == "1318622958")
        // A fixed timestamp (the known-answer tests') still wins over the clock.
        let fixed = try signer.authorizationHeader(
            method: "GET", url: "https://api.example.com/1/resource", timestamp: 137_131_200)
        #expect(fixed.parameter("oauth_timestamp") == "137131200")
    }
}
