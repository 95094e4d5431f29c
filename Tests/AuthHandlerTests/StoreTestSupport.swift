import Foundation
import TestSupport
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerStore
@testable import auth_handler

/// The `SessionStore` (and `DeviceStore`, `CounterStore`) implementations the shared semantics are tested against.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible {
    case memory
    case sqlite
    case redis

    var testDescription: String { rawValue }

    /// The kinds whose expiry follows the `TestClock` handed to them. Redis expires keys by its own clock
    /// (`PXAT`, RedisSessionStore's doc comment), which a test cannot move; its expiry is tested with short real
    /// TTLs in StoreRedisTests instead.
    static let followingTestClock: [StoreKind] = [.memory, .sqlite]
}

/// A fresh directory under the temporary directory, removed when `body` returns or throws.
func withStoreTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("auth-handler-store-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}

/// Runs `body` with a new, empty store of `kind` on `clock` (an SQLite one in a temporary directory).
func withStore<T>(
    _ kind: StoreKind, clock: TestClock = .startingNow(),
    _ body: (any SessionStore & DeviceStore) async throws -> T
) async throws -> T {
    switch kind {
    case .memory:
        return try await body(MemorySessionStore(now: clock.read))
    case .sqlite:
        return try await withStoreTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("state.sqlite").path
            let store = try SQLiteSessionStore(path: path, now: clock.read)
            return try await body(store)
        }
    case .redis:
        return try await withRedisServer { server in
            try await body(try RedisSessionStore(address: server.address))
        }
    }
}

/// The bytes of `string`, for payloads.
func storeBytes(_ string: String) -> [UInt8] { Array(string.utf8) }

extension RedisTestServer {
    /// Runs one command on a connection of its own (authenticated), for tests that look at what the store wrote.
    func command(_ arguments: [String]) throws -> RedisReply {
        let connection = try RedisConnection.open(address, connectTimeout: .seconds(1), commandTimeout: .seconds(2))
        if let password {
            let reply = try connection.command([Array("AUTH".utf8), Array(password.utf8)], operation: "test AUTH")
            guard reply == .status("OK") else { throw TestProcessError("test AUTH failed: \(reply)") }
        }
        return try connection.command(arguments.map { Array($0.utf8) }, operation: "test \(arguments[0])")
    }
}
