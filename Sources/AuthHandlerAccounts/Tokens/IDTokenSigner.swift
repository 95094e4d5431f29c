import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerProtocols
import Foundation

/// Signs the accounts' ID tokens (issue 25 §4, docs/ACCOUNTS.md "ID tokens and keys"): a JWT (RFC 7519) signed with
/// ES256 by the ring's current key, header `alg`, `kid`, `typ: JWT`, claims in Firebase's layout so that code written
/// for Firebase ID tokens reads them unchanged.
package struct IDTokenSigner: Sendable {
    package let settings: IDTokenSettings
    private let key: AccountSigningKey
    /// The first segment, the same for every token of one key: encoded once.
    private let encodedHeader: String

    package init(ring: SigningKeyRing, settings: IDTokenSettings) {
        self.settings = settings
        key = ring.current
        let header = JOSEHeader(alg: JWSAlgorithm.es256.rawValue, kid: ring.current.keyID, typ: "JWT")
        encodedHeader = Base64.urlEncode(header.serialized(sortingKeys: true))
    }

    /// A token for `subject`, issued at `now` (whole seconds) and valid for `settings.lifetimeSeconds`.
    package func sign(_ subject: IDTokenSubject, now: Date) throws(CryptoError) -> IssuedIDToken {
        let issuedAt = Int64(now.timeIntervalSince1970.rounded(.down))
        let expiresAt = issuedAt + Int64(settings.lifetimeSeconds)
        let payload = claims(for: subject, issuedAt: issuedAt, expiresAt: expiresAt).serialized(sortingKeys: true)
        // CompactJWS.sign's steps (RFC 7515 §5.1), with the header encoded once rather than per token.
        let signingInput = encodedHeader + "." + Base64.urlEncode(payload)
        let signature = try key.signingKey.sign(.es256, message: Array(signingInput.utf8))
        return IssuedIDToken(
            token: Secret(signingInput + "." + Base64.urlEncode(signature)),
            issuedAt: Date(timeIntervalSince1970: TimeInterval(issuedAt)),
            expiresAt: Date(timeIntervalSince1970: TimeInterval(expiresAt)))
    }

    /// The claims set: the daemon's claims (members without a value left out), then the user's custom claims, which
    /// can never replace one of them (`CustomClaims.reservedNames`).
    func claims(for subject: IDTokenSubject, issuedAt: Int64, expiresAt: Int64) -> JSONValue {
        var members = subject.customClaims.members
        members["iss"] = .string(settings.issuer)
        members["aud"] = .string(settings.audience)
        members["sub"] = .string(subject.localID.value)
        members["user_id"] = .string(subject.localID.value)
        members["iat"] = .integer(issuedAt)
        members["exp"] = .integer(expiresAt)
        // Never after `iat`: an `auth_time` read a moment after the signing time would make the token refused
        // (`IDTokenVerifier` requires `auth_time` ≤ `iat`).
        let authTime = Int64(subject.authTime.timeIntervalSince1970.rounded(.down))
        members["auth_time"] = .integer(min(authTime, issuedAt))
        members["sid"] = .string(subject.sessionID)
        if let email = subject.email {
            members["email"] = .string(email)
            members["email_verified"] = .bool(subject.emailVerified)
        }
        if let name = subject.displayName { members["name"] = .string(name) }
        if let picture = subject.photoURL { members["picture"] = .string(picture) }
        var firebase: [String: JSONValue] = ["sign_in_provider": .string(subject.signInProvider)]
        if settings.includesIdentities { firebase["identities"] = Self.identities(of: subject) }
        members["firebase"] = .object(firebase)
        return .object(members)
    }

    /// `firebase.identities`: each provider's user ids, and the e-mail address under `email` as Firebase lists it.
    static func identities(of subject: IDTokenSubject) -> JSONValue {
        var identities: [String: [JSONValue]] = [:]
        for identity in subject.identities {
            identities[identity.providerID, default: []].append(.string(identity.providerUserID))
        }
        if let email = subject.email { identities["email"] = [.string(email)] }
        return .object(identities.mapValues(JSONValue.array))
    }
}

/// A signed ID token and its times; the token itself shows only as `<redacted>`.
package struct IssuedIDToken: Sendable, CustomStringConvertible {
    /// The compact JWS, for the answer's `idToken` / `id_token`.
    package let token: Secret
    /// `iat`.
    package let issuedAt: Date
    /// `exp`.
    package let expiresAt: Date

    /// `expiresIn` / `expires_in`: the token's lifetime in whole seconds.
    package var expiresIn: Int { Int(expiresAt.timeIntervalSince(issuedAt)) }

    package var description: String { "IssuedIDToken(\(token), expires \(expiresAt))" }
}
