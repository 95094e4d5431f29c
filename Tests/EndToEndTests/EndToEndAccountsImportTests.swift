import AuthHandlerHTTP
import Foundation
import TestSupport
import Testing

/// `auth-handler accounts import` and `export` beside a running daemon (docs/ACCOUNTS.md "Imported users", HTTP-API.md
/// §1.8): users from a Firebase export and a bcrypt CSV that `make_import_files.py` makes from known passwords with a
/// second implementation of each hash (Python's hashlib.scrypt with cryptography's AES-CTR; libcrypt through ctypes),
/// plus firebase/scrypt's published vector. Each signs in with its old password, keeps its localId, and has an
/// argon2id hash after.
@Suite(.serialized) struct EndToEndAccountsImportTests {
    /// firebase/scrypt's README: the project's parameters, and its user `user1password`.
    static let signerKey = "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA=="
    static let flags = [
        "--hash-key", signerKey, "--salt-separator", "Bw==", "--rounds", "8", "--mem-cost", "14",
    ]
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("make_import_files.py").path
    /// Full-width letters: NFKC would make them ASCII, so this signs in only when the old hash is checked against the
    /// bytes as typed.
    static let alicePassword = "ｆｕｌｌ-width secret"

    static let spec = #"""
        {"signerKey": "\#(signerKey)", "saltSeparator": "Bw==", "rounds": 8, "memCost": 14,
         "firebase": [
          {"localId": "vectorUser", "email": "user1@example.com", "password": "user1password",
           "salt": "42xEC+ixf3L2lw=="},
          {"localId": "aliceFirebaseUid0000000000001", "email": "alice@example.com", "password": "\#(alicePassword)",
           "providers": [["google.com", "g-alice"]], "customAttributes": "{\"role\":\"admin\"}"},
          {"localId": "carolFirebaseUid0000000000003", "email": "carol@example.com", "password": null,
           "providers": [["google.com", "g-carol"]]}],
         "bcrypt": [
          {"email": "dave@example.com", "password": "dave's old password", "localId": "daveSupabase1", "cost": 4},
          {"email": "erin@example.com", "password": "erin's old password", "cost": 5}]}
        """#

    /// The daemon on `engine` with `importedHashes.firebase` set to the published parameters, its key in a file.
    private func withImportDaemon(
        _ engine: AccountsDatabaseEngine, _ body: (EndToEnd) async throws -> Void
    ) async throws {
        let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("firebase-key-\(UUID().uuidString)")
        try Data(Self.signerKey.utf8).write(to: keyFile)
        defer { try? FileManager.default.removeItem(at: keyFile) }
        let members = #"""
            "importedHashes": {"firebase": {"signerKey": {"file": "\#(keyFile.path)"}, "saltSeparator": "Bw==",
             "rounds": 8, "memCost": 14}}
            """#
        try await withEndToEnd(backend: .accounts(members: members, engine: engine)) { e2e in
            let specFile = e2e.directory.appendingPathComponent("spec.json")
            try Data(Self.spec.utf8).write(to: specFile)
            let maker = try TestProcess(
                "/usr/bin/python3", ["-I", Self.script, e2e.directory.path, specFile.path],
                package: "python3-cryptography",
                environment: ["PYTHONDONTWRITEBYTECODE": "1"])
            let status = await maker.exitCode()
            try #require(status == 0, "make_import_files.py: \(maker.standardError)")
            try await body(e2e)
        }
    }

    /// `accounts export` parsed: the users by localId.
    private func exported(_ e2e: EndToEnd) async throws -> [String: [String: JSONValue]] {
        let run = try await e2e.accounts(["export"])
        #expect(run.status == 0, "\(run.standardError)")
        guard case .object(let root)? = JSONValue.parse(Array(run.standardOutput.utf8)),
            case .array(let users)? = root["users"]
        else {
            Issue.record("export is not {\"users\": [...]}: \(run.standardOutput.prefix(200))")
            return [:]
        }
        var byID: [String: [String: JSONValue]] = [:]
        for case .object(let user) in users {
            if let id = user["localId"]?.stringValue { byID[id] = user }
        }
        return byID
    }

    private func hash(_ users: [String: [String: JSONValue]], _ localID: String) -> String {
        users[localID]?["passwordHash"]?.stringValue ?? "none"
    }

    @Test(
        "a Firebase export: each user signs in with its old password, keeps its localId, and is argon2id after",
        arguments: AccountsDatabaseEngine.allCases)
    func firebaseUsersSignInAndAreUpgraded(engine: AccountsDatabaseEngine) async throws {
        try await withImportDaemon(engine) { e2e in
            let file = e2e.directory.appendingPathComponent("firebase.json").path
            let imported = try await e2e.accounts(["import", "--format", "firebase", file] + Self.flags)
            #expect(imported.status == 0, "\(imported.standardError)")
            #expect(imported.standardOutput.contains("imported 3 user(s); skipped 0"), "\(imported.standardOutput)")
            #expect(!(imported.standardOutput + imported.standardError).contains(Self.signerKey))

            var users = try await exported(e2e)
            #expect(hash(users, "vectorUser").hasPrefix("$firescrypt$ln=14,r=8,p=1$42xEC+ixf3L2lw==$lSrfV15c"))
            #expect(users["carolFirebaseUid0000000000003"]?["passwordHash"] == nil)

            let wrong = try await e2e.password("sign-in", "user1@example.com", "user1Password")
            #expect(wrong.json?["error"]?["code"]?.stringValue == "invalid-credential")
            for (email, password, localID) in [
                ("user1@example.com", "user1password", "vectorUser"),
                ("alice@example.com", Self.alicePassword, "aliceFirebaseUid0000000000001"),
            ] {
                let signIn = try await e2e.password("sign-in", email, password)
                #expect(signIn.status == 200, "\(email): \(signIn.text)")
                #expect(signIn.json?["localId"]?.stringValue == localID)
            }
            users = try await exported(e2e)
            #expect(hash(users, "vectorUser").hasPrefix("$argon2id$v=19$"))
            #expect(hash(users, "aliceFirebaseUid0000000000001").hasPrefix("$argon2id$v=19$"))
            #expect(users["aliceFirebaseUid0000000000001"]?["customAttributes"]?.stringValue == #"{"role":"admin"}"#)
            let identities = users["carolFirebaseUid0000000000003"]?["providerUserInfo"]
            #expect(
                identities
                    == .array([
                        .object([
                            "providerId": .string("google.com"), "rawId": .string("g-carol"),
                            "email": .string("carol@example.com"),
                        ])
                    ]))
            // After the upgrade the argon2id hash signs in, and a reset-only user has no password to guess.
            #expect(try await e2e.password("sign-in", "user1@example.com", "user1password").status == 200)
            #expect(try await e2e.password("sign-in", "carol@example.com", "anything at all").status == 400)

            // The same file again changes nothing: the upgraded hashes stay.
            let again = try await e2e.accounts(["import", "--format", "firebase", file] + Self.flags)
            #expect(again.status == 0, "\(again.standardError)")
            #expect(again.standardOutput.contains("imported 0 user(s); skipped 3"), "\(again.standardOutput)")
            #expect(hash(try await exported(e2e), "vectorUser").hasPrefix("$argon2id$"))
        }
    }

    @Test("export FILE: a new 0600 file with what standard output gets, replacing the old one; a symlink is refused")
    func exportIntoAFile() async throws {
        try await withImportDaemon(.sqlite) { e2e in
            let source = e2e.directory.appendingPathComponent("firebase.json").path
            #expect(try await e2e.accounts(["import", "--format", "firebase", source] + Self.flags).status == 0)
            let onStandardOutput = try await e2e.accounts(["export"])
            #expect(onStandardOutput.status == 0, "\(onStandardOutput.standardError)")

            // A file that exists, readable by all and held open by a reader, is replaced, never written into: the
            // reader's descriptor still reads the old bytes, and the name shows a new file of mode 0600.
            let file = e2e.directory.appendingPathComponent("export.json").path
            try Data("old".utf8).write(to: URL(fileURLWithPath: file))
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
            let reader = try #require(FileHandle(forReadingAtPath: file))
            defer { try? reader.close() }
            let run = try await e2e.accounts(["export", file])
            #expect(run.status == 0, "\(run.standardError)")
            #expect(
                run.standardOutput
                    == "exported 3 user(s) to \(file) (mode 0600; it holds every password hash: keep it secret)\n")
            let written = try String(contentsOfFile: file, encoding: .utf8)
            #expect(written == onStandardOutput.standardOutput)
            let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            #expect(String(decoding: try reader.readToEnd() ?? Data(), as: UTF8.self) == "old")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: e2e.directory.path)
                .filter { $0.hasPrefix(".export.json.") }
            #expect(leftovers.isEmpty, "\(leftovers)")

            let json = try await e2e.accounts(["export", file, "--json"])
            #expect(json.standardOutput == #"{"exported":3,"file":"\#(file)"}"# + "\n", "\(json.standardOutput)")

            // A symlink planted at the path: refused by name (exit 64) before the database is read; its target
            // keeps what it had.
            let target = e2e.directory.appendingPathComponent("target.txt").path
            try Data("untouched".utf8).write(to: URL(fileURLWithPath: target))
            let link = e2e.directory.appendingPathComponent("link.json").path
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
            let refused = try await e2e.accounts(["export", link])
            #expect(refused.status == 64)
            #expect(refused.standardError.contains("the export file \(link) is a symlink, which is refused"))
            #expect(try String(contentsOfFile: target, encoding: .utf8) == "untouched")
            #expect(!(refused.standardError + refused.standardOutput).contains("$firescrypt$"))
        }
    }

    @Test(
        "a bcrypt CSV: each user signs in with its old password and is argon2id after; a second import skips all",
        arguments: AccountsDatabaseEngine.allCases)
    func bcryptUsersSignInAndAreUpgraded(engine: AccountsDatabaseEngine) async throws {
        try await withImportDaemon(engine) { e2e in
            let file = e2e.directory.appendingPathComponent("bcrypt.csv").path
            let imported = try await e2e.accounts(["import", "--format", "bcrypt-csv", file, "--json"])
            #expect(imported.status == 0, "\(imported.standardError)")
            #expect(imported.jsonLines == [.object(["imported": .integer(2), "skipped": .integer(0)])])
            #expect(hash(try await exported(e2e), "daveSupabase1").hasPrefix("$2b$04$"))
            for (email, password) in [
                ("dave@example.com", "dave's old password"), ("erin@example.com", "erin's old password"),
            ] {
                #expect(try await e2e.password("sign-in", email, password + "x").status == 400)
                let signIn = try await e2e.password("sign-in", email, password)
                #expect(signIn.status == 200, "\(email): \(signIn.text)")
            }
            let users = try await exported(e2e)
            #expect(users.count == 2)
            #expect(users.values.allSatisfy { $0["passwordHash"]?.stringValue?.hasPrefix("$argon2id$") == true })
            let again = try await e2e.accounts(["import", "--format", "bcrypt-csv", file, "--json"])
            #expect(again.jsonLines == [.object(["imported": .integer(0), "skipped": .integer(2)])])
        }
    }

    @Test(
        "a bad row, a cost past the bounds or flags unlike the config import nothing, and say where and why",
        arguments: AccountsDatabaseEngine.allCases)
    func refusalsImportNothing(engine: AccountsDatabaseEngine) async throws {
        try await withImportDaemon(engine) { e2e in
            let directory = e2e.directory
            let firebase = directory.appendingPathComponent("firebase.json").path
            let original = try String(contentsOfFile: firebase, encoding: .utf8)
            let cases: [(String, String, [String], String)] = [
                (
                    "bad-row.json",
                    original.replacingOccurrences(of: "\"user1@example.com\"", with: "\"not an address\""),
                    Self.flags, "users[0], email"
                ),
                (
                    "too-costly.json",
                    original.replacingOccurrences(
                        of: "\"passwordHash\": \"lSrf", with: "\"passwordHash\": \"$firescrypt$ln=16,r=8,p=1$AA==$lSrf"
                    ).replacingOccurrences(of: "uid5lQ==\"", with: "uid5lQ==\""),
                    Self.flags, "32 MiB"
                ),
                (
                    // 128 · 2^30 · r overflowed and trapped the command (exit 132): now refused by name.
                    "overflow.json",
                    original.replacingOccurrences(
                        of: "\"passwordHash\": \"lSrf",
                        with: "\"passwordHash\": \"$firescrypt$ln=30,r=99999999999,p=1$AAAA$lSrf"),
                    Self.flags, "users[0], passwordHash: the $firescrypt$ parameters are not ln=…,r=…,p=1"
                ),
                (
                    "other-cost.json",
                    original.replacingOccurrences(
                        of: "\"passwordHash\": \"lSrf", with: "\"passwordHash\": \"$firescrypt$ln=13,r=8,p=1$AA==$lSrf"),
                    Self.flags, "users[0], passwordHash: $firescrypt$ ln=13,r=8 differs from the project's"
                ),
                ("rounds.json", original, ["--rounds", "9"], "'--rounds' differs from backend.importedHashes"),
                ("key.json", original, ["--hash-key", "AAAA"], "'--hash-key' differs"),
            ]
            for (name, text, flags, expected) in cases {
                let path = directory.appendingPathComponent(name).path
                try Data(text.utf8).write(to: URL(fileURLWithPath: path))
                let run = try await e2e.accounts(["import", "--format", "firebase", path] + flags)
                #expect(run.status == 64, "\(name): \(run.standardError)")
                #expect(run.standardError.contains(expected), "\(name): \(run.standardError)")
                #expect(
                    run.standardError.contains("nothing was imported") || name == "rounds.json" || name == "key.json")
            }
            let csv = directory.appendingPathComponent("costly.csv").path
            try Data(
                ("email,bcrypt_hash\nok@example.com,$2b$04$" + String(repeating: "a", count: 53)
                    + "\nbig@example.com,$2b$15$" + String(repeating: "a", count: 53) + "\n").utf8
            )
            .write(to: URL(fileURLWithPath: csv))
            let costly = try await e2e.accounts(["import", "--format", "bcrypt-csv", csv])
            #expect(costly.status == 64)
            #expect(
                costly.standardError.contains("line 3, bcrypt_hash: bcrypt cost 15 passes the bound of 14"),
                "\(costly.standardError)")
            // Nothing of any refused file was imported.
            #expect(try await exported(e2e).isEmpty)
        }
    }

    @Test(
        "a crafted stored hash matches nothing: the sign-in is 400 invalid-credential, and the daemon lives on",
        arguments: AccountsDatabaseEngine.allCases)
    func craftedStoredHashesMatchNothing(engine: AccountsDatabaseEngine) async throws {
        try await withImportDaemon(engine) { e2e in
            let csv = e2e.directory.appendingPathComponent("bcrypt.csv").path
            let imported = try await e2e.accounts(["import", "--format", "bcrypt-csv", csv])
            #expect(imported.status == 0, "\(imported.standardError)")
            let tail = String(repeating: "a", count: 53)
            for crafted in [
                "$firescrypt$ln=30,r=99999999999,p=1$AAAA$AAAA",  // trapped the daemon (overflow)
                "$firescrypt$ln=99999999999,r=8,p=1$AAAA$AAAA",
                "$2b$+9$" + tail,  // libcrypt refuses it: was a 500 at every sign-in
            ] {
                // A hand-written row: the importer itself refuses these, so only the database can hold them.
                try await e2e.setAccountColumn("legacy_password_hash", to: .text(crafted), of: "dave@example.com")
                let signIn = try await e2e.password("sign-in", "dave@example.com", "dave's old password")
                #expect(signIn.status == 400, "\(crafted): \(signIn.text)")
                #expect(signIn.json?["error"]?["code"]?.stringValue == "invalid-credential", "\(crafted)")
                #expect(!e2e.daemon.standardError.contains(crafted))
            }
            // The daemon still answers, and said why without the hash.
            let other = try await e2e.password("sign-in", "erin@example.com", "erin's old password")
            #expect(other.status == 200, "\(other.text)")
            #expect(e2e.daemon.standardError.contains("accounts.legacy_hash_refused"), "\(e2e.daemon.standardError)")
        }
    }
}
