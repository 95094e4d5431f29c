import AuthHandlerCrypto
import AuthHandlerHTTP
import Foundation
import TestSupport
import Testing

/// The accounts' ID tokens as an API verifies them, and the secrets that must be nowhere at rest or in the log
/// (issue 25 §1 "Nothing secret at rest in the clear", §4; docs/ACCOUNTS.md), through the real binary.
@Suite(.serialized) struct EndToEndAccountsTokenTests {
    /// `verify_id_token.py`, the PyJWT check the unit tests use too.
    static let verifyScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("AuthHandlerTests/Accounts/verify_id_token.py").path

    /// PyJWT's verdict on `token` for `audience`, finding the keys by discovery from `issuer` as an API would.
    static func pyJWT(_ token: String, audience: String, issuer: String) async throws -> (Int32, JSONValue?, String) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("e2e-token-\(UUID())")
        try Data(token.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = try TestProcess(
            "/usr/bin/python3", ["-I", verifyScript, "--discovery", file.path, audience, issuer],
            package: "python3-jwt", environment: ["PYTHONDONTWRITEBYTECODE": "1"])
        let status = await process.exitCode()
        return (status, JSONValue.parse(Array(process.standardOutput.utf8)), process.standardError)
    }

    @Test(
        "PyJWT finds the keys by discovery and verifies ES256, iss, aud and exp; the claims are Firebase's layout",
        arguments: AccountsDatabaseEngine.allCases)
    func pyJWTByDiscovery(engine: AccountsDatabaseEngine) async throws {
        try await engine.run { try await pyJWTByDiscovery() }
    }

    func pyJWTByDiscovery() async throws {
        try await withEndToEnd(backend: .accounts()) { e2e in
            let issuer = e2e.daemonURL + "/__/auth"
            let password = "pyjwt discovery passphrase 1"
            let signUp = try await e2e.passwordSignUp("Carol@Example.com", password)
            let localID = try #require(signUp["localId"]?.stringValue)
            let idToken = try #require(signUp["idToken"]?.stringValue)

            let (status, claims, stderr) = try await Self.pyJWT(idToken, audience: e2e.daemonURL, issuer: issuer)
            #expect(status == 0, "PyJWT refused the ID token: \(stderr)")
            let verified = try #require(claims, "PyJWT printed no claims: \(stderr)")
            #expect(verified["iss"]?.stringValue == issuer)
            #expect(verified["aud"]?.stringValue == e2e.daemonURL)
            #expect(verified["sub"]?.stringValue == localID)
            #expect(verified["user_id"]?.stringValue == localID)
            #expect(verified["sid"]?.stringValue?.isEmpty == false)
            #expect(verified["auth_time"]?.numberValue != nil)
            #expect(verified["email"]?.stringValue == "Carol@Example.com")
            #expect(verified["email_verified"]?.boolValue == false)
            #expect(verified["firebase"]?["sign_in_provider"]?.stringValue == "password")
            #expect(verified["firebase"]?["identities"]?["email"] == .array([.string("Carol@Example.com")]))
            let expiry = try #require(verified["exp"]?.numberValue)
            let issued = try #require(verified["iat"]?.numberValue)
            #expect(expiry - issued == 3600)

            // A provider sign-in's token lists the provider's user id, and PyJWT verifies it the same way.
            let google = try await e2e.providerSignIn("google.com", user: "alice")
            #expect(google.status == 200, "\(google.text)")
            let googleToken = try #require(google.json?["signIn"]?["idToken"]?.stringValue, "\(google.text)")
            let (googleStatus, googleClaims, googleError) = try await Self.pyJWT(
                googleToken, audience: e2e.daemonURL, issuer: issuer)
            #expect(googleStatus == 0, "\(googleError)")
            #expect(googleClaims?["firebase"]?["sign_in_provider"]?.stringValue == "google.com")
            #expect(googleClaims?["firebase"]?["identities"]?["google.com"] == .array([.string("1001")]))
            #expect(googleClaims?["email_verified"]?.boolValue == true)
            #expect(googleClaims?["sub"]?.stringValue == google.json?["signIn"]?["localId"]?.stringValue)

            // The same token is refused for another audience, another issuer, or with its claims changed.
            let (otherAudience, _, audienceError) = try await Self.pyJWT(
                idToken, audience: "https://api.other.example", issuer: issuer)
            #expect(otherAudience == 1 && audienceError.contains("InvalidAudienceError"), "\(audienceError)")
            let parts = idToken.split(separator: ".").map(String.init)
            let payload = try #require(Base64.urlDecode(parts[1]))
            var forged = try #require(JSONValue.parse(payload)?.objectValue)
            forged["sub"] = .string("someoneElse000000000000000000")
            let tampered = [parts[0], Base64.urlEncode(JSONValue.object(forged).serialized), parts[2]]
                .joined(separator: ".")
            let (tamperedStatus, _, tamperedError) = try await Self.pyJWT(
                tampered, audience: e2e.daemonURL, issuer: issuer)
            #expect(tamperedStatus == 1 && tamperedError.contains("InvalidSignatureError"), "\(tamperedError)")
        }
    }

    @Test(
        "no password, refresh token, ID token or pending credential in the database files or the daemon's log",
        arguments: AccountsDatabaseEngine.allCases)
    func secretsNeitherAtRestNorLogged(engine: AccountsDatabaseEngine) async throws {
        try await engine.run { try await secretsNeitherAtRestNorLogged() }
    }

    func secretsNeitherAtRestNorLogged() async throws {
        try await withEndToEnd(backend: .accounts()) { e2e in
            var secrets: [String: String] = [:]
            let password = "at rest passphrase number one"
            let wrongPassword = "a wrong passphrase guessed here"
            secrets["password"] = password
            secrets["wrong password"] = wrongPassword
            let signUp = try await e2e.passwordSignUp("alice@example.com", password)
            secrets["sign-up refresh token"] = signUp["refreshToken"]?.stringValue
            secrets["sign-up ID token"] = signUp["idToken"]?.stringValue
            let wrong = try await e2e.passwordSignIn("alice@example.com", wrongPassword)
            #expect(wrong.status == 400)
            let unknown = try await e2e.passwordSignIn("nobody@example.com", wrongPassword)
            #expect(unknown.status == 400)
            let signIn = try await e2e.passwordSignIn("alice@example.com", password)
            let first = try #require(signIn.json?["refreshToken"]?.stringValue, "\(signIn.text)")
            secrets["sign-in refresh token"] = first
            secrets["sign-in ID token"] = signIn.json?["idToken"]?.stringValue
            let refreshed = try await e2e.refreshGrant(first)
            secrets["rotated refresh token"] = refreshed.json?["refresh_token"]?.stringValue
            secrets["refreshed ID token"] = refreshed.json?["id_token"]?.stringValue
            // A used token presented again (within the window) gets its sealed successor: still nothing in the clear.
            _ = try await e2e.refreshGrant(first)

            // The verified account answers a Google sign-in with a pending credential, which is then linked.
            try await e2e.markEmailVerified("alice@example.com")
            let conflict = try await e2e.providerSignIn("google.com", user: "alice")
            #expect(conflict.status == 409, "\(conflict.text)")
            let pending = try #require(conflict.json?["error"]?["pendingCredential"]?.stringValue, "\(conflict.text)")
            secrets["pending credential"] = pending
            secrets["verifier"] = EndToEnd.appVerifier
            let fresh = try await e2e.passwordSignIn("alice@example.com", password)
            let bearer = try #require(fresh.json?["idToken"]?.stringValue)
            secrets["fresh refresh token"] = fresh.json?["refreshToken"]?.stringValue
            secrets["fresh ID token"] = bearer
            let linked = try await e2e.postJSON(
                "/__/auth/user/link", #"{"pendingCredential": "\#(pending)", "verifier": "\#(EndToEnd.appVerifier)"}"#,
                bearer: bearer)
            #expect(linked.status == 200, "\(linked.text)")

            let stored = try await e2e.accountsDatabaseBytes()
            let log = Array(e2e.daemon.standardError.utf8)
            #expect(secrets.count == 12, "a secret was not answered: \(secrets.keys.sorted())")
            for (name, secret) in secrets.sorted(by: { $0.key < $1.key }) {
                #expect(!stored.containsText(secret), "the \(name) is in the accounts database")
                #expect(!log.containsText(secret), "the \(name) is in the daemon's log")
                // The token's own bytes too, not only its text (a column could hold them raw).
                if let raw = Base64.urlDecode(secret), raw.count >= 16 {
                    #expect(!stored.containsBytes(raw), "the \(name)'s bytes are in the accounts database")
                }
            }
            // The database does hold the argon2id hash, so the search looked in the right file.
            #expect(stored.containsText("$argon2id$v=19$"))
        }
    }

}
