import AuthHandlerClient
import Foundation
import Testing

import enum AuthHandlerProtocols.PKCE

/// `begin`: the start URL of HTTP-API.md §3.1, byte for byte, and what it refuses before any browser opens.
struct AuthHandlerClientBeginTests {
    /// A generator that always answers 0, so that the verifier and `eventId` are known.
    struct ZeroGenerator: RandomNumberGenerator {
        mutating func next() -> UInt64 { 0 }
    }

    static let client = AuthHandlerClient(baseURL: URL(string: "https://app.example.com")!)
    static let appScheme = URL(string: "com.example.app:/auth")!

    static func begin(
        _ client: AuthHandlerClient = client, providerId: String = "google.com", redirectURL: URL = appScheme,
        scopes: [String] = [], customParameters: [String: String] = [:],
        authType: AuthHandlerClient.AuthType = .signIn, idToken: String? = nil
    ) throws(AuthHandlerClientError) -> SignInRequest {
        var generator = ZeroGenerator()
        return try client.begin(
            providerId: providerId, redirectURL: redirectURL, scopes: scopes, customParameters: customParameters,
            authType: authType, idToken: idToken, using: &generator)
    }

    /// The members of the request's Codable form, as an app would store it.
    static func storedForm(_ request: SignInRequest) throws -> [String: Any] {
        let data = try JSONEncoder().encode(request)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("the start URL: every parameter in the order of §3.1, percent-encoded outside the unreserved set")
    func startURL() throws {
        let request = try Self.begin(
            scopes: ["email", "https://www.googleapis.com/auth/drive.readonly"],
            customParameters: ["prompt": "select_account", "login_hint": "alice+x@example.com"])
        let verifier = String(repeating: "A", count: 43)
        let challenge = try PKCE.challenge(forVerifier: verifier)
        #expect(
            request.url.absoluteString
                == "https://app.example.com/__/auth/handler?providerId=google.com"
                + "&redirectUrl=com.example.app%3A%2Fauth&authType=signInViaRedirect"
                + "&eventId=AAAAAAAAAAAAAAAAAAAAAA"
                + "&scopes=email%2Chttps%3A%2F%2Fwww.googleapis.com%2Fauth%2Fdrive.readonly"
                + "&customParameters=%7B%22login_hint%22%3A%22alice%2Bx%40example.com%22%2C%22prompt%22%3A"
                + "%22select_account%22%7D"
                + "&resultChallenge=\(challenge)")
        #expect(request.eventId == "AAAAAAAAAAAAAAAAAAAAAA")
        #expect(try Self.storedForm(request)["verifier"] as? String == verifier)
        #expect(request.providerId == "google.com")
        #expect(request.redirectURL == Self.appScheme)
    }

    @Test("no scopes and no custom parameters leave those parameters out; the verifier is never in the URL")
    func minimalURL() throws {
        let request = try Self.client.begin(providerId: "twitter.com", redirectURL: Self.appScheme)
        let query = try #require(URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems)
        #expect(query.map(\.name) == ["providerId", "redirectUrl", "authType", "eventId", "resultChallenge"])
        let verifier = try #require(try Self.storedForm(request)["verifier"] as? String)
        #expect(verifier.utf8.count == 43)
        #expect(!request.url.absoluteString.contains(verifier))
        #expect(query.last?.value == ResultChallenge.challenge(forVerifier: verifier))
        #expect(request.eventId.utf8.count == 22)
        let other = try Self.client.begin(providerId: "twitter.com", redirectURL: Self.appScheme)
        #expect(other.eventId != request.eventId)
        #expect(try Self.storedForm(other)["verifier"] as? String != verifier)
    }

    @Test("a base URL with a path or a trailing slash gets /__/auth/handler after it")
    func baseURLPath() throws {
        for (base, expected) in [
            ("https://app.example.com/", "https://app.example.com/__/auth/handler?"),
            ("http://127.0.0.1:8080", "http://127.0.0.1:8080/__/auth/handler?"),
            ("https://example.com/shop/", "https://example.com/shop/__/auth/handler?"),
        ] {
            let request = try Self.begin(AuthHandlerClient(baseURL: URL(string: base)!))
            #expect(request.url.absoluteString.hasPrefix(expected), "\(base)")
        }
    }

    @Test("a plain http base URL is refused unless it is this machine's")
    func plainHTTPOnlyOnLoopback() throws {
        for base in [
            "http://127.0.0.1:8080", "http://127.1.2.3", "http://localhost:8080", "http://LOCALHOST",
            "http://[::1]:8080",
            "https://app.example.com",
        ] {
            _ = try Self.begin(AuthHandlerClient(baseURL: URL(string: base)!))
        }
        for base in [
            "http://app.example.com", "http://10.0.0.1:8080", "http://128.0.0.1", "http://127.0.0.1.example.com",
            "http://localhost.example.com", "http://[::2]", "http://127.0.0.256",
        ] {
            do throws(AuthHandlerClientError) {
                let request = try Self.begin(AuthHandlerClient(baseURL: URL(string: base)!))
                Issue.record("\(base) accepted: \(request.url)")
            } catch {
                guard case .insecureBaseURL(let message) = error else {
                    Issue.record("\(base) → \(error)")
                    continue
                }
                #expect(message.contains("https"))
            }
        }
    }

    @Test("a plain http base URL is refused before a code is posted to it")
    func plainHTTPRefusedAtComplete() async throws {
        let client = AuthHandlerClient(baseURL: URL(string: "http://auth.example.com")!)
        let request = try Self.begin(AuthHandlerClient(baseURL: URL(string: "https://auth.example.com")!))
        let callback = URL(string: "com.example.app:/auth?code=abc&eventId=\(request.eventId)")!
        do throws(AuthHandlerClientError) {
            _ = try await client.complete(request, callbackURL: callback)
            Issue.record("completed")
        } catch {
            guard case .insecureBaseURL = error else {
                Issue.record("\(error)")
                return
            }
        }
    }

    @Test("link and reauthenticate carry their authType and keep the ID token out of the URL")
    func linkKeepsIDToken() throws {
        let request = try Self.begin(authType: .link, idToken: "the-users-id-token")
        #expect(request.url.absoluteString.contains("&authType=linkViaRedirect&"))
        #expect(!request.url.absoluteString.contains("the-users-id-token"))
        #expect(try Self.storedForm(request)["idToken"] as? String == "the-users-id-token")
        let reauth = try Self.begin(authType: .reauthenticate, idToken: "t")
        #expect(reauth.url.absoluteString.contains("&authType=reauthViaRedirect&"))
    }

    /// Arguments of `begin` that the daemon refuses whatever its configuration.
    struct Refusal: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var baseURL = "https://app.example.com"
        var providerId = "google.com"
        var redirectURL = "com.example.app:/auth"
        var scopes: [String] = []
        var authType = AuthHandlerClient.AuthType.signIn
        var idToken: String?
    }

    @Test(
        "refused before any browser opens",
        arguments: [
            Refusal(testDescription: "an empty providerId", providerId: ""),
            Refusal(testDescription: "a relative redirectURL", redirectURL: "auth"),
            Refusal(testDescription: "a scope with a comma", scopes: ["email,profile"]),
            Refusal(testDescription: "an empty scope", scopes: ["email", ""]),
            Refusal(testDescription: "link without idToken", authType: .link),
            Refusal(testDescription: "reauthenticate with an empty idToken", authType: .reauthenticate, idToken: ""),
            Refusal(testDescription: "a sign-in with an idToken", idToken: "t"),
            Refusal(testDescription: "a base URL that is not http", baseURL: "ftp://example.com"),
            Refusal(testDescription: "a base URL with a query", baseURL: "https://app.example.com/?x=1"),
            Refusal(testDescription: "a base URL with a fragment", baseURL: "https://app.example.com/#x"),
            Refusal(testDescription: "a base URL with user info", baseURL: "https://user@app.example.com"),
            Refusal(testDescription: "a base URL without a host", baseURL: "https:///path"),
        ])
    func refused(_ refusal: Refusal) throws {
        let client = AuthHandlerClient(baseURL: try #require(URL(string: refusal.baseURL)))
        let redirectURL = try #require(URL(string: refusal.redirectURL))
        do throws(AuthHandlerClientError) {
            let request = try Self.begin(
                client, providerId: refusal.providerId, redirectURL: redirectURL, scopes: refusal.scopes,
                authType: refusal.authType, idToken: refusal.idToken)
            Issue.record("accepted: \(request.url)")
        } catch {
            guard case .invalidArgument(let message) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(!message.isEmpty)
        }
    }

    @Test("a SignInRequest survives a JSON round trip unchanged")
    func codableRoundTrip() throws {
        let request = try Self.client.begin(
            providerId: "github.com", redirectURL: Self.appScheme, scopes: ["read:user"],
            customParameters: ["allow_signup": "false"], authType: .reauthenticate, idToken: "id-token")
        let decoded = try JSONDecoder().decode(SignInRequest.self, from: try JSONEncoder().encode(request))
        #expect(decoded == request)
    }

    @Test("printing a SignInRequest shows neither the verifier nor the ID token")
    func printingRedacts() throws {
        let request = try Self.begin(authType: .link, idToken: "secret-id-token")
        let verifier = String(repeating: "A", count: 43)
        for text in [String(describing: request), String(reflecting: request), "\(request)", Self.dumped(request)] {
            #expect(!text.contains(verifier), "\(text)")
            #expect(!text.contains("secret-id-token"), "\(text)")
            #expect(text.contains("google.com"))
        }
    }

    static func dumped(_ value: some Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text
    }
}
