import AuthHandlerClient
import AuthHandlerCore
import AuthHandlerHTTP
import Foundation
import TestSupport
import Testing

/// `AuthHandlerClient`'s device sign-in (HTTP-API.md §3.9) against the real `auth-handler serve` and `fake-idp`: the
/// client asks for the code pair and polls; the person in front of the browser is the harness's, which opens the
/// confirmation page, presses a button and approves at the fake IdP.
@Suite(.timeLimit(.minutes(3)))
struct EndToEndClientDeviceTests {
    static func client(_ e2e: EndToEnd) throws -> AuthHandlerClient {
        AuthHandlerClient(baseURL: try #require(URL(string: e2e.daemonURL)))
    }

    @Test("beginDeviceSignIn, then a person continues and signs in: completeDeviceSignIn returns the result once")
    func signsIn() async throws {
        try await withEndToEnd(settings: EndToEndDeviceTests.settings()) { e2e in
            let client = try Self.client(e2e)
            let signIn = try await client.beginDeviceSignIn(
                providerId: "google.com", customParameters: ["login_hint": "alice"])
            #expect(signIn.userCode.count == 9 && signIn.userCode.dropFirst(4).first == "-")
            #expect(signIn.verificationURL.absoluteString == e2e.daemonURL + "/__/auth/device")
            #expect(signIn.interval == 1)
            // The codes stay out of what an app might print or log.
            #expect(!String(describing: signIn).contains(signIn.deviceCodeForTests))
            let polling = Task { try await client.completeDeviceSignIn(signIn) }
            let complete = try #require(signIn.verificationURLComplete).absoluteString
            #expect(try await EndToEndDeviceTests.confirm(e2e, completeURI: complete) == "done")
            let result = try await polling.value
            #expect(result.providerId == "google.com")
            #expect(result.profile.email == "alice@example.com")
            let idToken = try #require(result.credential.idToken)
            #expect(!idToken.isEmpty && result.credential.nonce != nil)
            // Delivered once: the device code is spent.
            await #expect {
                _ = try await client.completeDeviceSignIn(signIn)
            } throws: { error in
                if case .invalidGrant = error as? AuthHandlerClientError { true } else { false }
            }
        }
    }

    @Test("a person who presses Cancel: completeDeviceSignIn throws userCancelled")
    func declined() async throws {
        try await withEndToEnd(settings: EndToEndDeviceTests.settings()) { e2e in
            let client = try Self.client(e2e)
            let signIn = try await client.beginDeviceSignIn(providerId: "twitter.com")
            let polling = Task { try await client.completeDeviceSignIn(signIn) }
            let complete = try #require(signIn.verificationURLComplete).absoluteString
            let answer = try await EndToEndDeviceTests.decide(e2e, completeURI: complete, decision: "cancel")
            #expect(answer.status == 303)
            await #expect {
                _ = try await polling.value
            } throws: { error in
                if case .userCancelled = error as? AuthHandlerClientError { true } else { false }
            }
        }
    }

    @Test("nobody signs in before the codes expire: deviceCodeExpired; a provider the daemon lacks: invalidProviderID")
    func expiresAndRefuses() async throws {
        try await withEndToEnd(settings: EndToEndDeviceTests.settings(lifetime: 30, interval: 1)) { e2e in
            let client = try Self.client(e2e)
            await #expect {
                _ = try await client.beginDeviceSignIn(providerId: "oidc.nowhere")
            } throws: { error in
                if case .invalidProviderID = error as? AuthHandlerClientError { true } else { false }
            }
            let signIn = try await client.beginDeviceSignIn(providerId: "google.com")
            #expect(signIn.expiresAt.timeIntervalSinceNow <= 30)
            await #expect {
                _ = try await client.completeDeviceSignIn(signIn)
            } throws: { error in
                if case .deviceCodeExpired = error as? AuthHandlerClientError { true } else { false }
            }
        }
    }
}
