import Foundation
import TestSupport
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerCrypto
@testable import AuthHandlerHTTP
@testable import auth_handler

/// The webhook backend (HTTP-API.md §2.8): the signed JSON request, and how its answers map to §3.3.
struct BackendWebhookTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000.75)
    static let url = URL(string: "https://hooks.example.com/sign-in")!

    private static func backend(_ fetcher: ScriptedHTTP) -> WebhookBackend {
        WebhookBackend(url: url, secret: Secret(BackendFixture.webhookSecret), fetcher: fetcher, now: { now })
    }

    private static func error(status: Int, body: String) async -> BackendError? {
        let fetcher = ScriptedHTTP(status: status, body: body)
        let error = await BackendFixture.error { () async throws(BackendError) -> JSONValue? in
            try await backend(fetcher).signIn(BackendFixture.twitter())
        }
        BackendFixture.expectNoSecrets(in: error)
        return error
    }

    @Test func requestIsSignedJSONOfTheCredentialAndProfile() async throws {
        let fetcher = ScriptedHTTP(status: 200, body: #"{"uid":"u1"}"#)
        _ = try await Self.backend(fetcher).signIn(BackendFixture.twitter())
        let request = try #require(fetcher.onlyRequest())
        #expect(request.method == "POST")
        #expect(request.url == "https://hooks.example.com/sign-in")
        #expect(request.headers["Content-Type"] == "application/json")
        #expect(request.timeout == .seconds(10))
        #expect(request.headers["X-Auth-Handler-Timestamp"] == "1700000000")

        let body = try #require(BackendFixture.json(request))
        #expect(body["providerId"] == .string("twitter.com"))
        #expect(body["authType"] == .string("signInViaRedirect"))
        #expect(body["eventId"] == .string("e1"))
        #expect(body["credential"]?["accessToken"] == .string(BackendFixture.twitterToken))
        #expect(body["credential"]?["secret"] == .string(BackendFixture.twitterSecret))
        #expect(body["credential"]?["idToken"] == .null)
        #expect(body["profile"]?["id"] == .string("783214"))
        #expect(body["profile"]?["screenName"] == .string("twitterdev"))
        #expect(body["idToken"] == nil)
        // A request built outside the flow has no result id: the delivery counts as its own result.
        let deliveryId = try #require(body["deliveryId"]?.stringValue)
        #expect(deliveryId.wholeMatch(of: /[0-9a-f]{32}/) != nil, "\(deliveryId)")
        #expect(body["resultId"]?.stringValue == deliveryId)
        #expect(body.objectValue?.count == 7)

        // Independent recomputation: HMAC-SHA256 over the exact bytes sent, hex written with String(format:).
        let timestamp = try #require(request.headers["X-Auth-Handler-Timestamp"])
        let mac = try HMAC.sha256(
            key: Array(BackendFixture.webhookSecret.utf8), message: Array((timestamp + ".").utf8) + request.body)
        let expected = "sha256=" + mac.map { String(format: "%02x", $0) }.joined()
        let header = try #require(request.headers["X-Auth-Handler-Signature"])
        #expect(header == expected)
        try WebhookSignature.verify(
            secret: BackendFixture.webhookSecret, timestamp: timestamp, body: request.body, header: header,
            now: { Self.now })
    }

    /// Retries of one result (here three, each answered 503, as a slow receiver's time-outs are) carry the result's id
    /// unchanged and a fresh delivery id each, both inside the signed body: a receiver dedupes by `resultId`, and
    /// changing either id breaks the signature (HTTP-API.md §2.8).
    @Test func retriesOfOneResultShareTheResultIdAndEachIdIsSigned() async throws {
        let fetcher = ScriptedHTTP(status: 503, body: "")
        var request = BackendFixture.twitter()
        request.resultId = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
        for _ in 0..<3 {
            let error = await BackendFixture.error { () async throws(BackendError) -> JSONValue? in
                try await Self.backend(fetcher).signIn(request)
            }
            #expect(error?.isTransient == true)
        }
        let sent = fetcher.requests
        #expect(sent.count == 3)
        var deliveryIds: Set<String> = []
        for delivery in sent {
            let body = try #require(BackendFixture.json(delivery))
            #expect(body["resultId"]?.stringValue == "0f1e2d3c4b5a69788796a5b4c3d2e1f0")
            let deliveryId = try #require(body["deliveryId"]?.stringValue)
            #expect(deliveryId.wholeMatch(of: /[0-9a-f]{32}/) != nil, "\(deliveryId)")
            deliveryIds.insert(deliveryId)

            let timestamp = try #require(delivery.headers[WebhookSignature.timestampHeader])
            let header = try #require(delivery.headers[WebhookSignature.signatureHeader])
            try WebhookSignature.verify(
                secret: BackendFixture.webhookSecret, timestamp: timestamp, body: delivery.body, header: header,
                now: { Self.now })
            // Either id changed (one hex digit) and the signature no longer matches.
            let text = String(decoding: delivery.body, as: UTF8.self)
            for id in ["0f1e2d3c4b5a69788796a5b4c3d2e1f0", deliveryId] {
                let altered = text.replacingOccurrences(
                    of: "\"\(id)\"", with: "\"\(id.dropLast())\(id.last == "0" ? "1" : "0")\"")
                #expect(altered != text)
                #expect(throws: WebhookSignatureError.mismatch) {
                    try WebhookSignature.verify(
                        secret: BackendFixture.webhookSecret, timestamp: timestamp, body: Array(altered.utf8),
                        header: header, now: { Self.now })
                }
            }
        }
        #expect(deliveryIds.count == 3)
    }

    @Test func linkCarriesTheAppIDTokenAndANullEventId() async throws {
        let fetcher = ScriptedHTTP(status: 200, body: "{}")
        var request = BackendFixture.twitter(authType: .linkViaRedirect, idToken: BackendFixture.appIDToken)
        request.eventId = nil
        _ = try await Self.backend(fetcher).signIn(request)
        let body = try #require(BackendFixture.json(fetcher.onlyRequest()))
        #expect(body["authType"] == .string("linkViaRedirect"))
        #expect(body["idToken"] == .string(BackendFixture.appIDToken))
        #expect(body["eventId"] == .null)
    }

    @Test func successAnswerIsTheSignInJSON() async throws {
        let fetcher = ScriptedHTTP(status: 200, body: #"{"idToken":"app","localId":"u1","isNewUser":true}"#)
        let signIn = try await Self.backend(fetcher).signIn(BackendFixture.twitter())
        #expect(
            signIn == .object(["idToken": .string("app"), "localId": .string("u1"), "isNewUser": .bool(true)]))
    }

    @Test(arguments: [(204, ""), (200, ""), (200, " \r\n")])
    func emptySuccessIsNull(status: Int, body: String) async throws {
        let fetcher = ScriptedHTTP(status: status, body: body)
        #expect(try await Self.backend(fetcher).signIn(BackendFixture.twitter()) == .null)
    }

    @Test func nonJSONSuccessIsRejected() async throws {
        let error = await Self.error(status: 200, body: "OK")
        #expect(error?.code == .backendError)
        #expect(error?.isTransient == false)
    }

    @Test func conflictAnswersMapToTheirCases() async throws {
        let exists = await Self.error(
            status: 409,
            body:
                #"{"error":{"code":"account-exists-with-different-credential","email":"a@example.com","verifiedProviders":["google.com"]}}"#
        )
        #expect(
            exists
                == .accountExistsWithDifferentCredential(
                    email: "a@example.com", providerId: "twitter.com", verifiedProviders: ["google.com"]))
        #expect(exists?.httpStatus == 409)

        let inUse = await Self.error(status: 409, body: #"{"error":{"code":"credential-already-in-use"}}"#)
        #expect(inUse == .credentialAlreadyInUse(email: nil, providerId: "twitter.com"))
        #expect(inUse?.httpStatus == 409)
        #expect(inUse?.code == .credentialAlreadyInUse)
    }

    @Test func otherDocumentedCodesAreUnderstood() async throws {
        #expect(
            await Self.error(status: 409, body: #"{"error":{"code":"email-already-in-use","email":"b@x.org"}}"#)
                == .emailExists(email: "b@x.org"))
        #expect(await Self.error(status: 403, body: #"{"error":{"code":"user-disabled"}}"#) == .userDisabled)
        #expect(await Self.error(status: 401, body: #"{"error":{"code":"invalid-id-token"}}"#) == .invalidIDToken)
        #expect(
            await Self.error(
                status: 401,
                body: #"{"error":{"code":"second-factor-required","mfaPendingCredential":"p1","mfaInfo":[]}}"#)
                == .secondFactorRequired(mfaPendingCredential: "p1", mfaInfo: .array([])))
    }

    @Test(arguments: [
        (400, #"{"error":{"code":"bad-request","message":"no"}}"#), (409, #"{"error":{"code":"something-else"}}"#),
        (401, "unauthorized"), (422, ""), (404, "<html>"), (302, ""),
    ])
    func otherClientAnswersAreRejected(status: Int, body: String) async throws {
        let error = await Self.error(status: status, body: body)
        guard case .rejected(let reason) = error else {
            Issue.record("expected rejected, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("HTTP \(status)"))
    }

    @Test(arguments: [500, 502, 503, 429, 408])
    func retryableStatusesAreTransient(status: Int) async throws {
        #expect(await Self.error(status: status, body: "")?.isTransient == true)
    }

    @Test func echoedSecretsAreScrubbed() async throws {
        let message =
            "bad token \(BackendFixture.twitterToken) with \(BackendFixture.twitterSecret) and \(BackendFixture.webhookSecret)"
        let error = await Self.error(status: 400, body: #"{"error":{"code":"nope","message":"\#(message)"}}"#)
        #expect(error?.description.contains("<redacted>") == true)
    }
}
