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
}
