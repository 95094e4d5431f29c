import Foundation
import TestSupport
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols

/// `BackendConfig.makeBackend`: the kind chosen by the config, secrets resolved once, and setup errors.
struct BackendFactoryTests {
    private static let environment = SecretEnvironment(variables: [
        "ITK_KEY": BackendFixture.apiKey, "HOOK_SECRET": BackendFixture.webhookSecret,
    ])

    /// The `backend` section `json`, read as `serve` reads it (ConfigLoader: the one path, with the defaults).
    private static func backend(_ json: String) throws -> BackendConfig {
        let document = #"{"backend": \#(json), "providers": {}}"#
        let report = ConfigLoader(environment: environment).load(data: Data(document.utf8), baseDirectory: "/")
        return try #require(report.config, "\(report.errors)").backend
    }

    @Test func noneAnswersNil() async throws {
        let fetcher = ScriptedHTTP(status: 200, body: "{}")
        let backend = try BackendConfig.none.makeBackend(secrets: Self.environment, fetcher: fetcher)
        #expect(try await backend.signIn(BackendFixture.twitter()) == nil)
        #expect(fetcher.requests.isEmpty)
    }

    @Test func identityToolkitDefaultsToGooglesURL() async throws {
        let fetcher = ScriptedHTTP(status: 200, body: #"{"idToken":"t","localId":"u"}"#)
        let config = try Self.backend(#"{"kind": "identitytoolkit", "apiKey": {"env": "ITK_KEY"}, "tenantId": "t1"}"#)
        let backend = try config.makeBackend(secrets: Self.environment, fetcher: fetcher, timeout: .seconds(4))
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
        let config = try Self.backend(
            #"{"kind": "webhook", "url": "http://127.0.0.1:9/hook", "secret": {"file": "\#(file.path)"}}"#)
        let backend = try config.makeBackend(secrets: Self.environment, fetcher: fetcher)
        try FileManager.default.removeItem(at: file)
        #expect(try await backend.signIn(BackendFixture.twitter()) == .null)

        let request = try #require(fetcher.onlyRequest())
        #expect(
            WebhookSignature.isValid(
                secret: BackendFixture.webhookSecret, timestamp: request.headers["X-Auth-Handler-Timestamp"] ?? "",
                body: request.body, header: request.headers["X-Auth-Handler-Signature"] ?? ""))
    }

    @Test func unresolvableSecretNamesWhereItLooked() throws {
        let url = try #require(IdentityToolkitConfig.defaultURL)
        let config = BackendConfig.identityToolkit(IdentityToolkitConfig(url: url, apiKey: .environment("UNSET_KEY")))
        var error: BackendSetupError?
        do {
            _ = try config.makeBackend(
                secrets: SecretEnvironment(variables: [:]), fetcher: ScriptedHTTP(status: 200, body: "{}"))
            Issue.record("expected a BackendSetupError")
        } catch let setupError {
            error = setupError
        }
        #expect(error == .unresolvableSecret(key: "backend.apiKey", .environmentUnset(name: "UNSET_KEY")))
        #expect(error?.description.contains("backend.apiKey") == true)
        #expect(error?.description.contains("UNSET_KEY") == true)
    }
}
