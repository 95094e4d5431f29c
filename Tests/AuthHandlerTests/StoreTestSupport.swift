import Foundation
import Synchronization
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerCrypto
@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols
@testable import AuthHandlerStore
@testable import AuthHandlerSystem
@testable import auth_handler

/// The `SessionStore` implementations the shared semantics are tested against.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible {
    case memory
    case sqlite
    case redis

    var testDescription: String { rawValue }

    /// The kinds whose expiry follows the `StoreTestClock` handed to them. Redis expires keys by its own clock
    /// (`PXAT`, RedisSessionStore's doc comment), which a test cannot move; its expiry is tested with short real
    /// TTLs in StoreRedisTests instead.
    static let followingTestClock: [StoreKind] = [.memory, .sqlite]
}

/// A clock tests move by hand; starts at the current second, so that expiries computed from it lie in the real
/// future too (a Redis store compares them with Redis's own clock).
final class StoreTestClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))

    var now: Date { current.withLock { $0 } }

    func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
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
    _ kind: StoreKind, clock: StoreTestClock = StoreTestClock(),
    _ body: (any SessionStore) async throws -> T
) async throws -> T {
    switch kind {
    case .memory:
        return try await body(MemorySessionStore(currentDate: { clock.now }))
    case .sqlite:
        return try await withStoreTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("state.sqlite").path
            let store = try SQLiteSessionStore(path: path, currentDate: { clock.now })
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
