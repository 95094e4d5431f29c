import AuthHandlerHTTP
import Foundation
import TestSupport
import Testing

/// What `auth-handler accounts` printed and returned.
struct AccountsCommandRun {
    let status: Int32
    let standardOutput: String
    let standardError: String

    /// Every line of stdout as JSON; nil when any is not.
    var jsonLines: [JSONValue]? {
        let lines = standardOutput.split(separator: "\n").map { JSONValue.parse(Array($0.utf8)) }
        return lines.contains { $0 == nil } ? nil : lines.compactMap { $0 }
    }
}

extension EndToEnd {
    /// Runs `auth-handler accounts ARGUMENTS --config` this daemon's config, beside the running daemon, with
    /// `standardInput` piped in when given.
    func accounts(_ arguments: [String], standardInput: String? = nil) async throws -> AccountsCommandRun {
        let process = try TestProcess(
            authHandler: ["accounts"] + arguments + ["--config", directory.appendingPathComponent("config.json").path],
            standardInput: standardInput.map { Array($0.utf8) })
        let status = await process.exitCode()
        return AccountsCommandRun(
            status: status, standardOutput: process.standardOutput, standardError: process.standardError)
    }

    /// A password sign-up or sign-in of `email`.
    func password(_ action: String, _ email: String, _ password: String) async throws -> OutboundResponse {
        try await postJSON("/__/auth/password/\(action)", #"{"email": "\#(email)", "password": "\#(password)"}"#)
    }

    // `refresh(_:)`, a refresh-token grant, is EndToEndAccountsMailTests'.
}

/// `auth-handler accounts` against the database of a running `auth-handler serve` (HTTP-API.md §1.8,
/// docs/OPERATIONS.md "Managing accounts"): each change shows in the daemon's next answer.
@Suite(.serialized) struct EndToEndAccountsCommandTests {
    static let first = "correct horse battery staple"
    static let second = "a new operator-set passphrase"

    @Test(
        "set-password reads standard input; the daemon signs in with the new password only, and never prints it",
        arguments: AccountsDatabaseEngine.allCases)
    func setPasswordFromStandardInput(engine: AccountsDatabaseEngine) async throws {
        try await engine.run { try await setPasswordFromStandardInput() }
    }

    func setPasswordFromStandardInput() async throws {
        try await withEndToEnd(backend: .accounts()) { e2e in
            let signUp = try await e2e.password("sign-up", "alice@example.com", Self.first)
            #expect(signUp.status == 200, "sign-up: \(signUp.text)")
            let refreshToken = try #require(signUp.json?["refreshToken"]?.stringValue)

            let set = try await e2e.accounts(
                ["set-password", "Alice@Example.com"], standardInput: Self.second + "\n")
            #expect(set.status == 0, "\(set.standardError)")
            #expect(set.standardOutput.contains("password set for"))
            #expect(set.standardOutput.contains("1 session revoked"))
            #expect(!(set.standardOutput + set.standardError).contains(Self.second))

            let old = try await e2e.password("sign-in", "alice@example.com", Self.first)
            #expect(old.status == 400)
            #expect(old.json?["error"]?["code"]?.stringValue == "invalid-credential")
            let new = try await e2e.password("sign-in", "alice@example.com", Self.second)
            #expect(new.status == 200, "sign-in with the new password: \(new.text)")
            // A password change ends the sessions signed in before it.
            let refreshed = try await e2e.refresh(refreshToken)
            #expect(refreshed.status == 400)
            #expect(refreshed.json?["error"]?.stringValue == "invalid_grant")
        }
    }

    /// At a terminal (a pseudo-terminal from script(1)): the prompt on the terminal, the password typed after it never
    /// echoed, and set.
    @Test(
        "set-password at a terminal prompts and turns echo off while the password is typed",
        arguments: AccountsDatabaseEngine.allCases)
    func setPasswordAtATerminal(engine: AccountsDatabaseEngine) async throws {
        try await engine.run { try await setPasswordAtATerminal() }
    }

    func setPasswordAtATerminal() async throws {
        try await withEndToEnd(backend: .accounts()) { e2e in
            #expect(try await e2e.password("sign-up", "alice@example.com", Self.first).status == 200)
            let command = [
                try AuthHandlerBinary.location().path, "accounts", "set-password", "alice@example.com", "--config",
                e2e.directory.appendingPathComponent("config.json").path,
            ].joined(separator: " ")
            // -e: script's exit status is the command's; -q: no "Script started" lines.
            let terminal = try TestProcess(
                "/usr/bin/script", ["-qec", command, "/dev/null"], package: "bsdutils", openInput: true)
            defer { terminal.terminateIfRunning() }
            // Typed only once the prompt shows: what is typed before echo is off is discarded (TCSAFLUSH).
            #expect(await terminal.waitForOutput(containing: "New password for"))
            try terminal.writeInput(Array((Self.second + "\r").utf8))
            let status = await terminal.exitCode()
            #expect(status == 0, "\(terminal.standardOutput)")
            #expect(terminal.standardOutput.contains("password set for"))
            #expect(!terminal.standardOutput.contains(Self.second), "the password was echoed")
            #expect(try await e2e.password("sign-in", "alice@example.com", Self.second).status == 200)
        }
    }

    @Test(
        "a password given as an argument or refused by the policy is not set, and is never repeated",
        arguments: AccountsDatabaseEngine.allCases)
    func refusedPasswords(engine: AccountsDatabaseEngine) async throws {
        try await engine.run { try await refusedPasswords() }
    }

    func refusedPasswords() async throws {
        try await withEndToEnd(backend: .accounts()) { e2e in
            #expect(try await e2e.password("sign-up", "alice@example.com", Self.first).status == 200)

            let argument = try await e2e.accounts(["set-password", "alice@example.com", Self.second])
            #expect(argument.status == 64)
            #expect(argument.standardError.contains("reads the password from standard input"))
            #expect(!(argument.standardOutput + argument.standardError).contains(Self.second))

            let short = try await e2e.accounts(["set-password", "alice@example.com"], standardInput: "tooshort\n")
            #expect(short.status == 64)
            #expect(short.standardError.contains("at least 15 characters"), "\(short.standardError)")
            #expect(!short.standardError.contains("tooshort"))

            let empty = try await e2e.accounts(["set-password", "alice@example.com"], standardInput: "")
            #expect(empty.status == 64)
            #expect(empty.standardError.contains("no password on standard input"))

            // The first password still works: nothing was set.
            #expect(try await e2e.password("sign-in", "alice@example.com", Self.first).status == 200)
        }
    }

    @Test(
        "disable: sign-in is 403 user-disabled and the refresh token is refused; enable: sign-in works again",
        arguments: AccountsDatabaseEngine.allCases)
    func disableAndEnable(engine: AccountsDatabaseEngine) async throws {
        try await engine.run { try await disableAndEnable() }
    }

    func disableAndEnable() async throws {
        try await withEndToEnd(backend: .accounts()) { e2e in
            let signUp = try await e2e.password("sign-up", "alice@example.com", Self.first)
            let refreshToken = try #require(signUp.json?["refreshToken"]?.stringValue)

            let disabled = try await e2e.accounts(["disable", "alice@example.com", "--json"])
            #expect(disabled.status == 0, "\(disabled.standardError)")
            let answer = try #require(disabled.jsonLines?.first)
            #expect(answer["disabled"]?.boolValue == true)
            #expect(answer["revokedSessions"]?.numberValue == 1)

            let refused = try await e2e.password("sign-in", "alice@example.com", Self.first)
            #expect(refused.status == 403)
            #expect(refused.json?["error"]?["code"]?.stringValue == "user-disabled")
            let refreshed = try await e2e.refresh(refreshToken)
            #expect(refreshed.json?["error"]?.stringValue == "invalid_grant", "\(refreshed.text)")

            let enabled = try await e2e.accounts(["enable", "alice@example.com"])
            #expect(enabled.status == 0)
            #expect(try await e2e.password("sign-in", "alice@example.com", Self.first).status == 200)
            // Enabling does not bring the revoked session back.
            #expect(try await e2e.refresh(refreshToken).json?["error"]?.stringValue == "invalid_grant")
        }
    }

    @Test(
        "revoke-sessions ends every session: refresh is invalid_grant, show counts none live, a new sign-in works",
        arguments: AccountsDatabaseEngine.allCases)
    func revokeSessions(engine: AccountsDatabaseEngine) async throws {
        try await engine.run { try await revokeSessions() }
    }

    func revokeSessions() async throws {
        try await withEndToEnd(backend: .accounts()) { e2e in
            let signUp = try await e2e.password("sign-up", "alice@example.com", Self.first)
            let signIn = try await e2e.password("sign-in", "alice@example.com", Self.first)
            let tokens = try [signUp, signIn].map { try #require($0.json?["refreshToken"]?.stringValue) }
            let localID = try #require(signUp.json?["localId"]?.stringValue)

            let before = try await e2e.accounts(["show", localID, "--json"])
            #expect(before.jsonLines?.first?["liveSessions"]?.numberValue == 2, "\(before.standardOutput)")

            let revoked = try await e2e.accounts(["revoke-sessions", localID])
            #expect(revoked.status == 0, "\(revoked.standardError)")
            #expect(revoked.standardOutput.contains("revoked 2 sessions"), "\(revoked.standardOutput)")
            for token in tokens {
                let refreshed = try await e2e.refresh(token)
                #expect(refreshed.status == 400)
                #expect(refreshed.json?["error"]?.stringValue == "invalid_grant")
            }
            let after = try await e2e.accounts(["show", localID, "--json"])
            #expect(after.jsonLines?.first?["liveSessions"]?.numberValue == 0)

            let again = try await e2e.password("sign-in", "alice@example.com", Self.first)
            #expect(again.status == 200)
            let fresh = try #require(again.json?["refreshToken"]?.stringValue)
            #expect(try await e2e.refresh(fresh).status == 200)
        }
    }

    @Test(
        "set-claims from an argument or stdin reaches the next ID token; null clears them",
        arguments: AccountsDatabaseEngine.allCases)
    func setClaimsReachTheIDToken(engine: AccountsDatabaseEngine) async throws {
        try await engine.run { try await setClaimsReachTheIDToken() }
    }

    func setClaimsReachTheIDToken() async throws {
        try await withEndToEnd(backend: .accounts()) { e2e in
            let signUp = try await e2e.password("sign-up", "alice@example.com", Self.first)
            var refreshToken = try #require(signUp.json?["refreshToken"]?.stringValue)

            let set = try await e2e.accounts(["set-claims", "alice@example.com", #"{"role": "admin"}"#])
            #expect(set.status == 0, "\(set.standardError)")
            var refreshed = try await e2e.refresh(refreshToken)
            #expect(refreshed.status == 200, "\(refreshed.text)")
            #expect(try Self.claims(of: refreshed)["role"]?.stringValue == "admin")
            refreshToken = try #require(refreshed.json?["refresh_token"]?.stringValue)

            let fromInput = try await e2e.accounts(["set-claims", "alice@example.com", "-"], standardInput: "null\n")
            #expect(fromInput.status == 0, "\(fromInput.standardError)")
            refreshed = try await e2e.refresh(refreshToken)
            #expect(refreshed.status == 200)
            #expect(try Self.claims(of: refreshed)["role"] == nil)
        }
    }

    @Test(
        "list and show --json parse, name the users, and hold no hash, token or password",
        arguments: AccountsDatabaseEngine.allCases)
    func listAndShowAsJSON(engine: AccountsDatabaseEngine) async throws {
        try await engine.run { try await listAndShowAsJSON() }
    }

    func listAndShowAsJSON() async throws {
        try await withEndToEnd(backend: .accounts()) { e2e in
            var secrets: [String] = ["$argon2id"]
            for name in ["alice", "bob", "carol"] {
                let signUp = try await e2e.password("sign-up", "\(name)@example.com", Self.first)
                secrets += ["refreshToken", "idToken"].compactMap { signUp.json?[$0]?.stringValue }
            }
            let list = try await e2e.accounts(["list", "--json"])
            #expect(list.status == 0)
            let users = try #require(list.jsonLines)
            #expect(
                Set(users.compactMap { $0["email"]?.stringValue }) == [
                    "alice@example.com", "bob@example.com",
                    "carol@example.com",
                ])
            let show = try await e2e.accounts(["show", "bob@example.com", "--json"])
            #expect(show.jsonLines?.first?["email"]?.stringValue == "bob@example.com")
            #expect(show.jsonLines?.first?["liveSessions"]?.numberValue == 1)
            let text = try await e2e.accounts(["show", "bob@example.com"])
            for output in [list, show, text] {
                for secret in secrets + [Self.first] {
                    #expect(!output.standardOutput.contains(secret))
                    #expect(!output.standardError.contains(secret))
                }
            }
        }
    }

    @Test("delete needs --yes; then the user is gone for the daemon too", arguments: AccountsDatabaseEngine.allCases)
    func deleteNeedsConfirmation(engine: AccountsDatabaseEngine) async throws {
        try await engine.run { try await deleteNeedsConfirmation() }
    }

    func deleteNeedsConfirmation() async throws {
        try await withEndToEnd(backend: .accounts()) { e2e in
            #expect(try await e2e.password("sign-up", "alice@example.com", Self.first).status == 200)
            let unconfirmed = try await e2e.accounts(["delete", "alice@example.com"])
            #expect(unconfirmed.status == 1)
            #expect(unconfirmed.standardError.contains("--yes"))
            #expect(try await e2e.password("sign-in", "alice@example.com", Self.first).status == 200)

            let deleted = try await e2e.accounts(["delete", "alice@example.com", "--yes"])
            #expect(deleted.status == 0, "\(deleted.standardError)")
            let signIn = try await e2e.password("sign-in", "alice@example.com", Self.first)
            #expect(signIn.json?["error"]?["code"]?.stringValue == "invalid-credential")
            #expect(try await e2e.accounts(["show", "alice@example.com"]).status == 64)
        }
    }

    /// The claims of the ID token in a `/__/auth/token` answer.
    static func claims(of response: OutboundResponse) throws -> JSONValue {
        let token = try #require(response.json?["id_token"]?.stringValue)
        let parts = token.split(separator: ".")
        try #require(parts.count == 3)
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        let payload = try #require(Data(base64Encoded: base64))
        return try #require(JSONValue.parse(Array(payload)))
    }
}
