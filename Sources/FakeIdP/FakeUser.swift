import AuthHandlerCore

/// A user the fake IdP can sign in, and how the fake sign-in backend treats them.
package struct FakeUser: Codable, Sendable, Hashable {
    /// What the fake Identity Toolkit backend answers for this user.
    package enum BackendBehavior: String, Codable, Sendable {
        /// A normal sign-in.
        case signIn
        /// `needConfirmation`: an account with this e-mail exists with a different credential.
        case needConfirmation
        /// `mfaPendingCredential` + `mfaInfo`: a second factor is required.
        case secondFactor
    }

    /// The login name (`login_hint`, `screen_name`, or typed on the login page).
    package var name: String
    /// The stable subject / user id.
    package var id: String
    package var email: String
    package var displayName: String
    package var backendBehavior: BackendBehavior = .signIn

    /// The login name that denies instead of approving.
    package static let denyingName = "deny"

    /// alice, bob, conflict (the backend answers `needConfirmation`) and mfa (`mfaPendingCredential`).
    package static let defaults: [FakeUser] = [
        FakeUser(name: "alice", id: "1001", email: "alice@example.com", displayName: "Alice Example"),
        FakeUser(name: "bob", id: "1002", email: "bob@example.com", displayName: "Bob Example"),
        FakeUser(
            name: "conflict", id: "1003", email: "conflict@example.com", displayName: "Conflict Example",
            backendBehavior: .needConfirmation),
        FakeUser(
            name: "mfa", id: "1004", email: "mfa@example.com", displayName: "MFA Example",
            backendBehavior: .secondFactor),
    ]
}

/// Decoding fills a missing `id`, `email` or `displayName` from `name` (and the memberwise init stays).
extension FakeUser {
    enum CodingKeys: String, CodingKey {
        case name, id, email, displayName, backendBehavior
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        id = try container.decodeIfPresent(String.self, forKey: .id) ?? name
        email = try container.decodeIfPresent(String.self, forKey: .email) ?? "\(name)@example.com"
        displayName = try container.decodeIfPresent(String.self, forKey: .displayName) ?? name.capitalized
        backendBehavior = try container.decodeIfPresent(BackendBehavior.self, forKey: .backendBehavior) ?? .signIn
    }
}
