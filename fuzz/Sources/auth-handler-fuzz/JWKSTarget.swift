import AuthHandlerCore
import AuthHandlerCrypto
import AuthHandlerProtocols

/// A JWKS document as an IdP serves it (RFC 7517 §5), and the key lookup an ID token's header drives.
enum JWKSTarget {
    static func run(_ input: [UInt8]) {
        guard let set = try? JSONWebKeySet(parsing: input, url: "https://idp.example.com/jwks") else { return }
        expect(set.skipped.allSatisfy { $0.index >= 0 && !$0.reason.isEmpty }, "a skipped key without a reason")
        for algorithm in [JWSAlgorithm.rs256, .es256] {
            _ = set.candidates(keyID: nil, algorithm: algorithm)
            _ = set.candidates(keyID: "key-1", algorithm: algorithm)
        }
    }
}
