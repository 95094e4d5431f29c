import AuthHandlerCore
import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerProtocols
import Foundation
import Synchronization
import TestSupport
import Testing

/// Complete sign-ins through the real `auth-handler serve` against the real `auth-handler fake-idp`.
@Suite(.timeLimit(.minutes(3)))
struct EndToEndSignInTests {
    /// Walks a sign-in to the app and redeems its code; returns the redemption answer.
    static func signInAndRedeem(_ e2e: EndToEnd, _ provider: String, user: String = "alice") async throws -> JSONValue {
        let walk = try await e2e.signIn(provider, user: user, ["eventId": "e-\(provider)"])
        #expect(walk.appQuery.first(named: "error") == nil, "\(walk.appQuery)")
        #expect(walk.appQuery.first(named: "eventId") == "e-\(provider)")
        let code = try #require(walk.appQuery.first(named: "code"))
        let redemption = try await e2e.redeem(code: code)
        #expect(redemption.status == 200, "\(redemption.text)")
        return try #require(redemption.json)
    }

    @Test("twitter.com (OAuth 1.0a, HMAC-SHA1) signs in and redeems, backend none")
    func twitter() async throws {
        try await withEndToEnd { e2e in
            let result = try await Self.signInAndRedeem(e2e, "twitter.com")
            #expect(result["providerId"]?.stringValue == "twitter.com")
            #expect(result["authType"]?.stringValue == "signInViaRedirect")
            #expect(result["credential"]?["accessToken"]?.stringValue?.isEmpty == false)
            #expect(result["credential"]?["secret"]?.stringValue?.isEmpty == false)
            #expect(result["profile"]?["id"]?.stringValue == "1001")
            #expect(result["profile"]?["screenName"]?.stringValue == "alice")
            #expect(result["signIn"] == .null)
        }
    }

    @Test("google.com (OIDC pointed at the fake IdP) signs in and redeems, backend none")
    func google() async throws {
        try await withEndToEnd { e2e in
            let result = try await Self.signInAndRedeem(e2e, "google.com")
            #expect(result["credential"]?["idToken"]?.stringValue?.split(separator: ".").count == 3)
            #expect(result["credential"]?["accessToken"]?.stringValue?.isEmpty == false)
            #expect(result["profile"]?["id"]?.stringValue == "1001")
            #expect(result["profile"]?["email"]?.stringValue == "alice@example.com")
            #expect(result["signIn"] == .null)
        }
    }

    /// HTTP-API.md §3.3: an e-mail only when the provider vouches for it. The fake's profile document carries `email`
    /// without `email_verified`: a custom provider reports it only with `trustEmail`.
    @Test("a custom provider's e-mail without a verified flag is reported only with trustEmail")
    func unverifiedEmailOfACustomProvider() async throws {
        try await withEndToEnd { e2e in
            let plain = try await Self.signInAndRedeem(e2e, "oauth1.plain")
            #expect(plain["profile"]?["id"]?.stringValue == "1001")
            #expect(plain["profile"]?["raw"]?["email"]?.stringValue == "alice@example.com")
            #expect(plain["profile"]?["email"] == .null)
            let trusted = try await Self.signInAndRedeem(e2e, "oauth1.trusted")
            #expect(trusted["profile"]?["email"]?.stringValue == "alice@example.com")
        }
    }

    @Test("github.com-style plain OAuth 2 signs in and redeems, backend none")
    func github() async throws {
        try await withEndToEnd { e2e in
            let result = try await Self.signInAndRedeem(e2e, "github.com", user: "bob")
            #expect(result["credential"]?["accessToken"]?.stringValue?.isEmpty == false)
            #expect(result["credential"]?["idToken"] == .null)
            #expect(result["profile"]?["id"]?.stringValue == "1002")
        }
    }

    @Test("apple.com-style form_post signs in and redeems, backend none")
    func appleFormPost() async throws {
        try await withEndToEnd { e2e in
            let walk = try await e2e.signIn("apple.com")
            #expect(walk.callbackForm != nil, "the fake IdP answered with a form_post page")
            #expect(walk.callbackForm?.first(named: "state") != nil)
            let code = try #require(walk.appQuery.first(named: "code"))
            let redemption = try await e2e.redeem(code: code)
            #expect(redemption.status == 200, "\(redemption.text)")
            #expect(redemption.json?["profile"]?["id"]?.stringValue == "1001")
        }
    }

    @Test("a public OIDC client (PKCE only, no secret) signs in")
    func publicClient() async throws {
        try await withEndToEnd { e2e in
            let result = try await Self.signInAndRedeem(e2e, "oidc.public")
            #expect(result["profile"]?["id"]?.stringValue == "1001")
        }
    }

    @Test(
        "twitter.com and google.com through identitytoolkit (the fake backend)",
        arguments: ["twitter.com", "google.com"])
    func identityToolkit(provider: String) async throws {
        try await withEndToEnd(backend: .identityToolkit) { e2e in
            let result = try await Self.signInAndRedeem(e2e, provider)
            let signIn = try #require(result["signIn"]?.objectValue)
            #expect(signIn["localId"]?.stringValue?.isEmpty == false)
            #expect(signIn["idToken"]?.stringValue?.split(separator: ".").count == 3)
            #expect(signIn["refreshToken"]?.stringValue?.isEmpty == false)
            #expect(signIn["isNewUser"]?.boolValue == true)
            let again = try await Self.signInAndRedeem(e2e, provider)
            #expect(again["signIn"]?["isNewUser"]?.boolValue == false)
            #expect(again["signIn"]?["localId"] == signIn["localId"])
        }
    }

    /// Firebase's nonce rule, which the fake Identity Toolkit applies (HTTP-API.md §3.1, §4.1): the provider is sent
    /// the lowercase hex SHA-256 of a raw nonce, the ID token carries that hash, and `postBody` the raw nonce, which
    /// the app gets as `credential.nonce`.
    @Test(
        "each OIDC built-in and an oidc.* provider sign in through identitytoolkit under Firebase's nonce rule",
        arguments: ["google.com", "apple.com", "microsoft.com", "oidc.public"])
    func identityToolkitNonce(provider: String) async throws {
        try await withEndToEnd(backend: .identityToolkit) { e2e in
            let result = try await Self.signInAndRedeem(e2e, provider)
            #expect(result["signIn"]?["localId"]?.stringValue?.isEmpty == false, "\(result)")
            let raw = try #require(result["credential"]?["nonce"]?.stringValue)
            #expect(raw.count == 43)
            let hashed = try OIDCNonce.hashed(raw)
            let idToken = try #require(result["credential"]?["idToken"]?.stringValue)
            let payload = try CompactJWS(parsing: idToken).payload
            #expect(JSONValue.parse(payload)?["nonce"]?.stringValue == hashed, "the ID token carries the hash")
            let listed = try await e2e.get(e2e.idpURL + "/__fake/requests")
            let requests = try #require(listed.json?.arrayValue)
            let authorizations = requests.filter { $0["path"]?.stringValue?.hasSuffix("oidc/authorize") == true }
            let sent = try authorizations.compactMap { request in
                try FormURLEncoding.decode(request["query"]?.stringValue ?? "").first(named: "nonce")
            }
            #expect(sent == [hashed], "the authorization request carried the hash, not the raw nonce")
            let toTheIdP = requests.filter { $0["path"]?.stringValue?.contains("identitytoolkit") != true }
            #expect(!toTheIdP.contains { String(describing: $0).contains(raw) }, "the raw nonce reached the IdP")
        }
    }

    @Test("credential.nonce is null for OAuth 1.0a and plain OAuth 2", arguments: ["twitter.com", "github.com"])
    func noNonceOutsideOIDC(provider: String) async throws {
        try await withEndToEnd { e2e in
            let result = try await Self.signInAndRedeem(e2e, provider)
            let credential = try #require(result["credential"]?.objectValue)
            #expect(credential["nonce"] == .null)
        }
    }

    @Test(
        "twitter.com and google.com through a webhook that checks the signature",
        arguments: ["twitter.com", "google.com"])
    func webhook(provider: String) async throws {
        let secret = "e2e-webhook-secret"
        let receiver = try WebhookReceiver(secret: secret)
        defer { Task { await receiver.stop() } }
        try await withEndToEnd(backend: .webhook(url: receiver.url, secret: secret)) { e2e in
            let result = try await Self.signInAndRedeem(e2e, provider)
            #expect(result["signIn"]?["uid"]?.stringValue == "webhook-user-1001")
            let delivered = try #require(receiver.deliveries.last)
            #expect(delivered["providerId"]?.stringValue == provider)
            #expect(delivered["credential"]?["accessToken"] == result["credential"]?["accessToken"])
            // The raw nonce, as in the result: a string for OIDC, null otherwise (HTTP-API.md §2.8, §3.3).
            #expect(delivered["credential"]?["nonce"] == result["credential"]?["nonce"])
            #expect((result["credential"]?["nonce"]?.stringValue != nil) == (provider == "google.com"))
            #expect(receiver.rejected == 0)
        }
    }

    @Test(
        "a webhook delivery retried by a second redemption carries the same resultId and a new deliveryId, both signed")
    func webhookRetryIsRecognisable() async throws {
        let secret = "e2e-webhook-secret"
        // The first delivery is answered 503, as a receiver that timed out would be: the code stays redeemable.
        let receiver = try WebhookReceiver(secret: secret, unavailableFor: 1)
        defer { Task { await receiver.stop() } }
        try await withEndToEnd(backend: .webhook(url: receiver.url, secret: secret)) { e2e in
            let walk = try await e2e.signIn("google.com", ["eventId": "e-retry"])
            let code = try #require(walk.appQuery.first(named: "code"))
            let refused = try await e2e.redeem(code: code)
            #expect(refused.status == 502 && refused.errorCode == "backend-error", "\(refused.status) \(refused.text)")
            let redeemed = try await e2e.redeem(code: code)
            #expect(redeemed.status == 200, "\(redeemed.text)")
            let deliveries = receiver.deliveries
            #expect(deliveries.count == 2)
            #expect(receiver.rejected == 0)
            let resultIds = deliveries.compactMap { $0["resultId"]?.stringValue }
            let deliveryIds = deliveries.compactMap { $0["deliveryId"]?.stringValue }
            #expect(resultIds.count == 2 && Set(resultIds).count == 1, "\(resultIds)")
            #expect(deliveryIds.count == 2 && Set(deliveryIds).count == 2, "\(deliveryIds)")
            #expect(resultIds.allSatisfy { $0.wholeMatch(of: /[0-9a-f]{32}/) != nil && !code.contains($0) })
            // A second sign-in is another result.
            let other = try await Self.signInAndRedeem(e2e, "google.com")
            #expect(other["signIn"]?["uid"] != nil)
            #expect(receiver.deliveries.last?["resultId"]?.stringValue != resultIds.first)
        }
    }

    @Test("linkViaRedirect with the signed-in user's idToken links a second provider")
    func link() async throws {
        try await withEndToEnd(backend: .identityToolkit) { e2e in
            let first = try await Self.signInAndRedeem(e2e, "google.com")
            let localID = try #require(first["signIn"]?["localId"]?.stringValue)
            let idToken = try #require(first["signIn"]?["idToken"]?.stringValue)
            let walk = try await e2e.signIn("twitter.com", ["authType": "linkViaRedirect"])
            let code = try #require(walk.appQuery.first(named: "code"))
            let missing = try await e2e.redeem(code: code)
            #expect(missing.status == 400)
            #expect(missing.errorCode == "invalid-request")
            let linked = try await e2e.redeem(code: code, idToken: idToken)
            #expect(linked.status == 200, "\(linked.text)")
            #expect(linked.json?["authType"]?.stringValue == "linkViaRedirect")
            #expect(linked.json?["signIn"]?["localId"]?.stringValue == localID)
        }
    }

    @Test("user conflict → 409 account-exists-with-different-credential with the e-mail and pending credential")
    func conflict() async throws {
        try await withEndToEnd(backend: .identityToolkit) { e2e in
            let walk = try await e2e.signIn("google.com", user: "conflict")
            let code = try #require(walk.appQuery.first(named: "code"))
            let answer = try await e2e.redeem(code: code)
            #expect(answer.status == 409)
            #expect(answer.errorCode == "account-exists-with-different-credential")
            #expect(answer.json?["error"]?["email"]?.stringValue == "conflict@example.com")
            #expect(answer.json?["error"]?["credential"]?["idToken"]?.stringValue?.isEmpty == false)
        }
    }

    @Test("user mfa → 401 second-factor-required with mfaPendingCredential and mfaInfo")
    func secondFactor() async throws {
        try await withEndToEnd(backend: .identityToolkit) { e2e in
            let walk = try await e2e.signIn("twitter.com", user: "mfa")
            let code = try #require(walk.appQuery.first(named: "code"))
            let answer = try await e2e.redeem(code: code)
            #expect(answer.status == 401)
            #expect(answer.errorCode == "second-factor-required")
            #expect(answer.json?["error"]?["mfaPendingCredential"]?.stringValue?.isEmpty == false)
            #expect(answer.json?["error"]?["mfaInfo"]?.arrayValue?.isEmpty == false)
        }
    }
}

/// A webhook endpoint that verifies `X-Auth-Handler-Signature` and answers with a user id; the first
/// `unavailableFor` correctly signed deliveries (recorded all the same) are answered 503.
final class WebhookReceiver: Sendable {
    private let server: HTTPServer
    let url: String
    private let state = DeliveryLog()

    init(secret: String, unavailableFor: Int = 0) throws {
        let state = self.state
        server = try HTTPServer(listeningOn: ["127.0.0.1:0"]) { request in
            let timestamp = request.headers[WebhookSignature.timestampHeader] ?? ""
            let signature = request.headers[WebhookSignature.signatureHeader] ?? ""
            do {
                try WebhookSignature.verify(
                    secret: secret, timestamp: timestamp, body: request.body, header: signature)
            } catch {
                state.rejectOne()
                return .text("bad signature", status: 401)
            }
            let payload = JSONValue.parse(request.body) ?? .null
            if state.deliver(payload) <= unavailableFor { return .text("try again", status: 503) }
            let id = payload["profile"]?["id"]?.stringValue ?? "?"
            return .text("{\"uid\": \"webhook-user-\(id)\"}")
        }
        url = "http://\(server.addresses[0])/hook"
    }

    var deliveries: [JSONValue] { state.snapshot.deliveries }
    var rejected: Int { state.snapshot.rejected }

    func stop() async { await server.stop(gracePeriod: .seconds(1)) }
}

/// What a `WebhookReceiver` received.
private final class DeliveryLog: Sendable {
    private let storage = Mutex<(deliveries: [JSONValue], rejected: Int)>(([], 0))

    /// Records `payload`; how many deliveries there are now.
    func deliver(_ payload: JSONValue) -> Int {
        storage.withLock {
            $0.deliveries.append(payload)
            return $0.deliveries.count
        }
    }
    func rejectOne() { storage.withLock { $0.rejected += 1 } }
    var snapshot: (deliveries: [JSONValue], rejected: Int) { storage.withLock { $0 } }
}
