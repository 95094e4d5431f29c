import AuthHandlerCore
import AuthHandlerHTTP
import Foundation
import TestSupport
import Testing

/// Nothing secret reaches the daemon's output or a `Location` it emits.
@Suite(.timeLimit(.minutes(3)))
struct EndToEndSecretHygieneTests {
    @Test("a full run's logs hold no token, secret, code or state; no Location carries a token")
    func noSecretsInLogsOrLocations() async throws {
        var secrets: Set<String> = ["fake-consumer-secret", "fake-client-secret", "e2e-api-key"]
        var handlerLocations: [String] = []
        var rawNonces: Set<String> = []
        let e2e = try await EndToEnd.start(backend: .identityToolkit)
        do {
            for provider in ["twitter.com", "google.com", "github.com", "apple.com"] {
                let walk = try await e2e.signIn(provider)
                handlerLocations += walk.handlerResponses.compactMap { $0.headers["Location"] }
                for response in walk.handlerResponses {
                    guard let location = response.headers["Location"], location.contains("?") else { continue }
                    let query = try FormURLEncoding.decode(String(location.split(separator: "?", maxSplits: 1)[1]))
                    for name in ["state", "nonce", "code_challenge", "oauth_token", "code"] {
                        if let value = query.first(named: name) { secrets.insert(value) }
                    }
                }
                for field in walk.callbackForm ?? [] where ["state", "code"].contains(field.name) {
                    secrets.insert(field.value)
                }
                if let callback = walk.callbackURL, callback.contains("?") {
                    let query = try FormURLEncoding.decode(String(callback.split(separator: "?", maxSplits: 1)[1]))
                    for name in ["state", "code", "oauth_token", "oauth_verifier"] {
                        if let value = query.first(named: name) { secrets.insert(value) }
                    }
                }
                let code = try #require(walk.appQuery.first(named: "code"), "\(provider): \(walk.appQuery)")
                let redemption = try await e2e.redeem(code: code)
                #expect(redemption.status == 200, "\(provider): \(redemption.text)")
                let result = try #require(redemption.json)
                for key in ["accessToken", "secret", "idToken", "refreshToken", "nonce"] {
                    if let value = result["credential"]?[key]?.stringValue { secrets.insert(value) }
                }
                if let raw = result["credential"]?["nonce"]?.stringValue { rawNonces.insert(raw) }
                for key in ["idToken", "refreshToken"] {
                    if let value = result["signIn"]?[key]?.stringValue { secrets.insert(value) }
                }
                // A refused redemption and a bad callback go through the error paths' logging too.
                _ = try await e2e.redeem(code: code)
                _ = try await e2e.get(e2e.daemonURL + "/__/auth/handler?state=\(code)&code=\(code)")
            }
            let denied = try await e2e.signIn("google.com", user: "deny")
            #expect(denied.appQuery.first(named: "error") == "user-cancelled")
        } catch {
            await e2e.stop()
            throw error
        }
        #expect(await e2e.stop() == 0, "serve exits 0 on SIGTERM")
        let output = e2e.daemon.standardOutput + e2e.daemon.standardError
        #expect(output.contains("event=signin.callback"), "the daemon logged the sign-in steps")
        #expect(secrets.count > 20)
        // Counted, not printed: a failure message must not repeat the secrets either.
        let leaked = secrets.filter { $0.count >= 8 && output.contains($0) }.count
        #expect(leaked == 0, "the daemon's output contains \(leaked) secret value(s)")
        // The handler's Locations: to the IdP (state, PKCE challenge, nonce) and to the app (result code only).
        let credentials = secrets.filter { $0.count >= 8 }
        #expect(rawNonces.count == 2, "google.com and apple.com each had a raw nonce")
        for location in handlerLocations {
            // The IdP gets the raw nonce's hash (HTTP-API.md §3.1); the raw value stays sealed.
            #expect(!rawNonces.contains { location.contains($0) }, "a Location carries a raw nonce")
            for name in ["access_token", "id_token", "refresh_token", "oauth_token_secret", "client_secret"] {
                #expect(!location.contains(name + "="), "a Location carries \(name)")
            }
            if location.hasPrefix(EndToEnd.appRedirect) {
                let query = try FormURLEncoding.decode(String(location.split(separator: "?", maxSplits: 1)[1]))
                #expect(Set(query.map(\.name)).isSubset(of: ["code", "eventId", "error", "error_description"]))
                for field in query where field.name != "code" {
                    #expect(!credentials.contains(field.value))
                }
            }
        }
    }
}
