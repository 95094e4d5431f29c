import Foundation
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerStore

/// The sections whose keys depend on `kind` (CONFIG.md `store`, `backend`): each kind's payload, the keys the
/// section lists, and the store each kind opens.
struct ConfigKindTests {
    @Test func eachSectionListsKindAndTheKeysItsKindsRead() {
        let backendKeys = BackendConfig.Kind.allCases.flatMap { $0.keys.map(\.key) }
        #expect(Set(BackendConfig.keys) == Set(["kind"] + backendKeys))
        #expect(Set(StoreConfig.keys) == Set(["kind"] + SQLiteStoreConfig.keys + RedisStoreConfig.keys))
    }

    @Test func kindsAreWrittenAsBefore() {
        #expect(BackendConfig.Kind.allCases.map(\.rawValue) == ["none", "identitytoolkit", "webhook", "accounts"])
        #expect(StoreConfig.Kind.allCases.map(\.rawValue) == ["sqlite", "memory", "redis"])
        #expect(StoreConfig.default.kind == .sqlite)
    }

    /// `--once` and `demo` ask for memory where the config places no SQLite file; a placed file, Redis, and `serve`'s
    /// default keep what the config says.
    @Test func memoryStandsForAnUnplacedSQLiteStoreOnlyWhenAskedFor() throws {
        let placed = StoreConfig.sqlite(SQLiteStoreConfig(path: "/srv/state.sqlite"))
        let redis = StoreConfig.redis(RedisStoreConfig(address: RedisAddress(endpoint: .unix(path: "/r.sock"))))
        #expect(StoreConfig.default.opened(defaultKind: .memory) == .memory)
        #expect(StoreConfig.default.opened(defaultKind: .sqlite) == .default)
        #expect(placed.opened(defaultKind: .memory) == placed)
        #expect(redis.opened(defaultKind: .memory) == redis)
        #expect(StoreConfig.memory.opened(defaultKind: .sqlite) == .memory)
    }

    @Test func sqliteOpensTheFileItNamesOrOneInTheStateDirectory() throws {
        let directory = try ConfigTemporaryDirectory()
        defer { directory.remove() }
        let file = (directory.path as NSString).appendingPathComponent("named.sqlite")
        let named = try StoreConfig.sqlite(SQLiteStoreConfig(path: file))
            .makeStore(environment: SecretEnvironment(variables: [:]))
        #expect(named.store is SQLiteSessionStore)
        #expect(named.sqlitePath == file)
        let unplaced = try StoreConfig.default.makeStore(
            environment: SecretEnvironment(variables: ["STATE_DIRECTORY": directory.path + ":/elsewhere"]))
        #expect(unplaced.sqlitePath == directory.path + "/state.sqlite")
        let memory = try StoreConfig.memory.makeStore(environment: SecretEnvironment(variables: [:]))
        #expect(memory.store is MemorySessionStore)
        #expect(memory.sqlitePath == nil)
    }

    @Test func aStoreThatCannotOpenSaysWhatToSet() {
        let file = "/nonexistent-\(UUID().uuidString)/state.sqlite"
        #expect {
            _ = try StoreConfig.sqlite(SQLiteStoreConfig(path: file)).makeStore(
                environment: SecretEnvironment(variables: [:]))
        } throws: { error in
            let message = (error as? StoreSetupError)?.description ?? ""
            return message.hasPrefix("cannot open the session store \(file): ")
                && message.hasSuffix("; set store.path or $STATE_DIRECTORY")
        }
        let redis = StoreConfig.redis(
            RedisStoreConfig(address: RedisAddress(endpoint: .unix(path: "/r.sock")), password: .environment("UNSET")))
        #expect {
            _ = try redis.makeStore(environment: SecretEnvironment(variables: [:]))
        } throws: { error in
            (error as? StoreSetupError)?.description.hasPrefix("store.password: ") == true
        }
    }

    /// Every problem of a store and a backend section, in the order `check-config` printed them before the sections
    /// became enums (taken from that binary's output): the payloads read their keys in the order the old validator did.
    @Test(arguments: [
        (
            #"{"store": {"kind": "redis", "path": 3, "url": "redis://10.0.0.1", "password": "inline", "keyPrefix": "", "commandTimeoutSeconds": 61}, "backend": {"kind": "identitytoolkit", "url": "http://evil.example", "secret": "s", "tenantId": 5, "apiKey": {"env": "NOPE"}}}"#,
            [
                "warning: store.path: ignored with kind \"redis\"",
                "warning: store.password: plain-string secret in the config file; prefer {\"file\": PATH}, {\"env\": NAME} or {\"credential\": NAME}",
                "warning: store.url: plain TCP to the non-loopback host 10.0.0.1; store.password would be sent with AUTH in plain text, and replies could be forged (a used state reported new defeats replay protection); use a unix: socket, a loopback address, or a local TLS tunnel such as stunnel (redis://127.0.0.1:PORT): this build's hiredis has no TLS",
                "store.keyPrefix: is empty; expected a non-empty string",
                "store.commandTimeoutSeconds: 61 is too long: a stalled Redis would hold every sign-in that long; expected 1 to 60 seconds",
                "stateKey: required with store kind \"redis\": every instance must hold the same key to open the others' cookies; expected a secret reference to 32 random bytes",
                "backend.url: \"http://evil.example\" uses plain http on a non-loopback host; expected an https URL (http only on 127.0.0.1, [::1] or localhost)",
                "backend.apiKey.env: environment variable NOPE is not set; set it, or point this secret at a file or credential",
                "warning: backend.secret: plain-string secret in the config file; prefer {\"file\": PATH}, {\"env\": NAME} or {\"credential\": NAME}",
                "backend.tenantId: expected a string, got a number",
                "warning: backend.secret: ignored with kind \"identitytoolkit\"",
            ]
        ),
        (
            #"{"store": {"kind": "mongo", "path": "x", "url": 3}, "backend": {"kind": "none", "url": "http://remote.example/x", "apiKey": "inline", "secret": {"env": "NOPE"}, "tenantId": "", "extra": 1}}"#,
            [
                "store.kind: unknown value \"mongo\"; expected one of \"sqlite\", \"memory\", \"redis\"",
                "warning: store.url: ignored with kind \"sqlite\"",
                "backend.extra: unknown key; expected one of kind, url, apiKey, secret, tenantId, database, signingKey, "
                    + "nextSigningKey, previousSigningKeys, idTokenTTLSeconds, refreshToken, audience, password, email, claims, "
                    + "introspectionSecret, importedHashes",
                "backend.url: \"http://remote.example/x\" uses plain http on a non-loopback host; expected an https URL (http only on 127.0.0.1, [::1] or localhost)",
                "warning: backend.apiKey: plain-string secret in the config file; prefer {\"file\": PATH}, {\"env\": NAME} or {\"credential\": NAME}",
                "backend.secret.env: environment variable NOPE is not set; set it, or point this secret at a file or credential",
                "backend.tenantId: is empty; expected a non-empty string",
                "warning: backend.url: ignored with kind \"none\"",
                "warning: backend.apiKey: ignored with kind \"none\"",
                "warning: backend.secret: ignored with kind \"none\"",
                "warning: backend.tenantId: ignored with kind \"none\"",
            ]
        ),
    ])
    func problemsKeepTheirOrder(_ sections: String, _ expected: [String]) throws {
        let report = try ConfigFixture.report(overriding: sections)
        #expect(report.problems.map(\.description) == expected)
    }
}
