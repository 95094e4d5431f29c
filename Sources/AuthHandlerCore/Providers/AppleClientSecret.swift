import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerProtocols
import AuthHandlerSystem
import Foundation
import Synchronization

/// Sign in with Apple's client secret: an ES256 JWT the client signs with its own key, cached and
/// renewed before it expires.
///
/// Header `alg=ES256`, `kid=keyId`; claims `iss=teamId`, `iat`, `exp`, `aud=https://appleid.apple.com`,
/// `sub=clientId` ("Creating a client secret", Apple's Sign in with Apple REST API documentation).
/// Apple accepts up to six months (15 777 000 s); we issue one hour, and renew ten minutes before the
/// end, so a leaked secret is short-lived and no exchange ever carries one about to expire.
package final class AppleClientSecret: Sendable, CustomStringConvertible, CustomReflectable {
    /// The `aud` Apple requires.
    package static let audience = "https://appleid.apple.com"
    /// The longest lifetime Apple accepts.
    package static let maximumLifetime: TimeInterval = 15_777_000
    /// The lifetime of each secret we sign.
    package static let defaultLifetime: TimeInterval = 3600
    /// How long before `exp` a cached secret is replaced.
    package static let defaultRenewalMargin: TimeInterval = 600

    /// The developer team id (`iss`).
    package let teamID: String
    /// The Sign in with Apple key id (`kid`).
    package let keyID: String
    /// The Services ID (`sub`), the provider's `clientId`.
    package let clientID: String
    /// Seconds each secret is valid.
    package let lifetime: TimeInterval
    /// Seconds before expiry at which a new secret is signed.
    package let renewalMargin: TimeInterval

    private let key: SigningKey
    private let now: WallClock
    private let cache = Mutex<Cached?>(nil)

    private struct Cached {
        let token: String
        let issuedAt: Date
        let expiresAt: Date
    }

    /// Loads the P-256 private key (PEM) and checks the settings; signs nothing yet.
    package init(
        teamID: String, keyID: String, clientID: String, privateKeyPEM: Secret,
        lifetime: TimeInterval = AppleClientSecret.defaultLifetime,
        renewalMargin: TimeInterval = AppleClientSecret.defaultRenewalMargin,
        now: @escaping WallClock = systemWallClock
    ) throws(CryptoError) {
        guard lifetime > renewalMargin, renewalMargin >= 0, lifetime <= Self.maximumLifetime else {
            throw CryptoError(
                operation: "AppleClientSecret",
                detail: "lifetime must be above the renewal margin and at most \(Int(Self.maximumLifetime)) s")
        }
        let key = try SigningKey(pem: privateKeyPEM.reveal(), keyID: keyID)
        guard key.algorithm == .es256 else {
            throw CryptoError(
                operation: "AppleClientSecret",
                detail: "the private key is \(key.algorithm.rawValue), but Apple requires an ES256 (P-256) key")
        }
        self.teamID = teamID
        self.keyID = keyID
        self.clientID = clientID
        self.lifetime = lifetime
        self.renewalMargin = renewalMargin
        self.key = key
        self.now = now
    }

    /// The current secret: the cached one while it has more than `renewalMargin` left, else a new one.
    package func current() throws(CryptoError) -> Secret {
        let moment = now()
        return try cache.withLock { (cached: inout Cached?) throws(CryptoError) -> Secret in
            // A clock stepped back before `iat` also renews: Apple would refuse a secret issued in the future.
            if let cached, moment < cached.expiresAt.addingTimeInterval(-renewalMargin), moment >= cached.issuedAt {
                return Secret(cached.token)
            }
            let fresh = try sign(at: moment)
            cached = fresh
            return Secret(fresh.token)
        }
    }

    private func sign(at moment: Date) throws(CryptoError) -> Cached {
        let issuedAt = Int64(moment.timeIntervalSince1970.rounded(.down))
        let expiresAt = issuedAt + Int64(lifetime)
        let claims: JSONValue = .object([
            "iss": .string(teamID), "iat": .number(Double(issuedAt)), "exp": .number(Double(expiresAt)),
            "aud": .string(Self.audience), "sub": .string(clientID),
        ])
        do {
            let payload = claims.serialized(sortingKeys: true)
            let token = try CompactJWS.sign(
                header: JOSEHeader(alg: JWSAlgorithm.es256.rawValue, kid: keyID, typ: nil), payload: payload, key: key)
            return Cached(
                token: token, issuedAt: Date(timeIntervalSince1970: TimeInterval(issuedAt)),
                expiresAt: Date(timeIntervalSince1970: TimeInterval(expiresAt)))
        } catch let error as CryptoError {
            throw error
        } catch {
            throw CryptoError(operation: "AppleClientSecret", detail: "the JWT could not be encoded")
        }
    }

    package var description: String {
        "AppleClientSecret(team \(teamID), key \(keyID), client \(clientID), key material \(Redaction.marker))"
    }

    package var customMirror: Mirror { Mirror(self, children: [:]) }
}
