import Foundation

/// What an ID token says about its user and session (issue 25 §4): everything the signer needs, read from the
/// store by the caller at the moment of signing.
package struct IDTokenSubject: Sendable, Equatable {
    /// One linked provider identity, as `firebase.identities` lists it: `"google.com": ["1001"]`.
    package struct Identity: Sendable, Equatable {
        /// The provider id, e.g. `google.com`.
        package var providerID: String
        /// The provider's user id.
        package var providerUserID: String

        package init(providerID: String, providerUserID: String) {
            self.providerID = providerID
            self.providerUserID = providerUserID
        }
    }

    /// `sub` and `user_id`.
    package var localID: LocalID
    /// `sid`: the session (refresh-token family) the token belongs to.
    package var sessionID: String
    /// `auth_time`: when the user last proved who they are in this session (a sign-in or a reauthentication).
    package var authTime: Date
    /// `firebase.sign_in_provider`: `password`, or the provider id of the sign-in, e.g. `google.com`.
    package var signInProvider: String
    /// `email`, left out when the user has none; `firebase.identities.email` lists it too.
    package var email: String?
    /// `email_verified`, written only beside an `email`.
    package var emailVerified: Bool
    /// `name`, left out when absent.
    package var displayName: String?
    /// `picture`, left out when absent.
    package var photoURL: String?
    /// The linked provider identities (the password is none: an e-mail account shows as `email`).
    package var identities: [Identity]
    /// The user's custom claims, written after the daemon's own.
    package var customClaims: CustomClaims

    package init(
        localID: LocalID, sessionID: String, authTime: Date, signInProvider: String, email: String? = nil,
        emailVerified: Bool = false, displayName: String? = nil, photoURL: String? = nil, identities: [Identity] = [],
        customClaims: CustomClaims = .empty
    ) {
        self.localID = localID
        self.sessionID = sessionID
        self.authTime = authTime
        self.signInProvider = signInProvider
        self.email = email
        self.emailVerified = emailVerified
        self.displayName = displayName
        self.photoURL = photoURL
        self.identities = identities
        self.customClaims = customClaims
    }
}
