import AuthHandlerCrypto
import AuthHandlerHTTP
import Foundation
import TestSupport
import Testing

/// Instances on one PostgreSQL database whose configs name neither `stateKey` nor `signingKey` (docs/ACCOUNTS.md "Keys
/// the database keeps"): the first makes both, the database keeps them, and every instance signs and seals with them.
@Suite(.serialized) struct EndToEndAccountsKeysTests {
    @Test(
        "two daemons on one PostgreSQL database without stateKey or signingKey: one JWKS, each accepts the other's tokens"
    )
    func keysTheDatabaseKeeps() async throws {
        try await withEndToEnd(backend: .accounts(members: "", engine: .postgres)) { first in
            let up = try await first.password("sign-up", "keys@example.com", "correct horse battery staple")
            #expect(up.status == 200, "\(up.text)")
            let firstToken = try #require(up.json?["idToken"]?.stringValue)
            try await AccountsDatabaseEngine.$sharedWith.withValue(first.directory) {
                // One issuer, as behind one load balancer: the second's publicURL is the first's.
                let front = ["publicURL": "\"\(first.daemonURL)\""]
                try await withEndToEnd(backend: .accounts(members: "", engine: .postgres), settings: front) { second in
                    let firstKeys = try await first.get(first.daemonURL + "/__/auth/jwks.json").text
                    let secondKeys = try await second.get(second.daemonURL + "/__/auth/jwks.json").text
                    #expect(firstKeys == secondKeys && firstKeys.contains("\"kid\""), "\(firstKeys) \(secondKeys)")
                    let seen = try await second.withBearer("GET", "/__/auth/user", bearer: firstToken)
                    #expect(
                        seen.status == 200 && seen.json?["localId"] == up.json?["localId"],
                        "\(seen.status) \(seen.text)")
                    let signIn = try await second.password(
                        "sign-in", "keys@example.com", "correct horse battery staple")
                    let secondToken = try #require(signIn.json?["idToken"]?.stringValue)
                    #expect(try await first.withBearer("GET", "/__/auth/user", bearer: secondToken).status == 200)
                }
            }
            // The database holds the state key as drawn and the signing key sealed: no PEM in a dump of it.
            let dump = String(decoding: try await first.postgresDump(), as: UTF8.self)
            #expect(dump.contains("account_keys") && dump.contains("state-key") && dump.contains("signing-key"))
            #expect(!dump.contains("PRIVATE KEY"))
        }
    }

    @Test(
        "a stateKey rotated across restarts keeps the kept signing key; a reload is refused for it; another key does not start"
    )
    func stateKeyRotation() async throws {
        let keys = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: keys, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: keys) }
        func key(_ name: String) throws -> String {
            let file = keys.appendingPathComponent(name)
            try Data((Base64.urlEncode(try SecureRandom.bytes(32)) + "\n").utf8).write(to: file)
            return "{\"file\": \"\(file.path)\"}"
        }
        let (first, second, other) = (try key("k1"), try key("k2"), try key("k3"))
        let backend = EndToEnd.Backend.accounts(members: "", engine: .postgres)
        var current = try await EndToEnd.start(backend: backend, settings: ["stateKey": first])
        do {
            let up = try await current.password("sign-up", "rotate@example.com", "correct horse battery staple")
            let token = try #require(up.json?["idToken"]?.stringValue, "\(up.text)")
            // A reload cannot take a new state key: refused, the running config stays and serves.
            try current.rewriteConfig(["stateKey": second, "previousStateKeys": "[\(first)]"], backend: backend)
            current.daemon.send(SIGHUP)
            let refused = await current.daemon.waitForErrorLine(
                startingWith: "level=error event=reload outcome=refused")
            #expect(refused?.contains("stateKey changed") == true, "\(current.daemon.standardError)")
            #expect(try await current.withBearer("GET", "/__/auth/user", bearer: token).status == 200)
            // A restart takes it (the new key current, the old one previous), then one with the old key dropped: the
            // signing key the database keeps was sealed again under the new key, and is the same.
            current = try await current.restartingDaemon(
                backend: backend, settings: ["stateKey": second, "previousStateKeys": "[\(first)]"])
            current = try await current.restartingDaemon(backend: backend, settings: ["stateKey": second])
            #expect(try await current.withBearer("GET", "/__/auth/user", bearer: token).status == 200)
            // An instance with another key would seal what the others cannot open: it does not start.
            let refusal = await #expect(throws: TestProcessError.self) {
                current = try await current.restartingDaemon(backend: backend, settings: ["stateKey": other])
            }
            #expect(
                refusal?.description.contains("another instance on this database seals with a different stateKey")
                    == true, "\(refusal?.description ?? "")")
        } catch {
            await current.stop()
            throw error
        }
        await current.stop()
    }
}
