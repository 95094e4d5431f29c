import AuthHandlerClient
import Foundation
import Testing

/// Reading the answer of `POST /__/auth/result`: the result JSON (HTTP-API.md §3.3) and the error object with its
/// extra members (HTTP-API.md §3.3, §3.5).
struct AuthHandlerClientAnswerTests {
    static func error(status: Int, _ json: String, retryAfter: String? = nil) -> AuthHandlerClientError? {
        do {
            let result = try AuthHandlerClient.result(status: status, body: Data(json.utf8), retryAfter: retryAfter)
            Issue.record("HTTP \(status) gave a result: \(result)")
            return nil
        } catch {
            return error
        }
    }

    @Test("a result with every member, the raw nonce and a 64-bit id in the provider's document")
    func fullResult() throws {
        let json = """
            {"authType": "signInViaRedirect", "eventId": "e1", "providerId": "google.com",
             "credential": {"accessToken": "at", "expiresIn": 3600, "idToken": "a.b.c", "refreshToken": null,
                            "scope": "openid email", "secret": null, "nonce": "raw-nonce"},
             "profile": {"displayName": "Alice Example", "email": "alice@example.com", "id": "1001",
                         "raw": {"id": 1234567890123456789, "ratio": 0.5, "tags": ["a"], "ok": true, "none": null,
                                 "one": 1, "zero": 0},
                         "screenName": null},
             "signIn": {"idToken": "x.y.z", "localId": "L1", "refreshToken": "r", "isNewUser": false}}
            """
        let result = try AuthHandlerClient.result(status: 200, body: Data(json.utf8), retryAfter: nil)
        #expect(result.providerId == "google.com")
        #expect(result.authType == .signIn)
        #expect(result.eventId == "e1")
        #expect(
            result.credential
                == SignInResult.Credential(
                    accessToken: "at", idToken: "a.b.c", expiresIn: 3600, scope: "openid email", nonce: "raw-nonce"))
        #expect(result.profile.id == "1001")
        #expect(result.profile.email == "alice@example.com")
        #expect(result.profile.raw["id"] == .integer(1_234_567_890_123_456_789))
        #expect(result.profile.raw["ratio"] == .number(0.5))
        #expect(result.profile.raw["tags"]?[0] == .string("a"))
        #expect(result.profile.raw["ok"] == .bool(true))
        #expect(result.profile.raw["one"] == .integer(1), "a number is never read as a Bool")
        #expect(result.profile.raw["zero"] == .integer(0))
        #expect(result.profile.raw["none"] == .null)
        #expect(result.signIn?["localId"]?.stringValue == "L1")
        #expect(result.signIn?["isNewUser"]?.boolValue == false)
        // An app may cache the result as JSON and read it back.
        #expect(try JSONDecoder().decode(SignInResult.self, from: try JSONEncoder().encode(result)) == result)
    }

    @Test("signIn null (backend none) and a result without credential.nonce (an older daemon)")
    func minimalResult() throws {
        let json = """
            {"authType": "linkViaRedirect", "eventId": null, "providerId": "twitter.com",
             "credential": {"accessToken": "at", "secret": "s"}, "profile": {"id": "1", "raw": {}}, "signIn": null}
            """
        let result = try AuthHandlerClient.result(status: 200, body: Data(json.utf8), retryAfter: nil)
        #expect(result.authType == .link)
        #expect(result.eventId == nil)
        #expect(result.signIn == nil)
        #expect(result.credential.nonce == nil)
        #expect(result.credential.secret == "s")
    }

    @Test("account-exists-with-different-credential carries email, verifiedProviders and the pending credential")
    func accountExists() {
        let error = Self.error(
            status: 409,
            """
            {"error": {"code": "account-exists-with-different-credential", "message": "sign in with password",
                       "email": "c@example.com", "verifiedProviders": ["password", "google.com"],
                       "credential": {"accessToken": "at", "idToken": "a.b.c", "expiresIn": 60, "secret": null},
                       "pendingCredential": "sealed-pending"}}
            """)
        #expect(
            error
                == .accountExistsWithDifferentCredential(
                    email: "c@example.com", verifiedProviders: ["password", "google.com"],
                    credential: SignInResult.Credential(accessToken: "at", idToken: "a.b.c", expiresIn: 60),
                    pendingCredential: "sealed-pending", message: "sign in with password"))
    }

    @Test("second-factor-required carries mfaPendingCredential and mfaInfo")
    func secondFactor() {
        let error = Self.error(
            status: 401,
            """
            {"error": {"code": "second-factor-required", "message": "m", "mfaPendingCredential": "pending",
                       "mfaInfo": [{"mfaEnrollmentId": "e1", "phoneInfo": "+*******1234"}]}}
            """)
        #expect(
            error
                == .secondFactorRequired(
                    mfaPendingCredential: "pending",
                    mfaInfo: .array([.object(["mfaEnrollmentId": .string("e1"), "phoneInfo": .string("+*******1234")])]
                    ),
                    message: "m"))
    }

    @Test("credential-already-in-use and email-already-in-use carry email")
    func emailMembers() {
        #expect(
            Self.error(status: 409, #"{"error": {"code": "credential-already-in-use", "message": "m", "email": "e"}}"#)
                == .credentialAlreadyInUse(email: "e", message: "m"))
        #expect(
            Self.error(status: 409, #"{"error": {"code": "email-already-in-use", "message": "m", "email": null}}"#)
                == .emailAlreadyInUse(email: nil, message: "m"))
    }

    @Test("Retry-After reaches redemption-in-progress, too-many-requests and unavailable")
    func retryAfter() {
        #expect(
            Self.error(status: 409, #"{"error": {"code": "redemption-in-progress", "message": "m"}}"#, retryAfter: "3")
                == .redemptionInProgress(retryAfter: 3, message: "m"))
        #expect(
            Self.error(status: 429, #"{"error": {"code": "too-many-requests", "message": "m"}}"#, retryAfter: " 7")
                == .tooManyRequests(retryAfter: 7, message: "m"))
        #expect(
            Self.error(status: 503, #"{"error": {"code": "unavailable", "message": "m"}}"#, retryAfter: nil)
                == .unavailable(retryAfter: nil, message: "m"))
    }

    @Test("an answer that is not the daemon's JSON is unreadableAnswer with its status")
    func unreadable() {
        guard case .unreadableAnswer(404, _)? = Self.error(status: 404, "<html>nginx</html>") else {
            Issue.record("an HTML 404 was not unreadableAnswer")
            return
        }
        guard case .unreadableAnswer(502, _)? = Self.error(status: 502, #"{"error": "bad gateway"}"#) else {
            Issue.record("an error without a code was not unreadableAnswer")
            return
        }
    }

    @Test("a 200 whose body is not a result names the member, never the value it read")
    func unreadableResult() {
        let json =
            #"{"authType": "signInViaRedirect", "providerId": "p", "credential": {"accessToken": 5},"#
            + #" "profile": {"id": "1", "raw": {}}}"#
        guard case .unreadableAnswer(200, let message)? = Self.error(status: 200, json) else {
            Issue.record("a mistyped accessToken was accepted")
            return
        }
        #expect(message.contains("credential.accessToken"), "\(message)")
        guard case .unreadableAnswer(200, let notJSON)? = Self.error(status: 200, "at-secret-token") else {
            Issue.record("a body that is not JSON was accepted")
            return
        }
        #expect(!notJSON.contains("at-secret-token"))
    }

    @Test("printing an error or a credential shows no token")
    func printingRedacts() {
        let error = AuthHandlerClientError.accountExistsWithDifferentCredential(
            email: "c@example.com", verifiedProviders: [],
            credential: SignInResult.Credential(accessToken: "secret-at", idToken: "secret-id"),
            pendingCredential: "secret-pending-credential", message: "m")
        let mfa = AuthHandlerClientError.secondFactorRequired(
            mfaPendingCredential: "secret-pending", mfaInfo: .array([]), message: "m")
        for value in [error, mfa] {
            for text in [
                String(describing: value), String(reflecting: value), AuthHandlerClientBeginTests.dumped(value),
            ] {
                #expect(!text.contains("secret-"), "\(text)")
            }
        }
        let credential = SignInResult.Credential(accessToken: "secret-at", secret: "secret-s", scope: "email")
        #expect(String(describing: credential) == "Credential(accessToken, secret redacted, scope: email)")
        #expect(!AuthHandlerClientBeginTests.dumped(credential).contains("secret-"))
    }
}
