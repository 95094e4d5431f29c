import Foundation
import TestSupport
import Testing

@testable import AuthHandlerAccounts
@testable import AuthHandlerCrypto
@testable import AuthHandlerStore

/// The `AccountStore` engines the shared semantics run against: every test of `AccountStoreSemanticsTests` runs on each.
enum AccountStoreKind: String, CaseIterable, CustomTestStringConvertible {
    case sqlite
    /// A fresh database on the test process's PostgreSQL server (`PostgresTestServer.shared()`).
    case postgres

    var testDescription: String { rawValue }
}

/// Runs `body` with a new, empty store of `kind` whose counters follow `clock`.
func withAccountStore<T>(
    _ kind: AccountStoreKind, clock: TestClock = TestClock(), _ body: (any AccountStore) async throws -> T
) async throws -> T {
    switch kind {
    case .sqlite:
        return try await withStoreTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("accounts.sqlite").path
            return try await body(try SQLiteAccountStore(path: path, now: clock.read))
        }
    case .postgres:
        let server = try await PostgresTestServer.shared()
        let settings = server.settings(database: try server.makeDatabase())
        return try await body(try PostgresAccountStore(settings: settings, now: clock.read))
    }
}

/// Records for the tests, at whole seconds so that every engine gives them back equal.
enum AccountFixture {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    static func localID(_ name: String) throws -> LocalID {
        try #require(LocalID(name.padding(toLength: LocalID.length, withPad: "0", startingAt: 0)))
    }

    static func user(_ name: String, email: String? = nil, password: Bool = true) throws -> AccountUser {
        AccountUser(
            localID: try localID(name), email: email, normalizedEmail: email?.lowercased(), emailVerified: false,
            displayName: "User \(name)", photoURL: "https://example.com/\(name).png",
            passwordHash: password ? "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2g" : nil,
            passwordVersion: 1, disabled: false, customClaims: #"{"role":"member"}"#, createdAt: start,
            lastSignInAt: start + 5, validSince: start)
    }

    static func identity(_ providerID: String, _ providerUserID: String, of localID: LocalID) -> AccountIdentity {
        AccountIdentity(
            providerID: providerID, providerUserID: providerUserID, localID: localID, email: "\(providerUserID)@idp",
            displayName: "Provider \(providerUserID)", createdAt: start + 1)
    }

    static func session(_ id: String, of localID: LocalID, at date: Date = start) -> AccountSession {
        AccountSession(
            id: id, localID: localID, signInProvider: "password", signedInAt: date, authTime: date,
            lastRefreshAt: date)
    }

    /// The SHA-256 of `secret`, as the caller hands the store a token's, code's or credential's digest.
    static func digest(_ secret: String) throws -> [UInt8] {
        try SHA256.hash(Array(secret.utf8))
    }

    static func token(_ secret: String, session: String, at date: Date = start) throws -> RefreshTokenRecord {
        RefreshTokenRecord(digest: try digest(secret), sessionID: session, issuedAt: date)
    }

    static func code(
        _ secret: String, of localID: LocalID, kind: OneTimeCodeKind = .resetPassword, expiresAt: Date = start + 3600
    ) throws -> OneTimeCodeRecord {
        OneTimeCodeRecord(
            digest: try digest(secret), kind: kind, localID: localID, email: "a@example.com",
            newEmail: kind == .verifyAndChangeEmail ? "b@example.com" : nil, passwordVersion: 1, createdAt: start,
            expiresAt: expiresAt)
    }
}

/// The store error `body` throws; nil when it throws none or something else (which the caller's expectation reports).
func accountStoreError(_ body: () async throws -> Void) async -> StoreError? {
    do {
        try await body()
        return nil
    } catch {
        return error as? StoreError
    }
}
