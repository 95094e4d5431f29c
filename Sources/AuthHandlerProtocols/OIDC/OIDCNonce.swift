import AuthHandlerCrypto
import AuthHandlerSystem

/// The OpenID Connect nonce of one sign-in, in the form Firebase and Identity Toolkit require (HTTP-API.md §3.1).
///
/// The handler draws a *raw* nonce per sign-in and sends the provider its hash: the lowercase hex SHA-256 of the raw
/// nonce's UTF-8 bytes is the `nonce` of the authorization request and the value the ID token's `nonce` claim must
/// carry. The raw value is what the backend receives (`nonce=` in `signInWithIdp`'s `postBody`) and what the app
/// gets as `credential.nonce`. Firebase's rule, from its `OAuthCredentialOptions.rawNonce` reference: "The SHA-256
/// hash of the raw nonce must match the nonce field in the ID token".
package enum OIDCNonce {
    /// A fresh raw nonce: 32 CSPRNG bytes as base64url, 43 characters.
    package static func makeRaw() throws(CryptoError) -> String {
        try SecureRandom.base64URLString(byteCount: 32)
    }

    /// The nonce sent to the provider and expected in the ID token for `raw`: lowercase hex SHA-256 of its UTF-8.
    package static func hashed(_ raw: String) throws(CryptoError) -> String {
        Hex.lowercase(try SHA256.hash(Array(raw.utf8)))
    }
}
