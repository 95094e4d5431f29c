import AuthHandlerCrypto
import AuthHandlerHTTP
import Foundation

/// Validates an OpenID Connect ID token (OIDC Core §3.1.3.7, RFC 8725) against one sign-in's expectations.
///
/// Order: the header is judged before any key is fetched (`alg` pinned, `none` refused, no `crit`, no key
/// source of the sender's choosing), then the signature with a key from the provider's JWKS, then the claims.
package struct IDTokenValidator: Sendable {
    /// Longest `sub` accepted, in ASCII characters (OIDC Core §2).
    package static let maximumSubjectLength = 255

    private let keys: JWKSCache

    package init(keys: JWKSCache) {
        self.keys = keys
    }

    /// The token's claims when every check passes; otherwise the first failed check.
    package func validate(_ token: String, expecting expectations: IDTokenExpectations) async throws(OIDCError)
        -> IDTokenClaims
    {
        let jws: CompactJWS
        do {
            jws = try CompactJWS(parsing: token)
        } catch {
            throw .malformedToken(reason: error.reason)
        }
        if let algorithm = try Self.checkHeader(jws.header, expectations: expectations) {
            try await verifySignature(jws, algorithm: algorithm, jwksURI: expectations.jwksURI)
        } else if !jws.signature.isEmpty {
            throw .malformedToken(reason: "an alg none token must have an empty signature")
        }
        guard let claims = JSONValue.parse(jws.payload), claims.objectValue != nil else {
            throw .malformedToken(reason: "the payload is not a JSON object")
        }
        return try Self.checkClaims(claims, expectations: expectations)
    }

    /// The pinned algorithm the header names, or nil for an allowed `alg: none`.
    package static func checkHeader(_ header: JOSEHeader, expectations: IDTokenExpectations) throws(OIDCError)
        -> JWSAlgorithm?
    {
        var algorithm: JWSAlgorithm?
        if header.alg == "none" {
            guard expectations.allowsUnsigned else { throw .unsignedToken }
        } else {
            guard let pinned = JWSAlgorithm(rawValue: header.alg), expectations.allowedAlgorithms.contains(pinned)
            else {
                throw .algorithmNotAllowed(alg: header.alg, allowed: expectations.allowedAlgorithms)
            }
            algorithm = pinned
        }
        if let crit = header.crit { throw .criticalHeader(names: crit) }
        // RFC 8725 §3.10: never fetch or trust a key the token itself points to.
        if header.jku != nil { throw .keySourceInHeader(parameter: "jku") }
        if header.x5u != nil { throw .keySourceInHeader(parameter: "x5u") }
        if header.jwk != nil { throw .keySourceInHeader(parameter: "jwk") }
        if header.x5c != nil { throw .keySourceInHeader(parameter: "x5c") }
        return algorithm
    }

    private func verifySignature(_ jws: CompactJWS, algorithm: JWSAlgorithm, jwksURI: String) async throws(OIDCError) {
        let candidates = try await keys.keys(jwksURI: jwksURI, keyID: jws.header.kid, algorithm: algorithm)
        let verified = candidates.contains { key in
            key.verify(algorithm, signature: jws.signature, message: jws.signingInput)
        }
        guard verified else { throw .invalidSignature }
    }

    package static func checkClaims(_ claims: JSONValue, expectations: IDTokenExpectations) throws(OIDCError)
        -> IDTokenClaims
    {
        let now = expectations.now.timeIntervalSince1970
        let skew = expectations.clockSkew

        let issuer = try requiredString(claims, "iss")
        let expectedIssuer = try self.expectedIssuer(expectations.issuer, claims: claims)
        guard issuer == expectedIssuer else { throw .issuerMismatch(expected: expectedIssuer, received: issuer) }

        let subject = try requiredString(claims, "sub")
        guard !subject.isEmpty else { throw .invalidSubject(reason: "it is empty") }
        guard subject.utf8.count <= maximumSubjectLength else {
            throw .invalidSubject(reason: "it is longer than \(maximumSubjectLength) characters")
        }

        let audience = try self.audience(claims)
        guard audience.contains(expectations.clientID) else { throw .audienceMismatch(clientID: expectations.clientID) }
        let authorizedParty = try optionalString(claims, "azp")
        if let authorizedParty, authorizedParty != expectations.clientID {
            throw .authorizedPartyMismatch(clientID: expectations.clientID)
        }
        if audience.count > 1, authorizedParty == nil { throw .authorizedPartyMissing }

        let expiresAt = try requiredNumber(claims, "exp")
        guard expiresAt > now - skew else { throw .expired(exp: expiresAt, now: now) }
        let issuedAt = try requiredNumber(claims, "iat")
        guard issuedAt <= now + skew else { throw .issuedInFuture(iat: issuedAt, now: now) }
        if let notBefore = try optionalNumber(claims, "nbf"), notBefore > now + skew {
            throw .notYetValid(nbf: notBefore, now: now)
        }

        let nonce = try optionalString(claims, "nonce")
        if let expectedNonce = expectations.nonce {
            guard let nonce else { throw .missingClaim("nonce") }
            guard ConstantTime.equals(nonce, expectedNonce) else { throw .nonceMismatch }
        }

        let authTime = try optionalNumber(claims, "auth_time")
        if let maxAge = expectations.maxAge {
            guard let authTime else { throw .missingClaim("auth_time") }
            guard authTime + Double(maxAge) + skew >= now else {
                throw .authenticationTooOld(authTime: authTime, maxAge: maxAge)
            }
        }

        return IDTokenClaims(
            iss: issuer, sub: subject, aud: audience, exp: Date(timeIntervalSince1970: expiresAt),
            iat: Date(timeIntervalSince1970: issuedAt), nonce: nonce, azp: authorizedParty,
            authTime: authTime.map(Date.init(timeIntervalSince1970:)), email: claims["email"]?.stringValue,
            emailVerified: emailVerified(claims["email_verified"]), name: claims["name"]?.stringValue, raw: claims)
    }

    /// The issuer `iss` must equal; for a tenant template, built from the token's `tid`.
    private static func expectedIssuer(_ rule: IDTokenExpectations.IssuerRule, claims: JSONValue) throws(OIDCError)
        -> String
    {
        switch rule {
        case .exact(let issuer):
            return issuer
        case .tenantTemplate:
            // `resolved` accepts only a GUID-like `tid`, so the claim cannot rewrite the issuer's path.
            guard let issuer = rule.resolved(tenantID: try requiredString(claims, "tid")) else {
                throw .invalidClaimType("tid")
            }
            return issuer
        }
    }

    /// `aud` as a list: a string, or a non-empty array of strings (OIDC Core §2).
    private static func audience(_ claims: JSONValue) throws(OIDCError) -> [String] {
        switch claims["aud"] {
        case nil:
            throw .missingClaim("aud")
        case .string(let single)?:
            return [single]
        case .array(let elements)?:
            let audiences = elements.compactMap(\.stringValue)
            guard !audiences.isEmpty, audiences.count == elements.count else { throw .invalidClaimType("aud") }
            return audiences
        default:
            throw .invalidClaimType("aud")
        }
    }

    private static func emailVerified(_ value: JSONValue?) -> Bool? {
        switch value {
        case .bool(let flag)?: flag
        case .string("true")?: true
        case .string("false")?: false
        default: nil
        }
    }

    private static func requiredString(_ claims: JSONValue, _ name: String) throws(OIDCError) -> String {
        guard let value = try optionalString(claims, name) else { throw .missingClaim(name) }
        return value
    }

    private static func optionalString(_ claims: JSONValue, _ name: String) throws(OIDCError) -> String? {
        guard let value = claims[name], value != .null else { return nil }
        guard let string = value.stringValue else { throw .invalidClaimType(name) }
        return string
    }

    private static func requiredNumber(_ claims: JSONValue, _ name: String) throws(OIDCError) -> Double {
        guard let value = try optionalNumber(claims, name) else { throw .missingClaim(name) }
        return value
    }

    /// A NumericDate (RFC 7519 §2): a finite JSON number of seconds since the epoch.
    private static func optionalNumber(_ claims: JSONValue, _ name: String) throws(OIDCError) -> Double? {
        guard let value = claims[name], value != .null else { return nil }
        guard let number = value.numberValue, number.isFinite else { throw .invalidClaimType(name) }
        return number
    }
}
