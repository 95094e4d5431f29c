import AuthHandlerCrypto
import Foundation

/// The usable signature keys of a JWKS document (RFC 7517 §5).
///
/// Keys this handler must not verify with (other types or curves, short RSA, `use` other than `sig`,
/// malformed members) are skipped, not fatal: providers publish encryption and legacy keys alongside. Each skipped
/// entry is kept with its `kid` and the reason, so that the log can say why a key was not used (`JWKSCache`).
package struct JSONWebKeySet: Sendable {
    /// An entry of the document that cannot verify a signature, and why.
    package struct SkippedKey: Sendable, Equatable, CustomStringConvertible {
        /// Its position in the document's `keys` array, from 0.
        package var index: Int
        /// Its `kid`, when it has a string one.
        package var keyID: String?
        /// Why it was skipped, e.g. that a P-256 coordinate is not 32 bytes (RFC 7518 §6.2.1.2); at most
        /// ``maximumReasonLength`` characters, as it may quote the IdP's members.
        package var reason: String

        /// The longest `reason` kept.
        package static let maximumReasonLength = 240

        package init(index: Int, keyID: String?, reason: String) {
            self.index = index
            self.keyID = keyID
            self.reason = reason
        }

        /// `keys[3] (kid "k1"): reason`, the kid quoted and cut as `OIDCError` quotes IdP text.
        package var description: String {
            let kid = keyID.map { " (kid \(OIDCError.quoted($0)))" } ?? ""
            return "keys[\(index)]\(kid): \(reason)"
        }
    }

    package let keys: [PublicKey]
    /// The entries of the document that were skipped, in document order.
    package let skipped: [SkippedKey]

    package init(keys: [PublicKey], skipped: [SkippedKey] = []) {
        self.keys = keys
        self.skipped = skipped
    }

    /// Parses `{"keys": [...]}`; throws only when the document itself is not that shape.
    package init(parsing body: [UInt8], url: String) throws(OIDCError) {
        let document: Document
        do {
            document = try JSONDecoder().decode(Document.self, from: Data(body))
        } catch {
            throw .malformedDocument(.keySet, url: url, reason: "not a JSON object with a \"keys\" array")
        }
        var keys: [PublicKey] = []
        var skipped: [SkippedKey] = []
        for (index, entry) in document.keys.enumerated() {
            guard let jwk = entry.jwk else {
                skipped.append(
                    SkippedKey(
                        index: index, keyID: entry.keyID,
                        reason: "not a JWK: an object with a string \"kty\" and string members (RFC 7517 §4)"))
                continue
            }
            do {
                keys.append(try PublicKey(jwk: jwk))
            } catch {
                let reason =
                    error.detail.count > SkippedKey.maximumReasonLength
                    ? String(error.detail.prefix(SkippedKey.maximumReasonLength)) + "…" : error.detail
                skipped.append(SkippedKey(index: index, keyID: jwk.kid, reason: reason))
            }
        }
        self.init(keys: keys, skipped: skipped)
    }

    /// The skipped entries whose `kid` is `keyID`.
    package func skipped(keyID: String) -> [SkippedKey] {
        skipped.filter { $0.keyID == keyID }
    }

    /// The keys that may verify an `algorithm` signature named by `keyID`; for a nil `keyID`, every key of
    /// the algorithm's type.
    package func candidates(keyID: String?, algorithm: JWSAlgorithm) -> [PublicKey] {
        keys.filter { $0.algorithm == algorithm && (keyID == nil || $0.keyID == keyID) }
    }

    private struct Document: Decodable {
        var keys: [LenientJWK]
    }

    /// One array element: a JWK, or nil when the element does not decode as one (and then its `kid`, if any).
    private struct LenientJWK: Decodable {
        var jwk: JWK?
        var keyID: String?

        private enum CodingKeys: String, CodingKey {
            case kid
        }

        init(from decoder: any Decoder) throws {
            jwk = try? JWK(from: decoder)
            keyID = jwk?.kid ?? (try? decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .kid))
        }
    }
}
