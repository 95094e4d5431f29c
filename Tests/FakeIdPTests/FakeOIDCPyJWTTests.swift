import AuthHandlerCore
import AuthHandlerCrypto
import AuthHandlerHTTP
import Foundation
import TestSupport
import Testing

@testable import FakeIdP

/// Independence from our own signer and verifier: PyJWT (Debian `python3-jwt`) verifies the fake IdP's ID
/// tokens against its JWKS endpoint.
@Suite(.serialized) struct FakeOIDCPyJWTTests {
    /// What a finished `pyjwt_verify.py` run reported.
    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// `Tests/FakeIdPTests/python/pyjwt_verify.py`, found from this file's path.
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("python/pyjwt_verify.py").path

    /// Runs `/usr/bin/python3 pyjwt_verify.py` with `arguments` and waits for it without blocking a thread.
    static func pyjwtVerify(_ arguments: [String]) async throws -> Outcome {
        // Loopback only: no proxy variables, no user site packages, nothing written next to the script.
        let process = try TestProcess(
            "/usr/bin/python3", [script] + arguments, package: "python3-jwt",
            environment: ["PYTHONNOUSERSITE": "1", "PYTHONDONTWRITEBYTECODE": "1"])
        let status = await process.exitCode()
        return Outcome(status: status, stdout: process.standardOutput, stderr: process.standardError)
    }

    @Test func pyjwtVerifiesAnIDTokenAgainstTheJWKSAndRefusesATamperedOne() async throws {
        try await withFakeIdP { idp, client in
            let tokens = try await idp.confidentialTokens(client, nonce: "pyjwt-nonce")
            let idToken = try #require(tokens["id_token"] as? String)
            let arguments = { (token: String, nonce: String) in
                [idp.issuer + "/jwks", token, FakeOIDC.clientID, idp.issuer, nonce]
            }

            let valid = try await Self.pyjwtVerify(arguments(idToken, "pyjwt-nonce"))
            #expect(valid.status == 0, "\(valid.stderr)")
            let claims = try JSONSerialization.jsonObject(with: Data(valid.stdout.utf8)) as? [String: Any]
            #expect(claims?["sub"] as? String == "1001")
            #expect(claims?["email"] as? String == "alice@example.com")

            // The payload re-encoded with another subject, the original signature kept.
            let parts = idToken.split(separator: ".").map(String.init)
            try #require(parts.count == 3)
            let original = try #require(Base64.urlDecode(parts[1]))
            let forged = String(decoding: original, as: UTF8.self).replacingOccurrences(
                of: #""sub":"1001""#, with: #""sub":"1002""#)
            #expect(forged != String(decoding: original, as: UTF8.self))
            let tampered = [parts[0], Base64.urlEncode(Array(forged.utf8)), parts[2]].joined(separator: ".")
            let refused = try await Self.pyjwtVerify(arguments(tampered, "pyjwt-nonce"))
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("InvalidSignatureError"), "\(refused.stderr)")

            let wrongNonce = try await Self.pyjwtVerify(arguments(idToken, "another-nonce"))
            #expect(wrongNonce.status != 0)
        }
    }

    @Test func pyjwtRefusesEveryQueuedIDTokenFailure() async throws {
        try await withFakeIdP { idp, client in
            for kind in [
                "bad-signature", "wrong-iss", "wrong-aud", "wrong-nonce", "expired-id-token", "unsigned-id-token",
            ] {
                try await idp.queueThroughControlAPI(client, #"{"endpoint": "oidc/token", "kind": "\#(kind)"}"#)
                let tokens = try await idp.confidentialTokens(client, nonce: "pyjwt-nonce")
                let idToken = try #require(tokens["id_token"] as? String)
                let outcome = try await Self.pyjwtVerify([
                    idp.issuer + "/jwks", idToken, FakeOIDC.clientID, idp.issuer, "pyjwt-nonce",
                ])
                #expect(outcome.status == 1, "\(kind): \(outcome.stderr)")
            }
        }
    }
}
