import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerSystem

/// The value of `oauth_signature` (RFC 5849 §3.4): where the OAuth 1.0a signature is built and compared.
package struct OAuth1Signature: Sendable, Hashable {
    /// The method that produced `value`.
    package let method: OAuth1SignatureMethod
    /// The signature before header encoding: base64 of the MAC, or the signing key for PLAINTEXT.
    package let value: String

    /// Signs `baseString` with `method` under the key `enc(consumerSecret)&enc(tokenSecret)`.
    ///
    /// The base string is only built for the HMAC methods; PLAINTEXT ignores it (§3.4.4). An absent
    /// token secret (temporary-credential request, §2.1) is the empty string.
    package init(
        method: OAuth1SignatureMethod, baseString: @autoclosure () -> SignatureBaseString, consumerSecret: String,
        tokenSecret: String
    ) throws(OAuth1Error) {
        self.method = method
        switch method {
        case .hmacSHA1, .hmacSHA256:
            let algorithm: HMAC.Algorithm = method == .hmacSHA1 ? .sha1 : .sha256
            let message = baseString().bytes
            let signed = ByteWriter.withTemporaryBytes(
                capacity: Self.signingKeyBound(consumerSecret: consumerSecret, tokenSecret: tokenSecret),
                { Self.writeSigningKey(consumerSecret: consumerSecret, tokenSecret: tokenSecret, to: &$0) }
            ) { key in
                Result { () throws(CryptoError) in
                    try HMAC.base64AuthenticationCode(algorithm, key: key, message: message)
                }
            }
            do { value = try signed.get() } catch { throw .crypto(error) }
        case .plaintext:
            value = String(
                decoding: Self.signingKey(consumerSecret: consumerSecret, tokenSecret: tokenSecret), as: UTF8.self)
        }
    }

    /// The key of §3.4.2 and §3.4.4: `enc(consumerSecret) & enc(tokenSecret)`, the `&` always present.
    package static func signingKey(consumerSecret: String, tokenSecret: String) -> [UInt8] {
        ByteWriter.bytes(capacity: signingKeyBound(consumerSecret: consumerSecret, tokenSecret: tokenSecret)) {
            writeSigningKey(consumerSecret: consumerSecret, tokenSecret: tokenSecret, to: &$0)
        }
    }

    private static func signingKeyBound(consumerSecret: String, tokenSecret: String) -> Int {
        RFC3986.encodedBound(consumerSecret.utf8.count + tokenSecret.utf8.count) + 1
    }

    private static func writeSigningKey(consumerSecret: String, tokenSecret: String, to key: inout ByteWriter) {
        key.write(percentEncoding: consumerSecret)
        key.write(UInt8(ascii: "&"))
        key.write(percentEncoding: tokenSecret)
    }

    /// True when `received` (the decoded `oauth_signature`) equals this signature, compared in constant time.
    package func matches(_ received: String) -> Bool {
        ConstantTime.equals(value, received)
    }
}
