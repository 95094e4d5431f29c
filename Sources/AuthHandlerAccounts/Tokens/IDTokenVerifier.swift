import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerProtocols
import Foundation

/// Verifies this daemon's own ID tokens when they come back as `Authorization: Bearer` (issue 25 §2 "Bearer
/// tokens"): ES256 only, a `kid` of the ring, the signature, then `iss`, `aud`, `exp` and `iat`.
///
/// Whether the session (`sid`) is still live, the user enabled and `auth_time` not before the user's `validSince` is
/// the caller's check against the store; this type knows no store.
package struct IDTokenVerifier: Sendable {
    /// How far in the future an `iat` may be: the clocks of several instances behind one load balancer differ.
    package static let defaultClockSkewSeconds = 30

    private let ring: SigningKeyRing
    private let issuer: String
    private let audience: String
    private let clockSkew: TimeInterval

    package init(ring: SigningKeyRing, settings: IDTokenSettings, clockSkewSeconds: Int = defaultClockSkewSeconds) {
        self.ring = ring
        issuer = settings.issuer
        audience = settings.audience
        clockSkew = TimeInterval(clockSkewSeconds)
    }

    /// The token's session and times when every check passes at `now`; otherwise the first that failed, in the
    /// order: shape, header, key, signature, claims (RFC 8725 §3.1: the header is judged before any key is used).
    package func verify(_ token: String, now: Date) throws(BearerTokenError) -> VerifiedIDToken {
        let jws = try Self.split(token)
        let header = jws.header
        guard header["alg"] == .string(JWSAlgorithm.es256.rawValue) else { throw .algorithmNotAllowed }
        // RFC 8725 §3.10: never a key the token points to; and no extension we would have to understand (`crit`).
        guard !Self.refusedHeaderMembers.contains(where: { header[$0] != nil }) else { throw .algorithmNotAllowed }
        // Explicit typing (RFC 8725 §3.11): another kind of JWT this key may one day sign is not an ID token.
        guard header["typ"] == nil || header["typ"] == .string("JWT") else {
            throw .malformed(reason: "typ is not JWT")
        }
        guard case .string(let keyID)? = header["kid"], let key = ring.verificationKey(keyID: keyID) else {
            throw .unknownKey
        }
        guard key.verify(.es256, signature: jws.signature, message: jws.signingInput) else {
            throw .invalidSignature
        }
        guard let claims = JSONValue.parse(jws.payload), claims.objectValue != nil else {
            throw .malformed(reason: "the payload is not a JSON object")
        }
        return try check(claims, now: now.timeIntervalSince1970)
    }

    /// Header members that refuse a token: key sources chosen by its sender, and critical extensions.
    private static let refusedHeaderMembers = ["crit", "jku", "jwk", "x5u", "x5c"]

    /// The compact JWS's segments decoded (RFC 7515 §7.1), the header as a JSON object.
    ///
    /// `CompactJWS(parsing:)` does the same with `JSONDecoder` for the header, whose cost was a tenth of a whole
    /// verification here (docs/ACCOUNTS.md "ID tokens and keys"); the one JSON reader, `JSONValue.parse`, is used
    /// instead, and it also refuses a header that repeats a member name.
    private static func split(_ token: String) throws(BearerTokenError) -> (
        header: [String: JSONValue], payload: [UInt8], signature: [UInt8], signingInput: [UInt8]
    ) {
        let utf8 = Array(token.utf8)
        guard utf8.count <= CompactJWS.maximumLength else { throw .malformed(reason: "longer than 16 KiB") }
        let parts = utf8.split(separator: UInt8(ascii: "."), maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformed(reason: "expected three dot-separated segments") }
        let decoded = parts.map { Base64.urlDecode(String(decoding: $0, as: UTF8.self)) }
        guard let headerBytes = decoded[0], let payload = decoded[1], let signature = decoded[2] else {
            throw .malformed(reason: "a segment is not base64url")
        }
        guard let header = JSONValue.parse(headerBytes)?.objectValue else {
            throw .malformed(reason: "the header is not a JSON object")
        }
        return (header, payload, signature, Array(utf8[..<parts[1].endIndex]))
    }

    private func check(_ claims: JSONValue, now: TimeInterval) throws(BearerTokenError) -> VerifiedIDToken {
        guard try Self.string(claims, "iss") == issuer else { throw .wrongIssuer }
        // The daemon writes `aud` as one string; an array, even one naming this audience, is not its token.
        guard try Self.string(claims, "aud") == audience else { throw .wrongAudience }
        let expiresAt = try Self.time(claims, "exp")
        guard now < expiresAt else { throw .expired }
        let issuedAt = try Self.time(claims, "iat")
        guard issuedAt <= now + clockSkew else { throw .issuedInFuture }
        guard let localID = LocalID(try Self.string(claims, "sub")) else {
            throw .malformed(reason: "sub is not a user id")
        }
        if let userID = claims["user_id"], userID != .string(localID.value) {
            throw .malformed(reason: "user_id is not sub")
        }
        let sessionID = try Self.string(claims, "sid")
        guard !sessionID.isEmpty else { throw .malformed(reason: "sid is empty") }
        let authTime = try Self.time(claims, "auth_time")
        guard authTime <= issuedAt else { throw .malformed(reason: "auth_time is after iat") }
        return VerifiedIDToken(
            localID: localID, sessionID: sessionID, authTime: Date(timeIntervalSince1970: authTime),
            issuedAt: Date(timeIntervalSince1970: issuedAt), expiresAt: Date(timeIntervalSince1970: expiresAt))
    }

    private static func string(_ claims: JSONValue, _ name: String) throws(BearerTokenError) -> String {
        guard let value = claims[name] else { throw .missingClaim(name) }
        guard let string = value.stringValue else { throw .malformed(reason: "\(name) is not a string") }
        return string
    }

    /// A NumericDate (RFC 7519 §2): a finite JSON number of seconds since the epoch.
    private static func time(_ claims: JSONValue, _ name: String) throws(BearerTokenError) -> TimeInterval {
        guard let value = claims[name] else { throw .missingClaim(name) }
        guard let number = value.numberValue, number.isFinite else {
            throw .malformed(reason: "\(name) is not a number")
        }
        return number
    }
}

/// A bearer token that passed `IDTokenVerifier`: whose user and session it speaks for, and its times, for the
/// caller's checks against the store (session live, `auth_time` not before `validSince`, recent sign-in).
package struct VerifiedIDToken: Sendable, Equatable {
    /// `sub`.
    package let localID: LocalID
    /// `sid`.
    package let sessionID: String
    /// `auth_time`.
    package let authTime: Date
    /// `iat`.
    package let issuedAt: Date
    /// `exp`.
    package let expiresAt: Date
}
