import AuthHandlerClient
import Foundation
import Testing

/// `complete` up to the network: reading the callback URL (HTTP-API.md §3.2), and reading the answer of
/// `POST /__/auth/result` (HTTP-API.md §3.3, §3.5) into a result or the error's case. The same against the real
/// daemon is in EndToEndTests (`EndToEndClientTests`).
struct AuthHandlerClientCompleteTests {
    /// Nothing listens on port 9 (discard) of 127.0.0.1 here; a test that reached the network would get
    /// `networkError`, not the error it expects.
    static let client = AuthHandlerClient(baseURL: URL(string: "http://127.0.0.1:9")!)

    static func request(_ redirectURL: String = "com.example.app:/auth") throws -> SignInRequest {
        try client.begin(providerId: "google.com", redirectURL: URL(string: redirectURL)!)
    }

    static func complete(_ request: SignInRequest, _ callback: String) async -> AuthHandlerClientError? {
        do {
            let result = try await client.complete(request, callbackURL: URL(string: callback)!)
            Issue.record("\(callback) completed: \(result)")
            return nil
        } catch {
            return error
        }
    }

    /// Every daemon code of HTTP-API.md §5 (and `interaction-required`) and the case it becomes.
    static let codes: [(code: String, matches: @Sendable (AuthHandlerClientError) -> Bool)] = [
        ("invalid-request", { if case .invalidRequest = $0 { true } else { false } }),
        ("invalid-provider", { if case .invalidProviderID = $0 { true } else { false } }),
        ("unauthorized-redirect-url", { if case .unauthorizedRedirectURL = $0 { true } else { false } }),
        ("unsupported-auth-type", { if case .unsupportedAuthType = $0 { true } else { false } }),
        ("reserved-custom-parameter", { if case .reservedCustomParameter = $0 { true } else { false } }),
        ("invalid-state", { if case .invalidState = $0 { true } else { false } }),
        ("invalid-result-code", { if case .invalidResultCode = $0 { true } else { false } }),
        ("invalid-id-token", { if case .invalidUserToken = $0 { true } else { false } }),
        ("second-factor-required", { if case .secondFactorRequired = $0 { true } else { false } }),
        ("user-disabled", { if case .userDisabled = $0 { true } else { false } }),
        ("navigation-required", { if case .navigationRequired = $0 { true } else { false } }),
        ("user-cancelled", { if case .userCancelled = $0 { true } else { false } }),
        ("not-found", { if case .notFound = $0 { true } else { false } }),
        ("method-not-allowed", { if case .methodNotAllowed = $0 { true } else { false } }),
        (
            "account-exists-with-different-credential",
            { if case .accountExistsWithDifferentCredential = $0 { true } else { false } }
        ),
        ("credential-already-in-use", { if case .credentialAlreadyInUse = $0 { true } else { false } }),
        ("email-already-in-use", { if case .emailAlreadyInUse = $0 { true } else { false } }),
        ("redemption-in-progress", { if case .redemptionInProgress = $0 { true } else { false } }),
        ("too-many-requests", { if case .tooManyRequests = $0 { true } else { false } }),
        ("internal-error", { if case .internalError = $0 { true } else { false } }),
        ("provider-error", { if case .providerError = $0 { true } else { false } }),
        ("backend-error", { if case .backendError = $0 { true } else { false } }),
        ("interaction-required", { if case .interactionRequired = $0 { true } else { false } }),
        ("unavailable", { if case .unavailable = $0 { true } else { false } }),
    ]

    @Test("an error on the callback URL becomes its case, with error_description as the message")
    func callbackErrors() async throws {
        let request = try Self.request()
        for (code, matches) in Self.codes {
            let error = await Self.complete(
                request,
                "com.example.app:/auth?error=\(code)&error_description=what+to+do%21&eventId=\(request.eventId)")
            #expect(error.map(matches) == true, "\(code) → \(String(describing: error))")
            #expect(error?.code == code)
            #expect(error?.message == "what to do!")
        }
    }

    @Test("an error code this client does not know is unknown(code:message:)")
    func unknownCode() async throws {
        let request = try Self.request()
        let error = await Self.complete(request, "com.example.app:/auth?error=brand-new&eventId=\(request.eventId)")
        #expect(error == .unknown(code: "brand-new", message: ""))
        #expect(error?.code == "brand-new")
    }

    @Test("a callback for another sign-in is refused before anything is redeemed")
    func mismatchedEventId() async throws {
        let request = try Self.request()
        #expect(
            await Self.complete(request, "com.example.app:/auth?code=abc&eventId=someone-else")
                == .mismatchedEventId(expected: request.eventId, received: "someone-else"))
        #expect(
            await Self.complete(request, "com.example.app:/auth?code=abc")
                == .mismatchedEventId(expected: request.eventId, received: nil))
        #expect(
            await Self.complete(request, "com.example.app:/auth?error=user-cancelled&eventId=x")
                == .mismatchedEventId(expected: request.eventId, received: "x"))
    }

    @Test("a URL that is not a return from the daemon is invalidCallbackURL")
    func notACallback() async throws {
        let request = try Self.request()
        let eventId = "eventId=\(request.eventId)"
        for callback in [
            "com.example.app:/auth", "com.example.app:/auth?\(eventId)", "com.example.app:/auth?code=&\(eventId)",
            "com.example.app:/auth?code=a&code=b&\(eventId)", "com.example.app:/auth?code=a&error=b&\(eventId)",
            "com.example.app:/auth?code=%FF&\(eventId)", "com.example.app:/auth?\(eventId)&\(eventId)&code=a",
        ] {
            let error = await Self.complete(request, callback)
            guard case .invalidCallbackURL? = error else {
                Issue.record("\(callback) → \(String(describing: error))")
                continue
            }
        }
    }

    @Test("the app's own query parameters on the redirect URL are left alone")
    func appParameters() async throws {
        let request = try Self.request("https://app.example.com/done?tab=2")
        let error = await Self.complete(
            request, "https://app.example.com/done?tab=2&error=provider-error&eventId=\(request.eventId)&x=%20")
        #expect(error == .providerError(message: ""))
    }

    @Test("a callback URL that is not the request's redirectURL come back is refused before anything is redeemed")
    func mismatchedCallbackURL() async throws {
        for (redirectURL, callbacks) in [
            (
                "https://App.Example.com/done",
                [
                    "http://app.example.com/done", "https://evil.example/done", "https://app.example.com:8443/done",
                    "https://app.example.com/other", "https://app.example.com/done/", "https://app.example.com/",
                    "com.example.app:/done",
                ]
            ),
            (
                "com.example.app:/auth",
                ["com.example.app:/other", "com.evil.app:/auth", "com.example.app://evil/auth", "https://x/auth"]
            ),
        ] {
            let request = try Self.request(redirectURL)
            for callback in callbacks {
                let error = await Self.complete(request, callback + "?code=result-code-1&eventId=\(request.eventId)")
                guard case .mismatchedCallbackURL(let message)? = error else {
                    Issue.record("\(callback) for \(redirectURL) → \(String(describing: error))")
                    continue
                }
                #expect(!message.contains("result-code-1"))
                #expect(error?.code == nil)
            }
        }
    }

    @Test("the redirectURL come back is accepted whatever the case of its scheme and host, and with its default port")
    func sameCallbackURLInOtherSpellings() async throws {
        let request = try Self.request("https://app.example.com/done")
        for callback in [
            "https://app.example.com/done", "HTTPS://APP.EXAMPLE.COM/done", "https://app.example.com:443/done",
        ] {
            // Past the checks, the code is posted: here to a closed port.
            let error = await Self.complete(request, callback + "?code=abc&eventId=\(request.eventId)")
            guard case .networkError? = error else {
                Issue.record("\(callback) → \(String(describing: error))")
                continue
            }
        }
    }

    @Test("a result code with a matching eventId is posted: here to a closed port, so networkError")
    func postsTheCode() async throws {
        let request = try Self.request()
        let error = await Self.complete(request, "com.example.app:/auth?code=abc&eventId=\(request.eventId)")
        guard case .networkError(let message)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(message.contains("/__/auth/result"))
    }
}
