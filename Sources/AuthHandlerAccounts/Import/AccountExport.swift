import AuthHandlerHTTP
import Foundation

/// `auth-handler accounts export` (docs/ACCOUNTS.md "Export"): the shape `firebase auth:export --format=json` writes,
/// with every password as a PHC string in `passwordHash` (no `salt` member: the string holds it): argon2id
/// (`$argon2id$v=19$m=…,t=…,p=…$SALT$HASH`), or an imported hash not yet upgraded in its stored form
/// (`$firescrypt$…`, `$2b$…`, ``LegacyPasswordHash``). `auth-handler accounts import --format firebase` reads it back.
package enum AccountExport {
    /// One user as a member of the `users` array.
    package static func json(_ user: AccountUser, identities: [AccountIdentity]) -> JSONValue {
        var members: [String: JSONValue] = [
            "localId": .string(user.localID.value), "emailVerified": .bool(user.emailVerified),
            "disabled": .bool(user.disabled), "createdAt": .string(milliseconds(user.createdAt)),
        ]
        if let email = user.email { members["email"] = .string(email) }
        if let hash = user.passwordHash ?? user.legacyPasswordHash { members["passwordHash"] = .string(hash) }
        if let name = user.displayName { members["displayName"] = .string(name) }
        if let photo = user.photoURL { members["photoUrl"] = .string(photo) }
        if let last = user.lastSignInAt { members["lastSignedInAt"] = .string(milliseconds(last)) }
        if let claims = user.customClaims { members["customAttributes"] = .string(claims) }
        if !identities.isEmpty {
            members["providerUserInfo"] = .array(
                identities.map { identity in
                    var info: [String: JSONValue] = [
                        "providerId": .string(identity.providerID), "rawId": .string(identity.providerUserID),
                    ]
                    if let email = identity.email { info["email"] = .string(email) }
                    if let name = identity.displayName { info["displayName"] = .string(name) }
                    return .object(info)
                })
        }
        return .object(members)
    }

    /// Whole milliseconds since 1970 as a string, Firebase's form.
    static func milliseconds(_ date: Date) -> String {
        String(Int64((date.timeIntervalSince1970 * 1000).rounded()))
    }
}
