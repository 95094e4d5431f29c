import AuthHandlerCrypto

/// Why an OIDC step failed: discovery, the key set, or an ID token that must be refused.
///
/// One enum for the whole OIDC layer so the flow maps every case to `provider-error` in one place.
/// Descriptions say what failed and what to check; they never contain a token, and URLs appear without
/// their query, fragment or user info.
package enum OIDCError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Which document a fetch was for.
    package enum Document: String, Sendable, Equatable {
        case discovery = "discovery document"
        case keySet = "JWKS"
    }

    // MARK: Discovery and key-set fetches

    /// A configured or discovered URL is not `https` (or `http` on a loopback host); `field` names it.
    case insecureURL(field: String, url: String)
    /// The HTTP request failed before a response arrived.
    case fetchFailed(Document, url: String, reason: String)
    /// The IdP answered with a status other than 200.
    case unexpectedStatus(Document, url: String, status: Int)
    /// The response is not the JSON document expected; `reason` names the field.
    case malformedDocument(Document, url: String, reason: String)
    /// The discovery document's `issuer` is not the configured issuer (OIDC Discovery §4.3).
    case discoveryIssuerMismatch(expected: String, received: String)

    // MARK: ID-token header and signature

    /// The token is not a compact JWS, or its payload is not a JSON object.
    case malformedToken(reason: String)
    /// The token has `alg: none` and the provider does not allow unsigned tokens.
    case unsignedToken
    /// The header's `alg` is not one of the provider's pinned algorithms (covers HS256 with a public key).
    case algorithmNotAllowed(alg: String, allowed: [JWSAlgorithm])
    /// The header names its own key source (`jku`, `x5u`, `jwk`, `x5c`); only the provider's JWKS is trusted.
    case keySourceInHeader(parameter: String)
    /// The header has `crit`; this validator understands no JWS extensions (RFC 7515 §4.1.11).
    case criticalHeader(names: [String])
    /// No key with the token's `kid` and algorithm in the JWKS, even after one refetch (or the refetch was
    /// rate-limited); `skipped` are the JWKS entries with that `kid` that were skipped as unusable, and why.
    case unknownKeyID(kid: String, algorithm: JWSAlgorithm, skipped: [JSONWebKeySet.SkippedKey] = [])
    /// The token has no `kid` and the JWKS does not have exactly one key of the algorithm's type.
    case keyNotIdentified(algorithm: JWSAlgorithm, candidates: Int)
    /// The signature does not verify under the selected key.
    case invalidSignature

    // MARK: ID-token claims

    /// A required claim is absent.
    case missingClaim(String)
    /// A claim has the wrong JSON type (e.g. `aud` neither a string nor an array of strings).
    case invalidClaimType(String)
    /// `iss` is not the expected issuer.
    case issuerMismatch(expected: String, received: String)
    /// `aud` does not contain the client id.
    case audienceMismatch(clientID: String)
    /// Several audiences and no `azp` (OIDC Core §3.1.3.7 items 4–5).
    case authorizedPartyMissing
    /// `azp` is present and is not the client id.
    case authorizedPartyMismatch(clientID: String)
    /// `exp` is at or before now minus the allowed clock skew.
    case expired(exp: Double, now: Double)
    /// `iat` is after now plus the allowed clock skew.
    case issuedInFuture(iat: Double, now: Double)
    /// `nbf` is after now plus the allowed clock skew.
    case notYetValid(nbf: Double, now: Double)
    /// `nonce` differs from the one this sign-in sent.
    case nonceMismatch
    /// `sub` is empty or longer than 255 ASCII characters (OIDC Core §2).
    case invalidSubject(reason: String)
    /// `auth_time` is older than the requested `max_age` allows (OIDC Core §3.1.3.7 item 13).
    case authenticationTooOld(authTime: Double, maxAge: Int)
    /// The userinfo response's `sub` is absent or differs from the ID token's (OIDC Core §5.3.2).
    case userInfoSubjectMismatch

    package var description: String {
        switch self {
        case .insecureURL(let field, let url):
            return "\(field) \(Self.quoted(url)) must be https (plain http only on 127.0.0.1, [::1] or localhost)"
        case .fetchFailed(let document, let url, let reason):
            return "fetching the \(document.rawValue) from \(url) failed: \(reason)"
        case .unexpectedStatus(let document, let url, let status):
            return "the \(document.rawValue) at \(url) answered HTTP \(status), expected 200"
        case .malformedDocument(let document, let url, let reason):
            return "the \(document.rawValue) at \(url) is unusable: \(reason)"
        case .discoveryIssuerMismatch(let expected, let received):
            return "the discovery document's issuer \(Self.quoted(received)) is not the configured issuer "
                + "\(Self.quoted(expected)); they must be equal exactly (OpenID Connect Discovery §4.3)"
        case .malformedToken(let reason):
            return "the ID token is malformed: \(reason)"
        case .unsignedToken:
            return "the ID token is unsigned (alg none); this provider does not allow unsigned tokens"
        case .algorithmNotAllowed(let alg, let allowed):
            let names = allowed.map(\.rawValue).joined(separator: ", ")
            return "the ID token's alg \(Self.quoted(alg)) is not allowed for this provider (allowed: \(names))"
        case .keySourceInHeader(let parameter):
            return "the ID token's header carries \"\(parameter)\"; keys come only from the provider's JWKS"
        case .criticalHeader(let names):
            return
                "the ID token's header marks extensions critical (\(names.map(Self.quoted).joined(separator: ", "))); "
                + "none are supported"
        case .unknownKeyID(let kid, let algorithm, let skipped):
            let missing =
                "no \(algorithm.rawValue) key with kid \(Self.quoted(kid)) in the provider's JWKS, even after refetching it"
            guard !skipped.isEmpty else { return missing }
            return missing + "; the JWKS has a key with that kid, skipped as unusable: "
                + skipped.map(\.description).joined(separator: "; ")
        case .keyNotIdentified(let algorithm, let candidates):
            return "the ID token has no kid and the JWKS has \(candidates) \(algorithm.keyType) keys; "
                + "without a kid exactly one is required"
        case .invalidSignature:
            return "the ID token's signature does not verify with the provider's key"
        case .missingClaim(let name):
            return "the ID token has no \"\(name)\" claim"
        case .invalidClaimType(let name):
            return "the ID token's \"\(name)\" claim has the wrong type"
        case .issuerMismatch(let expected, let received):
            return "the ID token's iss \(Self.quoted(received)) is not the expected issuer \(Self.quoted(expected))"
        case .audienceMismatch(let clientID):
            return "the ID token's aud does not contain this client id \(Self.quoted(clientID))"
        case .authorizedPartyMissing:
            return "the ID token has several audiences and no azp claim naming this client"
        case .authorizedPartyMismatch(let clientID):
            return "the ID token's azp is not this client id \(Self.quoted(clientID))"
        case .expired(let exp, let now):
            return
                "the ID token expired (exp \(Self.seconds(exp)), now \(Self.seconds(now)), beyond the allowed clock skew)"
        case .issuedInFuture(let iat, let now):
            return
                "the ID token's iat \(Self.seconds(iat)) is in the future (now \(Self.seconds(now))) beyond the allowed clock skew"
        case .notYetValid(let nbf, let now):
            return "the ID token is not valid before \(Self.seconds(nbf)) (now \(Self.seconds(now)))"
        case .nonceMismatch:
            return "the ID token's nonce is not the one this sign-in sent"
        case .invalidSubject(let reason):
            return "the ID token's sub is unusable: \(reason)"
        case .authenticationTooOld(let authTime, let maxAge):
            return "the user authenticated at \(Self.seconds(authTime)), longer ago than max_age \(maxAge) seconds"
        case .userInfoSubjectMismatch:
            return "the userinfo response's sub is not the ID token's sub (OpenID Connect Core §5.3.2)"
        }
    }

    /// A NumericDate for a message: whole seconds when it fits, never a trap on a hostile value.
    static func seconds(_ value: Double) -> String {
        guard value.isFinite, abs(value) < 9_007_199_254_740_992 else { return String(value) }
        return String(Int64(value.rounded(.down)))
    }

    /// `text` quoted and escaped for a log line, cut to 120 characters since it may come from the IdP.
    static func quoted(_ text: String) -> String {
        let limit = 120
        let cut = text.count > limit ? String(text.prefix(limit)) + "…" : text
        return String(reflecting: cut)
    }
}
