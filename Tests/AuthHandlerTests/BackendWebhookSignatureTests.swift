import AuthHandlerSystem
import Foundation
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerCrypto

/// `WebhookSignature`: known answer, verification, and every refusal.
struct BackendWebhookSignatureTests {
    static let secret = "whsec_test_secret"
    static let timestamp = "1700000000"
    static let body = Array(#"{"providerId":"github.com"}"#.utf8)
    static let now = Date(timeIntervalSince1970: 1_700_000_000)
    /// `printf '%s' '1700000000.{"providerId":"github.com"}' | openssl dgst -sha256 -hmac 'whsec_test_secret'`
    static let knownHeader = "sha256=d313411bf87b8c110e7defa275b7c3d2b19c9cb309751376872631bd36835809"

    private static func verify(
        secret: String = secret, timestamp: String = timestamp, body: [UInt8] = body, header: String = knownHeader,
        now: Date = now
    ) -> WebhookSignatureError? {
        do {
            try WebhookSignature.verify(
                secret: secret, timestamp: timestamp, body: body, header: header, now: { now })
            return nil
        } catch {
            return error
        }
    }

    @Test func signMatchesTheOpenSSLKnownAnswer() throws {
        #expect(
            try WebhookSignature.sign(secret: Self.secret, timestamp: Self.timestamp, body: Self.body)
                == Self.knownHeader)
    }

    @Test func knownAnswerVerifies() {
        #expect(Self.verify() == nil)
        let atSigning: WallClock = { Self.now }
        let valid = WebhookSignature.isValid(
            secret: Self.secret, timestamp: Self.timestamp, body: Self.body, header: Self.knownHeader, now: atSigning)
        #expect(valid)
    }

    @Test func uppercaseHexIsAccepted() {
        let upper = "sha256=" + Self.knownHeader.dropFirst(7).uppercased()
        #expect(Self.verify(header: upper) == nil)
    }

    @Test func tamperedBodyIsRefused() {
        #expect(Self.verify(body: Array(#"{"providerId":"github.con"}"#.utf8)) == .mismatch)
        #expect(Self.verify(body: Self.body + [0x20]) == .mismatch)
    }

    @Test func tamperedTimestampIsRefused() {
        #expect(Self.verify(timestamp: "1700000001") == .mismatch)
    }

    @Test func wrongSecretIsRefused() {
        #expect(Self.verify(secret: "whsec_other") == .mismatch)
    }

    @Test func timestampsOutsideTheToleranceAreRefused() {
        #expect(Self.verify(now: Self.now.addingTimeInterval(300)) == nil)
        #expect(Self.verify(now: Self.now.addingTimeInterval(301)) == .timestampOutsideTolerance(skewSeconds: 301))
        #expect(Self.verify(now: Self.now.addingTimeInterval(-301)) == .timestampOutsideTolerance(skewSeconds: -301))
        let later: WallClock = { Self.now.addingTimeInterval(31) }
        let refused =
            (try? WebhookSignature.verify(
                secret: Self.secret, timestamp: Self.timestamp, body: Self.body, header: Self.knownHeader,
                tolerance: .seconds(30), now: later)) == nil
        #expect(refused)
    }

    @Test(arguments: [
        "", "d313411bf87b8c110e7defa275b7c3d2b19c9cb309751376872631bd36835809", "sha1=d313",
        "sha256=", "sha256=d313411bf87b8c110e7defa275b7c3d2b19c9cb309751376872631bd3683580",
        "sha256=zz13411bf87b8c110e7defa275b7c3d2b19c9cb309751376872631bd36835809",
        "SHA256=d313411bf87b8c110e7defa275b7c3d2b19c9cb309751376872631bd36835809",
    ])
    func malformedHeadersAreRefused(header: String) {
        #expect(Self.verify(header: header) == .malformedSignature)
    }

    @Test(arguments: ["", "-1700000000", "1700000000.5", " 1700000000", "17e8", "9999999999999"])
    func malformedTimestampsAreRefused(timestamp: String) {
        #expect(Self.verify(timestamp: timestamp) == .malformedTimestamp)
    }

    @Test func refusalsSayWhatToCheck() {
        #expect(WebhookSignatureError.mismatch.description.contains("same secret"))
        #expect(WebhookSignatureError.timestampOutsideTolerance(skewSeconds: 400).description.contains("400 s"))
    }
}
