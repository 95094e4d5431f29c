import Foundation
import TestSupport
import Testing

@testable import AuthHandlerAccounts
@testable import AuthHandlerCrypto
@testable import AuthHandlerStore

/// A password sign-in of an imported user (docs/ACCOUNTS.md "Imported users") through the engine: the imported hash
/// checked, no policy, the argon2id upgrade written once and never over a password changed meanwhile, on each store
/// engine (the upgrade is a conditional `modifyUser`, which each engine makes atomic in its own way).
struct AccountsLegacySignInTests {
    /// crypt_blowfish's published vector: "U*U" (three characters, far below the policy's 15).
    static let bcrypt = "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"
    static let client = ClientKey(resolved: "192.0.2.7")

    private func importUser(_ name: String, _ fixture: ActionFixture) async throws -> AccountUser {
        let email = "\(name)@example.com"
        let user = AccountUser(
            localID: try #require(LocalID("imported-\(name)")), email: email, normalizedEmail: email,
            passwordVersion: 1, createdAt: fixture.clock.read(), validSince: fixture.clock.read(),
            legacyPasswordHash: Self.bcrypt)
        #expect(try await fixture.store.importUsers([AccountImport(user: user)]) == .imported(inserted: 1, skipped: 0))
        return user
    }

    @Test(arguments: AccountStoreKind.allCases)
    func anImportedHashSignsInOnceAndIsUpgradedToArgon2id(kind: AccountStoreKind) async throws {
        try await withActions(on: kind) { fixture in
            let user = try await importUser("legacy", fixture)
            let wrong = await actionsError {
                _ = try await fixture.engine.signIn(
                    email: "legacy@example.com", password: "U*U*", client: Self.client, deviceCookie: nil)
            }
            #expect(wrong?.code == .invalidCredential)
            #expect(try await fixture.store.user(localID: user.localID)?.legacyPasswordHash == Self.bcrypt)

            let signedIn = try await fixture.engine.signIn(
                email: "legacy@example.com", password: "U*U", client: Self.client, deviceCookie: nil)
            #expect(signedIn.grant.user.localID == user.localID)
            let stored = try #require(try await fixture.store.user(localID: user.localID))
            #expect(stored.legacyPasswordHash == nil)
            #expect(try #require(stored.passwordHash).hasPrefix("$argon2id$v=19$"))
            #expect(stored.passwordVersion == 1)
            // The argon2id hash now signs in with the same password.
            _ = try await fixture.engine.signIn(
                email: "legacy@example.com", password: "U*U", client: Self.client, deviceCookie: nil)
        }
    }

    @Test(arguments: AccountStoreKind.allCases)
    func theUpgradeNeverOverwritesAPasswordChangedMeanwhile(kind: AccountStoreKind) async throws {
        try await withActions(on: kind) { fixture in
            let user = try await importUser("raced", fixture)
            // Between the check and the upgrade, an operator sets another password.
            _ = try await fixture.store.modifyUser(localID: user.localID) { $0.setPasswordHash("$argon2id$operator") }
            let answered = try await fixture.engine.storeRehash("$argon2id$upgrade", of: user)
            #expect(answered.passwordHash == "$argon2id$operator")
            #expect(try await fixture.store.user(localID: user.localID)?.passwordHash == "$argon2id$operator")
        }
    }
}
