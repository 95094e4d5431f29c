import AuthHandlerCrypto
import AuthHandlerHTTP
import Foundation

/// The identity a provider sign-in proved but could not sign in with (`409 account-exists-with-different-credential`,
/// issue 25 §2.2): sealed into an opaque string the app holds for 10 minutes and gives back to
/// `POST /__/auth/user/link` once the person has signed in to the existing account.
///
/// What binds it: AES-256-GCM under the daemon's key (nobody can forge or read it), the SHA-256 of the verifier of
/// the redemption that produced it (a credential planted in someone else's browser is useless without that
/// verifier), the account it may be linked to, its issue time (only a session signed in after it may link it) and a
/// random id whose digest the store holds until its one use.
package struct PendingCredential: Sendable, Equatable {
    package var identity: ProviderIdentityClaim
    package var localID: LocalID
    package var verifierDigest: [UInt8]
    package var issuedAt: Date
    package var expiresAt: Date
    /// The random id; the store keeps only its SHA-256.
    package var id: String

    /// The sealed text the app is given.
    package func sealed(key: [UInt8]) throws(CryptoError) -> String {
        let json: JSONValue = .object([
            "p": .string(identity.providerID), "u": .string(identity.providerUserID),
            "e": identity.email.map(JSONValue.string) ?? .null,
            "n": identity.displayName.map(JSONValue.string) ?? .null,
            "ph": identity.photoURL.map(JSONValue.string) ?? .null, "l": .string(localID.value),
            "v": .string(Base64.urlEncode(verifierDigest)), "i": .integer(Int64(issuedAt.timeIntervalSince1970)),
            "x": .integer(Int64(expiresAt.timeIntervalSince1970)), "d": .string(id),
        ])
        return Base64.urlEncode(try AES256GCM.seal(json.serialized(sortingKeys: true), key: key))
    }

    /// The credential `text` seals under `key`; nil when it does not open or is not one.
    package init?(opening text: String, key: [UInt8]) {
        guard text.utf8.count <= 4096, let box = Base64.urlDecode(text), let plain = AES256GCM.open(box, key: key),
            case .success(.object(let fields)) = JSONSyntax.parse(plain),
            case .string(let provider)? = fields["p"], case .string(let user)? = fields["u"],
            case .string(let local)? = fields["l"], let localID = LocalID(local),
            case .string(let verifier)? = fields["v"], let verifierDigest = Base64.urlDecode(verifier),
            case .integer(let issued)? = fields["i"], case .integer(let expires)? = fields["x"],
            case .string(let id)? = fields["d"]
        else { return nil }
        func optional(_ name: String) -> String? {
            if case .string(let text)? = fields[name] { return text }
            return nil
        }
        self.init(
            identity: ProviderIdentityClaim(
                providerID: provider, providerUserID: user, email: optional("e"), displayName: optional("n"),
                photoURL: optional("ph")),
            localID: localID, verifierDigest: verifierDigest,
            issuedAt: Date(timeIntervalSince1970: TimeInterval(issued)),
            expiresAt: Date(timeIntervalSince1970: TimeInterval(expires)), id: id)
    }

    package init(
        identity: ProviderIdentityClaim, localID: LocalID, verifierDigest: [UInt8], issuedAt: Date, expiresAt: Date,
        id: String
    ) {
        self.identity = identity
        self.localID = localID
        self.verifierDigest = verifierDigest
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.id = id
    }
}

/// What a provider sign-in tells the accounts: who the provider says the person is.
package struct ProviderIdentityClaim: Sendable, Equatable {
    package var providerID: String
    package var providerUserID: String
    /// The e-mail the provider vouches for (non-nil only when verified, HTTP-API.md §3.3), as given.
    package var email: String?
    package var displayName: String?
    package var photoURL: String?

    package init(
        providerID: String, providerUserID: String, email: String?, displayName: String?, photoURL: String?
    ) {
        self.providerID = providerID
        self.providerUserID = providerUserID
        self.email = email
        self.displayName = displayName
        self.photoURL = photoURL
    }
}
