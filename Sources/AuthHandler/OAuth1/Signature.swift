/// The value of `oauth_signature` (RFC 5849 §3.4): where the OAuth 1.0a signature is built and compared.
public struct OAuth1Signature: Sendable, Hashable {
    /// The method that produced `value`.
    public let method: OAuth1SignatureMethod
    /// The signature before header encoding: base64 of the MAC, or the signing key for PLAINTEXT.
    public let value: String

    /// Signs `baseString` with `method` under the key `enc(consumerSecret)&enc(tokenSecret)`.
    ///
    /// The base string is only built for the HMAC methods; PLAINTEXT ignores it (§3.4.4). An absent
    /// token secret (temporary-credential request, §2.1) is the empty string.
    public init(
        method: OAuth1SignatureMethod, baseString: @autoclosure () -> SignatureBaseString, consumerSecret: String,
        tokenSecret: String
    ) throws(OAuth1Error) {
        let key = Self.signingKey(consumerSecret: consumerSecret, tokenSecret: tokenSecret)
        self.method = method
        switch method {
        case .hmacSHA1, .hmacSHA256:
            let algorithm: HMAC.Algorithm = method == .hmacSHA1 ? .sha1 : .sha256
            do {
                value = Base64.encode(try HMAC.authenticationCode(algorithm, key: key, message: baseString().bytes))
            } catch {
                throw .crypto(error)
            }
        case .plaintext:
            value = String(decoding: key, as: UTF8.self)
        }
    }

    /// The key of §3.4.2 and §3.4.4: `enc(consumerSecret) & enc(tokenSecret)`, the `&` always present.
    public static func signingKey(consumerSecret: String, tokenSecret: String) -> [UInt8] {
        let capacity = OAuth1PercentEncoding.encodedBound(consumerSecret.utf8.count + tokenSecret.utf8.count) + 1
        return ByteWriter.bytes(capacity: capacity) { key in
            key.write(percentEncoding: consumerSecret)
            key.write(UInt8(ascii: "&"))
            key.write(percentEncoding: tokenSecret)
        }
    }

    /// True when `received` (the decoded `oauth_signature`) equals this signature, compared in constant time.
    public func matches(_ received: String) -> Bool {
        ConstantTime.equals(value, received)
    }
}
