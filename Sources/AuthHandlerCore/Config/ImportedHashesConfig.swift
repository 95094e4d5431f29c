import AuthHandlerCrypto
import AuthHandlerHTTP
import Foundation

/// `backend.importedHashes.firebase` (CONFIG.md, docs/ACCOUNTS.md "Imported users"): the Firebase project's password
/// hash parameters, which the daemon needs at the sign-in of every imported user not yet upgraded. Only the salt of a
/// user is kept with the user; the signer key stays here, a secret reference, never copied into a row.
package struct FirebaseHashConfig: Sendable, Hashable {
    /// `signerKey`: the project's base64 signer key (Firebase console, "Password hash parameters": `base64_signer_key`).
    package var signerKey: SecretReference
    /// `saltSeparator`: base64 (`base64_salt_separator`).
    package var saltSeparator: [UInt8]
    /// `rounds`: scrypt's r.
    package var rounds: Int
    /// `memCost`: log2 of scrypt's N.
    package var memCost: Int

    package init(signerKey: SecretReference, saltSeparator: [UInt8], rounds: Int, memCost: Int) {
        (self.signerKey, self.saltSeparator, self.rounds, self.memCost) = (signerKey, saltSeparator, rounds, memCost)
    }

    /// The parameters with the signer key read and decoded: `.unresolvableSecret` when it cannot be read,
    /// `.accounts` when it is not base64.
    package func parameters(in environment: SecretEnvironment) throws(BackendSetupError) -> FirebaseScrypt.Parameters {
        let key = "backend.importedHashes.firebase.signerKey"
        let secret = try BackendSetupError.resolve(signerKey, key: key, in: environment)
        guard
            let signerKey = Base64.decode(secret.reveal().trimmingCharacters(in: .whitespacesAndNewlines)),
            !signerKey.isEmpty
        else {
            throw .accounts(key: key, "is not base64 (the Firebase console's base64_signer_key)")
        }
        return FirebaseScrypt.Parameters(
            signerKey: signerKey, saltSeparator: saltSeparator, rounds: rounds, memCost: memCost)
    }
}

extension ConfigValidator {
    static let importedHashesKeys = ["firebase"]
    static let firebaseHashKeys = ["signerKey", "saltSeparator", "rounds", "memCost"]

    /// `importedHashes`: `{"firebase": {"signerKey": <secret reference>, "saltSeparator", "rounds", "memCost"}}`,
    /// within scrypt's bound (128·N·r ≤ 32 MiB).
    mutating func importedHashes(_ value: JSONValue, at path: ConfigPath) -> FirebaseHashConfig? {
        guard let sections = object(value, at: path, allowedKeys: Self.importedHashesKeys),
            let section = sections["firebase"]
        else { return nil }
        let path = path.key("firebase")
        guard let fields = object(section, at: path, allowedKeys: Self.firebaseHashKeys) else { return nil }
        for key in Self.firebaseHashKeys where fields[key] == nil { fail(path.key(key), "is required") }
        let signerKey = fields["signerKey"].flatMap { secret($0, at: path.key("signerKey")) }
        var separator: [UInt8]?
        if let value = fields["saltSeparator"], let text = string(value, at: path.key("saltSeparator")) {
            separator = Base64.decode(text)
            if separator == nil { fail(path.key("saltSeparator"), "is not base64 (e.g. \"Bw==\")") }
        }
        let rounds = fields["rounds"].flatMap {
            integer($0, in: FirebaseScrypt.roundsRange, at: path.key("rounds"), counting: "rounds")
        }
        let memCost = fields["memCost"].flatMap {
            integer($0, in: FirebaseScrypt.memCostRange, at: path.key("memCost"), counting: "doublings")
        }
        guard let signerKey, let separator, let rounds, let memCost else { return nil }
        if let violation = FirebaseScrypt.boundsViolation(rounds: rounds, memCost: memCost) {
            fail(path.key("memCost"), violation)
            return nil
        }
        return FirebaseHashConfig(signerKey: signerKey, saltSeparator: separator, rounds: rounds, memCost: memCost)
    }
}
