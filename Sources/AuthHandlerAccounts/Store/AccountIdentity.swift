import Foundation

/// A provider's account linked to a user: unique on (``providerID``, ``providerUserID``), and at most one per provider
/// per user (docs/ACCOUNTS.md "Storage"). No provider token or secret is part of it.
package struct AccountIdentity: Sendable, Equatable {
    /// The provider's id as Firebase names it: `google.com`, `facebook.com`, `oidc.example`.
    package var providerID: String
    /// The user's id at the provider (`sub`, or the provider's numeric id).
    package var providerUserID: String
    package var localID: LocalID
    /// The e-mail the provider vouched for, if any.
    package var email: String?
    package var displayName: String?
    package var createdAt: Date

    package init(
        providerID: String, providerUserID: String, localID: LocalID, email: String? = nil,
        displayName: String? = nil, createdAt: Date
    ) {
        self.providerID = providerID
        self.providerUserID = providerUserID
        self.localID = localID
        self.email = email
        self.displayName = displayName
        self.createdAt = createdAt
    }
}
