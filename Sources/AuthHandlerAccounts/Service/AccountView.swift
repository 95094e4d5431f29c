import AuthHandlerHTTP
import Foundation

/// A user as the daemon shows it, to the user (`GET /__/auth/user`, HTTP-API.md §3.10) and to the operator
/// (`auth-handler accounts show --json`): never the password hash, a token or a code. Times are Firebase's, in
/// milliseconds as strings (`validSince` in seconds).
package struct AccountView: Sendable, JSONWritable {
    package var user: AccountUser
    /// The user's identities; nil leaves `providerUserInfo` out (a listing that did not read them).
    package var identities: [AccountIdentity]?

    package init(user: AccountUser, identities: [AccountIdentity]?) {
        self.user = user
        self.identities = identities
    }

    package var json: JSONValue {
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        func millis(_ date: Date?) -> JSONValue {
            date.map { .string(String(Int64($0.timeIntervalSince1970 * 1000))) } ?? .null
        }
        var members: [String: JSONValue] = [
            "localId": .string(user.localID.value), "email": text(user.email),
            "emailVerified": .bool(user.emailVerified), "displayName": text(user.displayName),
            "photoUrl": text(user.photoURL), "passwordSet": .bool(user.hasPassword),
            "disabled": .bool(user.disabled), "createdAt": millis(user.createdAt),
            "lastLoginAt": millis(user.lastSignInAt),
            "validSince": .string(String(Int64(user.validSince.timeIntervalSince1970))),
            "customAttributes": text(user.customClaims),
        ]
        if let identities {
            members["providerUserInfo"] = .array(
                identities.map { identity in
                    .object([
                        "providerId": .string(identity.providerID), "rawId": .string(identity.providerUserID),
                        "email": text(identity.email), "displayName": text(identity.displayName),
                    ])
                })
        }
        return .object(members)
    }
}
