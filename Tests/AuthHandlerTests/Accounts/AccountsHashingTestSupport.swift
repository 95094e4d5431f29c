import AuthHandlerCrypto
import Foundation
import Synchronization

@testable import AuthHandlerAccounts

/// A ``PasswordHashingEngine`` that counts its calls and can hold them until released, so that tests see whether
/// anything was hashed and fill the pool deterministically.
final class CountingEngine: PasswordHashingEngine {
    private let inner = Argon2idEngine()
    private let counts = Mutex((hashes: 0, verifies: 0))
    private let encodings = Mutex<[String]>([])
    private let held = Mutex(false)
    private let gate = DispatchSemaphore(value: 0)
    /// One element each time a held call starts waiting.
    let started: AsyncStream<Void>
    private let startedContinuation: AsyncStream<Void>.Continuation

    init(holding: Bool = false) {
        held.withLock { $0 = holding }
        (started, startedContinuation) = AsyncStream.makeStream()
    }

    var hashes: Int { counts.withLock { $0.hashes } }
    var verifies: Int { counts.withLock { $0.verifies } }
    /// The PHC strings `verify` was called with, in order.
    var verified: [String] { encodings.withLock { $0 } }

    /// Lets every held call (and every later one) go on.
    func release(_ waiting: Int) {
        held.withLock { $0 = false }
        for _ in 0..<waiting { gate.signal() }
    }

    func hash(_ password: [UInt8], parameters: Argon2id.Parameters) throws(CryptoError) -> String {
        counts.withLock { $0.hashes += 1 }
        return try inner.hash(password, parameters: parameters)
    }

    func verify(_ password: [UInt8], encoded: String) throws(CryptoError) -> Bool {
        counts.withLock { $0.verifies += 1 }
        encodings.withLock { $0.append(encoded) }
        if held.withLock({ $0 }) {
            startedContinuation.yield()
            // Bounded, so that a defect that queues what should be refused fails the test instead of hanging it.
            _ = gate.wait(timeout: .now() + 10)
        }
        return try inner.verify(password, encoded: encoded)
    }
}

extension Argon2id.Parameters {
    /// Cheap parameters for tests (about a millisecond).
    static let cheap = Argon2id.Parameters(memoryKiB: 1024, iterations: 1, parallelism: 1)
}
