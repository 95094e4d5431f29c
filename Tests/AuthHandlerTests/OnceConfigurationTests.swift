import Foundation
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols
@testable import auth_handler

struct OnceConfigurationTests {
    /// The file's own settings are kept; the ones `--once` decides are set on the typed config, whatever the file says.
    @Test func theFileKeepsItsSettingsAndOnceSetsTheLoopbackOnes() throws {
        let directory = try ConfigTemporaryDirectory()
        defer { directory.remove() }
        let secret = try directory.write("google.secret", "s3cret\n")
        let file = try directory.write(
            "config.json",
            """
            {"listen": ["0.0.0.0:9000"], "opsListen": ["127.0.0.1:9100"], "publicURL": "https://auth.example.com",
             "store": {"kind": "redis", "url": "redis://127.0.0.1:6379"}, "sessionTTLSeconds": 5,
             "allowedRedirectURLs": ["https://app.example.com/done"], "logFormat": "json", "resultTTLSeconds": 30,
             "providers": {"github.com": {"clientId": "other"}}}
            """)
        let options = OnceOptions(
            config: ConfigLocation(path: file, source: .option), providerID: "google.com", port: 4321,
            timeoutSeconds: 90, clientID: "id-1", clientSecretFile: secret)
        let config = try OnceConfiguration.load(
            options, environment: [:], secrets: SecretEnvironment(variables: [:]), currentDirectory: directory.path
        ).get()
        #expect(config.listen == [ListenAddress(host: "127.0.0.1", port: 4321)])
        #expect(config.opsListen == nil)
        #expect(config.publicURL == nil)
        #expect(config.store.kind == .memory)
        #expect(config.allowedRedirectURLs.map(\.absoluteString) == [OnceConfiguration.allowedDonePage])
        #expect(config.sessionTTLSeconds == 90)
        #expect(config.logFormat == .json)
        #expect(config.resultTTLSeconds == 30)
        #expect(Array(config.providers.keys) == ["google.com"])
        #expect(config.providers["google.com"]?.clientId == "id-1")
    }

    @Test func aBadFileSettingIsReportedWithItsPath() throws {
        let directory = try ConfigTemporaryDirectory()
        defer { directory.remove() }
        let secret = try directory.write("google.secret", "s3cret\n")
        let file = try directory.write("config.json", #"{"logFormat": "xml", "listen": "ignored by --once"}"#)
        let options = OnceOptions(
            config: ConfigLocation(path: file, source: .option), providerID: "google.com", clientID: "id-1",
            clientSecretFile: secret)
        let result = OnceConfiguration.load(
            options, environment: [:], secrets: SecretEnvironment(variables: [:]), currentDirectory: directory.path)
        guard case .failure(let problem) = result else {
            Issue.record("expected a problem")
            return
        }
        #expect(problem.message.contains("have 1 problem(s), the first: logFormat:"))
    }
}
