import Foundation
import TestSupport
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols
@testable import auth_handler

/// `makeSignInBackend`: the kind chosen by the config, secrets resolved once, and setup errors.
struct BackendFactoryTests {
    private static let environment = SecretEnvironment(variables: [
        "ITK_KEY": BackendFixture.apiKey, "HOOK_SECRET": BackendFixture.webhookSecret,
    ])

    private static func setupError(_ config: BackendConfig, _ environment: SecretEnvironment = environment)
        -> BackendSetupError?
    {
        do {
            _ = try makeSignInBackend(
                config: config, secrets: environment, fetcher: ScriptedHTTP(status: 200, body: "{}"))
            Issue.record("expected a BackendSetupError")
            return nil
        } catch {
            return error
        }
    }

    @Test func noneAnswersNil() async throws {
        let fetcher = ScriptedHTTP(status: 200, body: "{}")
        let backend = try makeSignInBackend(config: BackendConfig(), secrets: Self.environment, fetcher: fetcher)
        #expect(try await backend.signIn(BackendFixture.twitter()) == nil)
        #expect(fetcher.requests.isEmpty)
    }

    @Test func identityToolkitDefaultsToGooglesURL() async throws {
        let fetcher = ScriptedHTTP(status: 200, body: #"{"idToken":"t","localId":"u"}"#)
        let backend = try makeSignInBackend(
            config: BackendConfig(kind: .identitytoolkit, apiKey: .environment("ITK_KEY"), tenantId: "t1"),
            secrets: Self.environment, fetcher: fetcher, timeout: .seconds(4))
        _ = try await backend.signIn(BackendFixture.github())
        let request = try #require(fetcher.onlyRequest())
        #expect(
            request.url
                == "https://identitytoolkit.googleapis.com/v1/accounts:signInWithIdp?key=\(BackendFixture.apiKey)")
        #expect(request.timeout == .seconds(4))
        #expect(BackendFixture.json(request)?["tenantId"] == .string("t1"))
    }

    @Test func webhookSecretIsReadOnceAtSetup() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("backend-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("hook")
        try Data((BackendFixture.webhookSecret + "\n").utf8).write(to: file)

        let fetcher = ScriptedHTTP(status: 204, body: "")
        let backend = try makeSignInBackend(
            config: BackendConfig(
                kind: .webhook, url: URL(string: "http://127.0.0.1:9/hook"), secret: .file(file.path)),
            secrets: Self.environment, fetcher: fetcher)
        try FileManager.default.removeItem(at: file)
        #expect(try await backend.signIn(BackendFixture.twitter()) == .null)

        let request = try #require(fetcher.onlyRequest())
        #expect(
            WebhookSignature.isValid(
                secret: BackendFixture.webhookSecret, timestamp: request.headers["X-Auth-Handler-Timestamp"] ?? "",
                body: request.body, header: request.headers["X-Auth-Handler-Signature"] ?? ""))
    }

    @Test func missingPiecesAreNamed() {
        #expect(
            Self.setupError(BackendConfig(kind: .identitytoolkit))
                == .missingSecret(key: "backend.apiKey", kind: .identitytoolkit))
        #expect(
            Self.setupError(BackendConfig(kind: .webhook, secret: .environment("HOOK_SECRET")))
                == .missingURL(kind: .webhook))
        #expect(
            Self.setupError(BackendConfig(kind: .webhook, url: URL(string: "https://h.example/x")))
                == .missingSecret(key: "backend.secret", kind: .webhook))
    }

    @Test func unresolvableSecretNamesWhereItLooked() {
        let error = Self.setupError(
            BackendConfig(kind: .identitytoolkit, apiKey: .environment("UNSET_KEY")), SecretEnvironment(variables: [:]))
        #expect(error == .unresolvableSecret(key: "backend.apiKey", .environmentUnset(name: "UNSET_KEY")))
        #expect(error?.description.contains("backend.apiKey") == true)
        #expect(error?.description.contains("UNSET_KEY") == true)
    }
}
