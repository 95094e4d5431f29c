import Foundation
import TestSupport
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerCrypto
@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols

struct ConfigSecretTests {
    let value = ConfigFixture.secretValue

    @Test func secretDescriptionsAreRedacted() {
        let secret = Secret(value)
        #expect(secret.description == "<redacted>")
        #expect(secret.debugDescription == "Secret(<redacted>)")
        #expect(!"\(secret)".contains(value))
        #expect(!String(reflecting: secret).contains(value))
        var dumped = ""
        dump(secret, to: &dumped)
        #expect(!dumped.contains(value))
        #expect(!SecretReference.inline(secret).description.contains(value))
        #expect(secret.reveal() == value)
    }

    @Test func resolvesFromAFileWithoutTheTrailingNewline() throws {
        let directory = try ConfigTemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write("secret", value + "\n")
        let secret = try SecretReference.file(path).resolve(in: SecretEnvironment(variables: [:]))
        #expect(secret.reveal() == value)
    }

    @Test func resolvesFromTheEnvironment() throws {
        let secret = try SecretReference.environment("MY_SECRET")
            .resolve(in: SecretEnvironment(variables: ["MY_SECRET": value]))
        #expect(secret.reveal() == value)
    }

    @Test func resolvesFromASystemdCredential() throws {
        let directory = try ConfigTemporaryDirectory()
        defer { directory.remove() }
        try directory.write("forge-secret", value)
        let environment = SecretEnvironment(variables: ["CREDENTIALS_DIRECTORY": directory.path])
        #expect(try SecretReference.credential("forge-secret").resolve(in: environment).reveal() == value)
    }

    @Test func failuresNameTheSourceButNeverTheValue() throws {
        let directory = try ConfigTemporaryDirectory()
        defer { directory.remove() }
        let emptyFile = try directory.write("empty", "\n")
        let cases: [(SecretReference, SecretEnvironment, SecretResolutionError)] = [
            (.file("/nonexistent/x"), SecretEnvironment(variables: [:]), .fileMissing(path: "/nonexistent/x")),
            (.file(directory.path), SecretEnvironment(variables: [:]), .fileIsDirectory(path: directory.path)),
            (.file(emptyFile), SecretEnvironment(variables: [:]), .fileEmpty(path: emptyFile)),
            (.environment("NOPE"), SecretEnvironment(variables: ["OTHER": value]), .environmentUnset(name: "NOPE")),
            (.environment("EMPTY"), SecretEnvironment(variables: ["EMPTY": ""]), .environmentEmpty(name: "EMPTY")),
            (.credential("c"), SecretEnvironment(variables: [:]), .credentialsDirectoryUnset(name: "c")),
            (
                .credential("c"), SecretEnvironment(variables: ["CREDENTIALS_DIRECTORY": directory.path]),
                .credentialMissing(name: "c", directory: directory.path)
            ),
            (.inline(Secret("")), SecretEnvironment(variables: [:]), .inlineEmpty),
        ]
        for (reference, environment, expected) in cases {
            #expect(throws: expected) { try reference.resolve(in: environment) }
            #expect(!expected.description.contains(value))
        }
    }

    /// A file that exists but cannot be read is reported as unreadable. Root reads a file whatever its mode, and CI
    /// runs as root, so the case that holds for every user is a socket: it exists and is no directory, and open(2)
    /// refuses it to anyone with ENXIO. A mode-0 file is checked too when the tests do not run as root.
    @Test func unreadableSecretFileIsReported() async throws {
        let directory = try ConfigTemporaryDirectory()
        defer { directory.remove() }
        let socketPath = directory.path + "/socket"
        let socket = try NotifySocketListener(at: socketPath)
        var unreadable = [socketPath]
        if getuid() != 0 { unreadable.append(try directory.write("locked", value, permissions: 0o000)) }
        for path in unreadable {
            #expect(throws: SecretResolutionError.fileUnreadable(path: path)) {
                try SecretReference.file(path).resolve(in: SecretEnvironment(variables: [:]))
            }
        }
        await socket.close()
    }
}
