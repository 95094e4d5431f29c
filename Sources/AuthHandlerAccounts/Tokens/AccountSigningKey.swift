import AuthHandlerCrypto

/// One of the accounts' ID-token signing keys (docs/ACCOUNTS.md "ID tokens and keys"): an EC P-256 private key
/// (ES256, RFC 7518 §3.4) whose `kid` is its RFC 7638 thumbprint.
package struct AccountSigningKey: Sendable {
    /// The key's `kid`: the base64url SHA-256 JWK thumbprint of its public half (RFC 7638), 43 characters.
    package let keyID: String
    /// The private key; its public JWK carries `kid`, `alg: ES256` and `use: sig`.
    package let signingKey: SigningKey

    /// The public half, as the JWKS publishes it and as bearer tokens are verified with.
    package var publicKey: PublicKey { signingKey.publicKey }

    /// Reads an unencrypted PEM private key (PKCS#8 `PRIVATE KEY` or SEC 1 `EC PRIVATE KEY`); `source` names where
    /// it came from (a file, a config entry) in the errors. Any key but EC P-256 is refused.
    package init(pem: Secret, source: String) throws(AccountSigningKeyError) {
        let loaded: SigningKey
        do {
            loaded = try SigningKey(pem: pem.reveal())
        } catch let error where error.operation == "SigningKey" {
            throw Self.notP256(source, found: "a key of another type or curve")
        } catch {
            throw AccountSigningKeyError(
                "\(source) does not hold an unencrypted PEM private key (\(error.detail)); an accounts signing key is "
                    + "an EC P-256 key, e.g. from `openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256`")
        }
        guard loaded.algorithm == .es256 else { throw Self.notP256(source, found: "an RSA key") }
        try self.init(loaded, pem: pem, source: source)
    }

    /// A fresh P-256 key from OpenSSL's generator.
    package static func generate() throws(AccountSigningKeyError) -> AccountSigningKey {
        let fresh: SigningKey
        let pem: String
        do {
            fresh = try SigningKey.generate(.es256)
            pem = try fresh.pkcs8PEM()
        } catch {
            throw AccountSigningKeyError("cannot generate an EC P-256 signing key: \(error.detail)")
        }
        return try AccountSigningKey(fresh, pem: Secret(pem), source: "a generated key")
    }

    /// The private key as unencrypted PKCS#8 PEM, for the key file.
    package func pkcs8PEM() throws(AccountSigningKeyError) -> Secret {
        do {
            return Secret(try signingKey.pkcs8PEM())
        } catch {
            throw AccountSigningKeyError("cannot write the signing key \(keyID) as PEM: \(error.detail)")
        }
    }

    /// `loaded` again with its thumbprint as `kid`: `SigningKey` sets the `kid` of its JWK only when built.
    private init(_ loaded: SigningKey, pem: Secret, source: String) throws(AccountSigningKeyError) {
        do {
            let keyID = try JWKThumbprint.sha256(of: loaded.publicKey.jwk)
            self.keyID = keyID
            signingKey = try SigningKey(pem: pem.reveal(), keyID: keyID)
        } catch {
            throw AccountSigningKeyError("\(source): cannot use the signing key: \(error.detail)")
        }
    }

    private static func notP256(_ source: String, found: String) -> AccountSigningKeyError {
        AccountSigningKeyError(
            "\(source) holds \(found); an accounts signing key must be an EC P-256 private key (ES256), e.g. from "
                + "`openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256`")
    }
}
