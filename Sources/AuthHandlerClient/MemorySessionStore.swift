import Foundation

/// A ``SessionStore`` in memory: the session ends with the process.
public final class MemorySessionStore: SessionStore, @unchecked Sendable {
    // @unchecked Sendable: `stored` is read and written only while `lock` is held.
    private let lock = NSLock()
    private var stored: AccountSession?

    public init(_ session: AccountSession? = nil) {
        stored = session
    }

    public func load() -> AccountSession? {
        lock.withLock { stored }
    }

    public func save(_ session: AccountSession) {
        lock.withLock { stored = session }
    }

    public func clear() {
        lock.withLock { stored = nil }
    }
}
