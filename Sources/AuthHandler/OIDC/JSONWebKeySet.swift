import Foundation

/// The usable signature keys of a JWKS document (RFC 7517 §5).
///
/// Keys this handler must not verify with (other types or curves, short RSA, `use` other than `sig`,
/// malformed members) are skipped, not fatal: providers publish encryption and legacy keys alongside.
public struct JSONWebKeySet: Sendable {
    public let keys: [PublicKey]
    /// How many entries of the document were skipped.
    public let skipped: Int

    public init(keys: [PublicKey], skipped: Int = 0) {
        self.keys = keys
        self.skipped = skipped
    }

    /// Parses `{"keys": [...]}`; throws only when the document itself is not that shape.
    public init(parsing body: [UInt8], url: String) throws(OIDCError) {
        let document: Document
        do {
            document = try JSONDecoder().decode(Document.self, from: Data(body))
        } catch {
            throw .malformedDocument(.keySet, url: url, reason: "not a JSON object with a \"keys\" array")
        }
        var keys: [PublicKey] = []
        for entry in document.keys {
            guard let jwk = entry.jwk, let key = try? PublicKey(jwk: jwk) else { continue }
            keys.append(key)
        }
        self.init(keys: keys, skipped: document.keys.count - keys.count)
    }

    /// The keys that may verify an `algorithm` signature named by `keyID`; for a nil `keyID`, every key of
    /// the algorithm's type.
    public func candidates(keyID: String?, algorithm: JWSAlgorithm) -> [PublicKey] {
        keys.filter { $0.algorithm == algorithm && (keyID == nil || $0.keyID == keyID) }
    }

    private struct Document: Decodable {
        var keys: [LenientJWK]
    }

    /// One array element: a JWK, or nil when the element does not decode as one.
    private struct LenientJWK: Decodable {
        var jwk: JWK?

        init(from decoder: any Decoder) throws {
            jwk = try? JWK(from: decoder)
        }
    }
}
