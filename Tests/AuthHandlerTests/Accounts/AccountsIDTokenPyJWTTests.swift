import AuthHandlerCrypto
import AuthHandlerHTTP
import Foundation
import TestSupport
import Testing

@testable import AuthHandlerAccounts

/// Independence from our own signer and verifier: PyJWT (Debian `python3-jwt`, `python3-cryptography`) verifies an
/// accounts ID token against the published JWKS, ES256 only, with `aud` and `iss` checked, as an API would.
@Suite struct AccountsIDTokenPyJWTTests {
    /// `verify_id_token.py` beside this file.
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("verify_id_token.py").path

    /// What a finished run reported.
    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Writes `jwks` and `token` to a temporary directory and runs Debian's `python3` on the script.
    static func verify(jwks: [UInt8], token: String, settings: IDTokenSettings) async throws -> Outcome {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("accounts-pyjwt-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let jwksFile = directory.appendingPathComponent("jwks.json")
        let tokenFile = directory.appendingPathComponent("token")
        try Data(jwks).write(to: jwksFile)
        try Data(token.utf8).write(to: tokenFile)
        // -I: isolated, so PYTHONPATH and user site packages cannot swap in another PyJWT.
        let process = try TestProcess(
            "/usr/bin/python3", ["-I", script, jwksFile.path, tokenFile.path, settings.audience, settings.issuer],
            package: "python3-jwt", environment: ["PYTHONDONTWRITEBYTECODE": "1"])
        let status = await process.exitCode()
        return Outcome(status: status, stdout: process.standardOutput, stderr: process.standardError)
    }

    @Test("PyJWT verifies the token by the JWKS and reads the same claims; it refuses a tampered one")
    func pyjwtAgrees() async throws {
        let settings = AccountsTokenFixture.settings
        let previous = try AccountSigningKey.generate()
        let ring = try SigningKeyRing(current: try AccountSigningKey.generate(), previous: [previous])
        let jwks = PublishedKeySet(ring: ring).serialized(sortingKeys: true)
        // Signed now, so that PyJWT's own clock finds it unexpired.
        let token = try IDTokenSigner(ring: ring, settings: settings)
            .sign(try AccountsTokenFixture.subject(), now: Date()).token.reveal()

        let accepted = try await Self.verify(jwks: jwks, token: token, settings: settings)
        #expect(accepted.status == 0, "\(accepted.stderr)")
        let theirs = try #require(JSONValue.parse(Array(accepted.stdout.utf8)))
        #expect(theirs == .object(try AccountsTokenFixture.claims(of: token)))
        #expect(theirs["firebase"]?["identities"]?["google.com"] == .array([.string("1001")]))

        // A token of the previous key verifies by the same JWKS.
        let old = try IDTokenSigner(ring: try SigningKeyRing(current: previous), settings: settings)
            .sign(try AccountsTokenFixture.subject(), now: Date()).token.reveal()
        let byPrevious = try await Self.verify(jwks: jwks, token: old, settings: settings)
        #expect(byPrevious.status == 0, "\(byPrevious.stderr)")

        let parts = token.split(separator: ".").map(String.init)
        var claims = try AccountsTokenFixture.claims(of: token)
        claims["sub"] = .string("someoneElse000000000000000000")
        let tampered = [parts[0], Base64.urlEncode(JSONValue.object(claims).serialized), parts[2]]
            .joined(separator: ".")
        let refused = try await Self.verify(jwks: jwks, token: tampered, settings: settings)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("InvalidSignatureError"), "\(refused.stderr)")

        let otherAudience = IDTokenSettings(publicURL: "https://auth.example.com", audience: "https://other.example")
        let wrongAudience = try await Self.verify(jwks: jwks, token: token, settings: otherAudience)
        #expect(wrongAudience.status == 1)
        #expect(wrongAudience.stderr.contains("InvalidAudienceError"), "\(wrongAudience.stderr)")
    }
}
