import Foundation
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerCrypto
@testable import AuthHandlerHTTP

/// `backend.importedHashes.firebase` (CONFIG.md): read with its secret reference, each missing or bad member refused
/// with its path, and scrypt's bound enforced.
struct AccountsImportedHashesConfigTests {
    private func validate(_ firebase: String) throws -> (FirebaseHashConfig?, [String]) {
        let (config, problems) = try AccountsConfigTests.validate(
            #"{"kind": "accounts", "importedHashes": {"firebase": \#(firebase)}}"#)
        return (config.importedFirebase, AccountsConfigTests.errors(problems))
    }

    @Test func theProjectsParametersAreRead() throws {
        let (config, errors) = try validate(
            #"{"signerKey": {"env": "FIXTURE_SECRET"}, "saltSeparator": "Bw==", "rounds": 8, "memCost": 14}"#)
        #expect(errors.isEmpty, "\(errors)")
        #expect(
            config
                == FirebaseHashConfig(
                    signerKey: .environment("FIXTURE_SECRET"), saltSeparator: [7], rounds: 8, memCost: 14))
    }

    @Test func badMembersAreRefusedWithTheirPath() throws {
        let cases: [(String, String)] = [
            (
                #"{"saltSeparator": "Bw==", "rounds": 8, "memCost": 14}"#,
                "backend.importedHashes.firebase.signerKey: is required"
            ),
            (
                #"{"signerKey": {"env": "FIXTURE_SECRET"}, "saltSeparator": "B*==", "rounds": 8, "memCost": 14}"#,
                "backend.importedHashes.firebase.saltSeparator: is not base64"
            ),
            (
                #"{"signerKey": {"env": "FIXTURE_SECRET"}, "saltSeparator": "Bw==", "rounds": 8, "memCost": 16}"#,
                "backend.importedHashes.firebase.memCost: scrypt's memory"
            ),
            (
                #"{"signerKey": {"env": "FIXTURE_SECRET"}, "saltSeparator": "Bw==", "rounds": 0, "memCost": 14}"#,
                "backend.importedHashes.firebase.rounds"
            ),
        ]
        for (json, expected) in cases {
            let (config, errors) = try validate(json)
            #expect(config == nil)
            #expect(errors.contains { $0.hasPrefix(expected) }, "\(errors)")
        }
    }
}
