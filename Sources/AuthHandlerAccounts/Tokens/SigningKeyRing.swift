import AuthHandlerCrypto

/// The accounts' ID-token keys at one time (docs/ACCOUNTS.md "Rotating the signing key"): the one that signs, the
/// next one (published, not signing yet) and the previous ones (published, verifying only).
///
/// Every key of the ring is in the JWKS and verifies bearer tokens; only `current` signs.
package struct SigningKeyRing: Sendable {
    /// The key that signs new ID tokens (`signingKey`).
    package let current: AccountSigningKey
    /// The key that will sign after the next rotation (`nextSigningKey`), published ahead so that every cache of
    /// the JWKS holds it by then.
    package let next: AccountSigningKey?
    /// Keys that signed before (`previousSigningKeys`), published until the last token they signed has expired.
    package let previous: [AccountSigningKey]
    private let byKeyID: [String: AccountSigningKey]

    /// A ring of distinct keys; the same key twice (one `kid`) is a configuration mistake and refused.
    package init(current: AccountSigningKey, next: AccountSigningKey? = nil, previous: [AccountSigningKey] = [])
        throws(AccountSigningKeyError)
    {
        var byKeyID: [String: AccountSigningKey] = [:]
        for key in [current] + (next.map { [$0] } ?? []) + previous {
            guard byKeyID.updateValue(key, forKey: key.keyID) == nil else {
                throw AccountSigningKeyError(
                    "the signing key with kid \(key.keyID) appears twice among signingKey, nextSigningKey and "
                        + "previousSigningKeys; each key may be named once")
            }
        }
        self.current = current
        self.next = next
        self.previous = previous
        self.byKeyID = byKeyID
    }

    /// The published keys, in the JWKS's order: current, next, then the previous ones.
    package var published: [AccountSigningKey] {
        [current] + (next.map { [$0] } ?? []) + previous
    }

    /// The published public key whose `kid` is `keyID`; nil for any other.
    package func verificationKey(keyID: String) -> PublicKey? {
        byKeyID[keyID]?.publicKey
    }
}
