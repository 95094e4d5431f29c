import AuthHandler

/// A JWKS document as an IdP serves it (RFC 7517 §5), and the key lookup an ID token's header drives.
enum JWKSTarget {
    static func run(_ input: [UInt8]) {
        guard let set = try? JSONWebKeySet(parsing: input, url: "https://idp.example.com/jwks") else { return }
        expect(set.skipped >= 0, "a negative count of skipped keys")
        for algorithm in [JWSAlgorithm.rs256, .es256] {
            _ = set.candidates(keyID: nil, algorithm: algorithm)
            _ = set.candidates(keyID: "key-1", algorithm: algorithm)
        }
    }
}
