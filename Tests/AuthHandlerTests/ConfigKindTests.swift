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
        #expect(BackendConfig.Kind.allCases.map(\.rawValue) == ["none", "identitytoolkit", "webhook"])
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
}
