import Foundation
import TestSupport
import Testing

@testable import AuthHandlerAccounts
@testable import AuthHandlerCrypto
@testable import AuthHandlerHTTP
@testable import AuthHandlerStore

/// `auth-handler accounts` as a real process on a database the test fills through the store (HTTP-API.md §1.8): the
/// exit codes, listing, and what it never prints. The effects on a running daemon are in `EndToEndAccountsCommandTests`.
@Suite(.serialized)
struct CLIAccountsProcessTests {
    /// A config naming `accounts.sqlite` in `directory`, with `backend`'s kind.
    private static func config(in directory: ConfigTemporaryDirectory, kind: String = "accounts") throws -> String {
        let database = (directory.path as NSString).appendingPathComponent("accounts.sqlite")
        let backend =
            kind == "accounts"
            ? #"{"kind": "accounts", "database": {"kind": "sqlite", "path": "\#(database)"}}"#
            : #"{"kind": "\#(kind)"}"#
        return try directory.write(
            "config.json",
            #"""
            {"publicURL": "https://auth.example.com", "allowedRedirectURLs": ["https://app.example.com/done"],
             "store": {"kind": "memory"}, "backend": \#(backend)}
            """#)
    }

    /// The store on the config's database, with `names` as users (`NAME@example.com`), each with one live session.
    private static func store(in directory: ConfigTemporaryDirectory, users names: [String]) async throws
        -> SQLiteAccountStore
    {
        let store = try SQLiteAccountStore(path: (directory.path as NSString).appendingPathComponent("accounts.sqlite"))
        let now = Date()
        for name in names {
            let email = "\(name)@example.com"
            let user = AccountUser(
                localID: try #require(LocalID(name.padding(toLength: LocalID.length, withPad: "0", startingAt: 0))),
                email: email, normalizedEmail: email, emailVerified: name.hasPrefix("a"),
                passwordHash: Self.hash, passwordVersion: 1, customClaims: #"{"tier":1}"#, createdAt: now,
                validSince: now - 60)
            try await store.insertUser(
                user,
                identity: AccountIdentity(
                    providerID: "google.com", providerUserID: "g-\(name)", localID: user.localID,
                    email: "\(name)@gmail.com", createdAt: now))
            let session = AccountSession(
                id: "sid-\(name)", localID: user.localID, signInProvider: "password", signedInAt: now, authTime: now,
                lastRefreshAt: now)
            try await store.insertSession(
                session,
                firstToken: RefreshTokenRecord(
                    digest: try SHA256.hash(Array("rt-\(name)".utf8)), sessionID: session.id, issuedAt: now))
        }
        return store
    }

    /// A stored hash the tests look for in every output (it must never appear).
    static let hash = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2g"

    private func run(
        _ arguments: [String], in directory: ConfigTemporaryDirectory, config: String
    ) async throws -> CLIProcessResult {
        let result = try await CLIBinary.run(["accounts"] + arguments + ["--config", config], in: directory)
        #expect(!result.standardOutput.contains("$argon2id"), "a password hash was printed")
        #expect(!result.standardError.contains("$argon2id"), "a password hash was printed")
        return result
    }

    @Test func listPagesInLocalIDOrder() async throws {
        let directory = try ConfigTemporaryDirectory()
        defer { directory.remove() }
        let config = try Self.config(in: directory)
        _ = try await Self.store(in: directory, users: ["carol", "alice", "bob"])

        let all = try await run(["list"], in: directory, config: config)
        #expect(all.status == 0, "\(all.standardError)")
        let lines = all.standardOutput.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        #expect(lines.map { $0.first ?? "" }.map { String($0.prefix(5)) } == ["alice", "bob00", "carol"])
        #expect(lines.first?.dropFirst().prefix(3) == ["alice@example.com", "verified", "enabled"])
        #expect(lines.first?.last == "last-sign-in=never")
        #expect(all.standardError == "")

        let first = try await run(["list", "--limit", "2", "--json"], in: directory, config: config)
        #expect(first.status == 0)
        let users = first.standardOutput.split(separator: "\n").compactMap { JSONValue.parse(Array($0.utf8)) }
        #expect(users.count == 2)
        #expect(users.map { $0["email"]?.stringValue } == ["alice@example.com", "bob@example.com"])
        #expect(users.first?["disabled"]?.boolValue == false)
        #expect(users.first?["passwordSet"]?.boolValue == true)
        let last = try #require(users.last?["localId"]?.stringValue)
        #expect(first.standardError == "more users follow: auth-handler accounts list --after \(last)\n")

        let next = try await run(["list", "--after", last, "--json"], in: directory, config: config)
        #expect(next.standardOutput.split(separator: "\n").count == 1)
        #expect(next.standardOutput.contains("carol@example.com"))
        #expect(next.standardError == "")
    }

    @Test func showByEmailOrLocalIDWithIdentitiesAndLiveSessions() async throws {
        let directory = try ConfigTemporaryDirectory()
        defer { directory.remove() }
        let config = try Self.config(in: directory)
        _ = try await Self.store(in: directory, users: ["alice"])

        // The e-mail in another case is the same address (EmailAddress's normal form).
        let json = try await run(["show", "ALICE@example.com", "--json"], in: directory, config: config)
        #expect(json.status == 0, "\(json.standardError)")
        let user = try #require(JSONValue.parse(Array(json.standardOutput.utf8)))
        #expect(user["liveSessions"]?.numberValue == 1)
        #expect(user["customAttributes"]?.stringValue == #"{"tier":1}"#)
        let identity = user["providerUserInfo"]?.arrayValue?.first
        #expect(identity?["providerId"]?.stringValue == "google.com")
        #expect(identity?["rawId"]?.stringValue == "g-alice")
        #expect(identity?["email"]?.stringValue == "alice@gmail.com")
        let localID = try #require(user["localId"]?.stringValue)

        let text = try await run(["show", localID], in: directory, config: config)
        #expect(text.status == 0)
        for expected in [
            "localId:      \(localID)", "email:        alice@example.com (verified)", "liveSessions: 1",
            "password:     set", "  google.com\tg-alice\talice@gmail.com",
        ] {
            #expect(text.standardOutput.contains(expected + "\n"), "\(expected) missing from:\n\(text.standardOutput)")
        }
        #expect(!text.standardOutput.contains("rt-alice"))
    }

    @Test func unknownUserIsAUsageError() async throws {
        let directory = try ConfigTemporaryDirectory()
        defer { directory.remove() }
        let config = try Self.config(in: directory)
        _ = try await Self.store(in: directory, users: ["alice"])
        for user in ["nobody@example.com", "nobody", "not an id"] {
            let result = try await run(["disable", user], in: directory, config: config)
            #expect(result.status == 64, "\(user): \(result.standardError)")
            #expect(result.standardError.hasPrefix("auth-handler: "))
            #expect(result.standardError.split(separator: "\n").count == 1)
        }
    }

    @Test func notAnAccountsBackendIsAConfigError() async throws {
        let directory = try ConfigTemporaryDirectory()
        defer { directory.remove() }
        let config = try Self.config(in: directory, kind: "none")
        let result = try await run(["list"], in: directory, config: config)
        #expect(result.status == 78)
        #expect(result.standardError.contains(#"backend kind "none""#), "\(result.standardError)")

        let missing = try await run(["list"], in: directory, config: directory.path + "/missing.json")
        #expect(missing.status == 78)
    }

    @Test func aMissingOrNewerDatabaseIsADatabaseError() async throws {
        let directory = try ConfigTemporaryDirectory()
        defer { directory.remove() }
        let config = try Self.config(in: directory)
        let database = (directory.path as NSString).appendingPathComponent("accounts.sqlite")

        let missing = try await run(["list"], in: directory, config: config)
        #expect(missing.status == 2)
        #expect(missing.standardError.contains("no accounts database at \(database)"))
        // Not made by the command: an empty file made by another user would lock the daemon out.
        #expect(!FileManager.default.fileExists(atPath: database))

        _ = try await Self.store(in: directory, users: ["alice"])
        let connection = try SQLiteConnection.openStore(path: database, busyTimeout: .seconds(1))
        try connection.execute(
            "UPDATE schema_versions SET version = 99 WHERE owner = 'accounts'", operation: "pretend a newer binary")
        let newer = try await run(["list"], in: directory, config: config)
        #expect(newer.status == 2)
        #expect(newer.standardError.contains("written by a newer auth-handler"), "\(newer.standardError)")
    }

    @Test func deleteWithoutYesChangesNothing() async throws {
        let directory = try ConfigTemporaryDirectory()
        defer { directory.remove() }
        let config = try Self.config(in: directory)
        let store = try await Self.store(in: directory, users: ["alice"])
        let localID = try #require(try await store.listUsers(after: nil, limit: 1).first?.localID)

        let unconfirmed = try await run(["delete", "alice@example.com"], in: directory, config: config)
        #expect(unconfirmed.status == 1)
        #expect(unconfirmed.standardError.contains("add '--yes'"), "\(unconfirmed.standardError)")
        #expect(try await store.user(localID: localID) != nil)

        let confirmed = try await run(["delete", "alice@example.com", "--yes"], in: directory, config: config)
        #expect(confirmed.status == 0, "\(confirmed.standardError)")
        #expect(try await store.user(localID: localID) == nil)
        #expect(try await store.session(id: "sid-alice") == nil)
    }

    /// `disable` and `revoke-sessions` both move `validSince` to now and revoke the sessions; `enable` does neither.
    @Test func revocationMovesValidSinceAndRevokesSessions() async throws {
        let directory = try ConfigTemporaryDirectory()
        defer { directory.remove() }
        let config = try Self.config(in: directory)
        let store = try await Self.store(in: directory, users: ["alice", "bob"])
        let users = try await store.listUsers(after: nil, limit: 2)
        let before = Date()
        for (action, user) in [("disable", users[0]), ("revoke-sessions", users[1])] {
            let result = try await run([action, user.localID.value], in: directory, config: config)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput.contains("1 session"), "\(result.standardOutput)")
            let stored = try #require(try await store.user(localID: user.localID))
            #expect(stored.validSince >= before.addingTimeInterval(-1), "\(action)")
            #expect(stored.validSince > user.validSince, "\(action)")
            #expect(stored.disabled == (action == "disable"))
            let session = try await store.session(id: "sid-\(user.email?.prefix(while: { $0 != "@" }) ?? "")")
            #expect(session?.revokedAt != nil, "\(action)")
        }
        let enabled = try await run(["enable", users[0].localID.value], in: directory, config: config)
        #expect(enabled.status == 0)
        #expect(try await store.user(localID: users[0].localID)?.disabled == false)
        #expect(try await store.session(id: "sid-alice")?.revokedAt != nil)
    }

    /// The line from stdin without its `\r\n`, in NFKC, hashed with the configured argon2id parameters; the version
    /// bumped (earlier codes die) and the sessions revoked.
    @Test func setPasswordStoresTheNormalizedLineHashed() async throws {
        let directory = try ConfigTemporaryDirectory()
        defer { directory.remove() }
        let config = try Self.config(in: directory)
        let store = try await Self.store(in: directory, users: ["alice"])
        let user = try #require(try await store.listUsers(after: nil, limit: 1).first)
        // A full-width "Ｐ" is "P" in NFKC.
        let typed = "Ｐassword from a pipe 42"
        let process = try TestProcess(
            authHandler: ["accounts", "set-password", "alice@example.com", "--config", config],
            standardInput: Array((typed + "\r\nignored second line\n").utf8))
        #expect(await process.exitCode() == 0, "\(process.standardError)")
        #expect(!process.standardOutput.contains("Password from"))
        #expect(process.standardError == "", "no prompt when stdin is not a terminal")

        let stored = try #require(try await store.user(localID: user.localID))
        let hash = try #require(stored.passwordHash)
        #expect(hash.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
        #expect(try Argon2id.verify(Array("Password from a pipe 42".utf8), encoded: hash))
        #expect(stored.passwordVersion == user.passwordVersion + 1)
        #expect(stored.validSince > user.validSince)
        #expect(try await store.session(id: "sid-alice")?.revokedAt != nil)
    }

    @Test func setClaimsChecksAndClears() async throws {
        let directory = try ConfigTemporaryDirectory()
        defer { directory.remove() }
        let config = try Self.config(in: directory)
        let store = try await Self.store(in: directory, users: ["alice"])
        let localID = try #require(try await store.listUsers(after: nil, limit: 1).first?.localID)

        let set = try await run(
            ["set-claims", "alice@example.com", #"{"role": "admin"}"#], in: directory, config: config)
        #expect(set.status == 0, "\(set.standardError)")
        #expect(try await store.user(localID: localID)?.customClaims == #"{"role":"admin"}"#)

        let big = "{\"blob\": \"" + String(repeating: "x", count: 1000) + "\"}"
        for (claims, message) in [
            (#"{"sub": "someone-else"}"#, #"the custom claim "sub" is reserved"#), (big, "at most 1000 bytes"),
            ("[1]", "must be a JSON object"), ("not json", "this is not JSON"),
        ] {
            let refused = try await run(["set-claims", localID.value, claims], in: directory, config: config)
            #expect(refused.status == 64, "\(claims)")
            #expect(refused.standardError.contains(message), "\(refused.standardError)")
        }
        #expect(try await store.user(localID: localID)?.customClaims == #"{"role":"admin"}"#)

        for clearing in ["null", "{}"] {
            _ = try await store.modifyUser(localID: localID) { $0.customClaims = #"{"x":1}"# }
            let cleared = try await run(["set-claims", localID.value, clearing], in: directory, config: config)
            #expect(cleared.status == 0)
            #expect(try await store.user(localID: localID)?.customClaims == nil, "\(clearing)")
        }
    }
}
