import AuthHandlerCore
import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerProtocols
import Foundation

/// Who an IdP credential in `postBody` belongs to, once the fake backend has checked it is real.
struct FakeFederatedIdentity: Sendable {
    var providerID: String
    /// The user's id at the IdP (`sub`, Twitter's `user_id`, ...).
    var subject: String
    /// Identity Toolkit's `federatedId`, e.g. `http://twitter.com/1001`.
    var federatedID: String
    var email: String?
    var emailVerified: Bool
    var displayName: String?
    var screenName: String?
    /// The IdP's profile as a JSON string (Identity Toolkit's `rawUserInfo`).
    var rawUserInfo: String
    /// `oauthAccessToken`, `oauthTokenSecret`, `oauthIdToken`: the credential, echoed back.
    var credential: [String: String]
    var behavior: FakeUser.BackendBehavior
}

/// The protocol a provider id speaks, which decides what `postBody` must carry (HTTP-API.md §2.6).
enum FakeBackendProviderKind {
    /// `access_token` + `oauth_token_secret`.
    case oauth1
    /// `id_token`, or an `access_token`.
    case oidc
    /// `access_token`.
    case oauth2

    init?(providerID: String) {
        switch providerID {
        case "twitter.com": self = .oauth1
        case "google.com", "microsoft.com", "apple.com": self = .oidc
        case "facebook.com", "github.com": self = .oauth2
        default:
            if providerID.hasPrefix("oauth1."), providerID.count > 7 {
                self = .oauth1
            } else if providerID.hasPrefix("oidc."), providerID.count > 5 {
                self = .oidc
            } else if providerID.hasPrefix("oauth2."), providerID.count > 7 {
                self = .oauth2
            } else {
                return nil
            }
        }
    }
}

extension FakeIdPRouter {
    /// Checks the credential in `postBody` against the fake IdP's own records and returns whose it is.
    func federatedIdentity(postBody: [URLFormField]) async throws(IdentityToolkitError) -> FakeFederatedIdentity {
        func field(_ name: String) -> String? {
            postBody.last { $0.name == name }.flatMap { $0.value.isEmpty ? nil : $0.value }
        }
        guard let providerID = field("providerId") else {
            throw IdentityToolkitError(
                "INVALID_CREDENTIAL_OR_PROVIDER_ID", "Invalid IdP response/credential: postBody has no providerId")
        }
        guard let kind = FakeBackendProviderKind(providerID: providerID) else {
            throw IdentityToolkitError("INVALID_PROVIDER_ID", "Provider Id is not supported: \(providerID)")
        }
        switch kind {
        case .oauth1:
            guard let token = field("access_token"), let secret = field("oauth_token_secret") else {
                throw IdentityToolkitError(
                    "INVALID_CREDENTIAL_OR_PROVIDER_ID",
                    "Invalid IdP response/credential: \(providerID) needs access_token and oauth_token_secret")
            }
            return try await oauth1Identity(providerID: providerID, token: token, secret: secret)
        case .oidc, .oauth2:
            if kind == .oidc, let idToken = field("id_token") {
                return try await oidcIdentity(providerID: providerID, idToken: idToken, nonce: field("nonce"))
            }
            guard let token = field("access_token") else {
                let expected = kind == .oidc ? "id_token or access_token" : "access_token"
                throw IdentityToolkitError(
                    "INVALID_CREDENTIAL_OR_PROVIDER_ID",
                    "Invalid IdP response/credential: \(providerID) needs \(expected)")
            }
            return try await oauth2Identity(providerID: providerID, token: token)
        }
    }

    private func oauth1Identity(providerID: String, token: String, secret: String) async throws(IdentityToolkitError)
        -> FakeFederatedIdentity
    {
        guard let grant = await state.oauth1AccessToken(token),
            ConstantTime.equals(grant.secret, secret)
        else {
            throw IdentityToolkitError(
                "INVALID_IDP_RESPONSE", "the OAuth 1.0a access token or its secret was not issued by this IdP")
        }
        let user = try configuredUser(grant.userID)
        let profile: [String: Any] = [
            "id": Int(user.id) ?? 0, "id_str": user.id, "screen_name": user.name, "name": user.displayName,
            "email": user.email,
        ]
        return FakeFederatedIdentity(
            providerID: providerID, subject: user.id, federatedID: Self.federatedID(providerID, user.id),
            email: user.email, emailVerified: true, displayName: user.displayName, screenName: user.name,
            rawUserInfo: Self.jsonString(profile),
            credential: ["oauthAccessToken": token, "oauthTokenSecret": secret], behavior: user.backendBehavior)
    }

    private func oauth2Identity(providerID: String, token: String) async throws(IdentityToolkitError)
        -> FakeFederatedIdentity
    {
        guard let grant = await state.accessToken(token)?.grant else {
            throw IdentityToolkitError(
                "INVALID_IDP_RESPONSE", "the access token was not issued by this IdP or has expired")
        }
        let user = try configuredUser(grant.userID)
        let profile: [String: Any] = [
            "id": user.id, "login": user.name, "name": user.displayName, "email": user.email,
        ]
        return FakeFederatedIdentity(
            providerID: providerID, subject: user.id, federatedID: Self.federatedID(providerID, user.id),
            email: user.email, emailVerified: true, displayName: user.displayName, screenName: nil,
            rawUserInfo: Self.jsonString(profile), credential: ["oauthAccessToken": token],
            behavior: user.backendBehavior)
    }

    private func oidcIdentity(providerID: String, idToken: String, nonce: String?) async throws(IdentityToolkitError)
        -> FakeFederatedIdentity
    {
        let claims: [String: Any]
        do {
            claims = try Self.verifiedClaims(
                idToken, key: await state.signingKey, issuer: issuer, now: await state.now())
        } catch {
            throw IdentityToolkitError("INVALID_IDP_RESPONSE", "the id_token is not valid: \(error.reason)")
        }
        let audiences = (claims["aud"] as? String).map { [$0] } ?? (claims["aud"] as? [String]) ?? []
        guard audiences.contains(where: { state.configuration.oauth2Client(id: $0) != nil }) else {
            throw IdentityToolkitError("INVALID_IDP_RESPONSE", "the id_token's aud is not a client of this IdP")
        }
        try Self.checkNonce(claim: claims["nonce"], rawNonce: nonce)
        guard let subject = claims["sub"] as? String, !subject.isEmpty else {
            throw IdentityToolkitError("INVALID_IDP_RESPONSE", "the id_token has no sub")
        }
        let user = state.configuration.user(id: subject)
        return FakeFederatedIdentity(
            providerID: providerID, subject: subject, federatedID: Self.federatedID(providerID, subject),
            email: claims["email"] as? String ?? user?.email,
            emailVerified: claims["email_verified"] as? Bool ?? (user != nil),
            displayName: claims["name"] as? String ?? user?.displayName, screenName: nil,
            rawUserInfo: Self.jsonString(claims), credential: ["oauthIdToken": idToken],
            behavior: user?.backendBehavior ?? .signIn)
    }

    /// Firebase's rule for an ID token that carries a `nonce` claim (`OAuthCredentialOptions.rawNonce`: "The SHA-256
    /// hash of the raw nonce must match the nonce field in the ID token"): `postBody` must carry the raw nonce, and its
    /// lowercase hex SHA-256 must equal the claim (HTTP-API.md §4.1). A token without the claim needs no nonce.
    static func checkNonce(claim: Any?, rawNonce: String?) throws(IdentityToolkitError) {
        guard let claim, !(claim is NSNull) else { return }
        guard let rawNonce else {
            throw IdentityToolkitError(
                "MISSING_OR_INVALID_NONCE", "the id_token has a nonce claim, so postBody must carry the raw nonce")
        }
        guard let claim = claim as? String, let hashed = try? OIDCNonce.hashed(rawNonce),
            ConstantTime.equals(hashed, claim)
        else {
            throw IdentityToolkitError(
                "MISSING_OR_INVALID_NONCE", "the SHA-256 of postBody's nonce is not the id_token's nonce claim")
        }
    }

    /// The configured user behind a token's user id (the id, or the login name as a fallback).
    private func configuredUser(_ userID: String) throws(IdentityToolkitError) -> FakeUser {
        guard let user = state.configuration.user(id: userID) ?? state.configuration.user(named: userID) else {
            throw IdentityToolkitError("INVALID_IDP_RESPONSE", "the token's user is not configured in this IdP")
        }
        return user
    }

    /// Identity Toolkit's `federatedId` for well-known providers; the IdP's user id for the others.
    static func federatedID(_ providerID: String, _ subject: String) -> String {
        switch providerID {
        case "twitter.com": "http://twitter.com/\(subject)"
        case "facebook.com": "http://facebook.com/\(subject)"
        case "google.com": "https://accounts.google.com/\(subject)"
        default: subject
        }
    }

    static func jsonString(_ object: [String: Any]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
            return "{}"
        }
        return String(decoding: data, as: UTF8.self)
    }
}

/// Why a JWT was refused, in a few words.
struct FakeTokenRejection: Error {
    var reason: String
    /// True when everything but `exp` checked out.
    var expired = false
}

extension FakeIdPRouter {
    /// The claims of an RS256 JWT signed by `key`, issued by `issuer` and not expired at `now`.
    static func verifiedClaims(_ token: String, key: SigningKey, issuer: String, now: Date) throws(FakeTokenRejection)
        -> [String: Any]
    {
        let jws: CompactJWS
        do {
            jws = try CompactJWS(parsing: token)
        } catch {
            throw FakeTokenRejection(reason: error.reason)
        }
        guard jws.header.alg == JWSAlgorithm.rs256.rawValue else {
            throw FakeTokenRejection(reason: "alg \(jws.header.alg) is not RS256")
        }
        if let kid = jws.header.kid, kid != key.publicKey.keyID {
            throw FakeTokenRejection(reason: "kid \(kid) is not a current key")
        }
        guard key.publicKey.verify(.rs256, signature: jws.signature, message: jws.signingInput) else {
            throw FakeTokenRejection(reason: "bad signature")
        }
        guard let claims = (try? JSONSerialization.jsonObject(with: Data(jws.payload))) as? [String: Any] else {
            throw FakeTokenRejection(reason: "the payload is not a JSON object")
        }
        guard claims["iss"] as? String == issuer else {
            throw FakeTokenRejection(reason: "iss is not \(issuer)")
        }
        guard let exp = (claims["exp"] as? NSNumber)?.doubleValue else {
            throw FakeTokenRejection(reason: "no exp")
        }
        guard exp > now.timeIntervalSince1970 else {
            throw FakeTokenRejection(reason: "expired", expired: true)
        }
        return claims
    }
}
