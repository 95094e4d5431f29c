import Foundation
import TestSupport
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerCrypto
@testable import AuthHandlerHTTP

/// Transport failures of either backend: timeouts and connection errors are transient, so the result code
/// stays redeemable; nothing in the message carries the API key, secret or tokens.
struct BackendTransportTests {
    private static let target = "POST http://127.0.0.1:9099/identitytoolkit/v1/accounts:signInWithIdp"

    private static func backends(_ fetcher: ScriptedHTTP) -> [any SignInBackend] {
        [
            BackendFixture.identityToolkit(fetcher),
            WebhookBackend(
                url: URL(string: "http://127.0.0.1:9/hook")!, secret: Secret(BackendFixture.webhookSecret),
                fetcher: fetcher),
        ]
    }

    private static func error(_ backend: any SignInBackend) async -> BackendError? {
        await BackendFixture.error { () async throws(BackendError) -> JSONValue? in
            try await backend.signIn(BackendFixture.twitter())
        }
    }

    @Test func timeoutIsTransientAndNamesTheLimit() async throws {
        let timeout = HTTPClientError(
            kind: .transfer(code: 28, text: "Timeout was reached", detail: "Operation timed out after 10001 ms"),
            method: "POST", target: Self.target)
        for backend in Self.backends(ScriptedHTTP(throwing: timeout)) {
            let error = await Self.error(backend)
            #expect(error?.isTransient == true)
            #expect(error?.code == .backendError)
            #expect(error?.description.contains("within 10 s") == true)
        }
    }

    @Test func connectionFailureIsTransientAndScrubbed() async throws {
        let identityToolkit = { (fetcher: ScriptedHTTP) -> any SignInBackend in
            BackendFixture.identityToolkit(fetcher)
        }
        let webhook = { (fetcher: ScriptedHTTP) -> any SignInBackend in
            WebhookBackend(
                url: URL(string: "http://127.0.0.1:9/hook")!, secret: Secret(BackendFixture.webhookSecret),
                fetcher: fetcher)
        }
        // curl details that, against all expectations, repeat the URL with its query, or the backend's secret.
        let cases: [(String, (ScriptedHTTP) -> any SignInBackend)] = [
            ("Failed to connect to \(Self.target)?key=\(BackendFixture.apiKey)", identityToolkit),
            ("Failed to connect: \(BackendFixture.apiKey) \(BackendFixture.twitterToken)", identityToolkit),
            ("Failed to connect to http://127.0.0.1:9/hook?token=hook-url-token-123)", webhook),
            ("Failed to connect: \(BackendFixture.webhookSecret) \(BackendFixture.twitterSecret)", webhook),
        ]
        for (detail, makeBackend) in cases {
            let refused = HTTPClientError(
                kind: .transfer(code: 7, text: "Couldn't connect to server", detail: detail), method: "POST",
                target: Self.target)
            let error = await Self.error(makeBackend(ScriptedHTTP(throwing: refused)))
            #expect(error?.isTransient == true)
            #expect(error?.description.contains("Couldn't connect to server") == true)
            #expect(error?.description.contains("hook-url-token-123") == false)
            BackendFixture.expectNoSecrets(in: error)
        }
    }

    @Test func cancellationIsTransient() async throws {
        for backend in Self.backends(ScriptedHTTP(throwing: CancellationError())) {
            #expect(await Self.error(backend)?.isTransient == true)
        }
    }

    @Test func anUnsendableRequestIsRejected() async throws {
        let invalid = HTTPClientError(kind: .invalidRequest("unsupported URL scheme"), method: "POST", target: "x")
        for backend in Self.backends(ScriptedHTTP(throwing: invalid)) {
            let error = await Self.error(backend)
            #expect(error?.isTransient == false)
            #expect(error?.code == .backendError)
        }
    }
}
