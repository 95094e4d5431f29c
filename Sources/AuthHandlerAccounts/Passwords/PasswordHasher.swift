import AuthHandlerCrypto
import Foundation
import Synchronization

/// Hashes and checks passwords with argon2id (issue 25 §3; OWASP Password Storage Cheat Sheet), every call charged
/// to the client's ``HashingBudget`` first and run on a ``HashingPool`` of its own.
///
/// The order for each call: the budget (else ``HashingOutcome/limited(retryAfterSeconds:)``, nothing hashed), then
/// the pool's admission (else ``HashingOutcome/busy(retryAfterSeconds:)`` at once), then the hash on a pool thread
/// while the caller's task is suspended.
///
/// An unknown e-mail and a user without a password are checked against a **dummy hash** made once at start with the
/// configured parameters, so that they cost the same time as a wrong password and a sign-in's timing does not say
/// whether an account exists (issue 25 §3 "Enumeration"; OWASP Authentication Cheat Sheet, "Authentication and Error
/// Messages").
package final class PasswordHasher: Sendable {
    /// The configured cost (`password.argon2id`).
    package let parameters: Argon2id.Parameters
    private let budget: HashingBudget
    private let engine: any PasswordHashingEngine
    let pool: HashingPool
    private let dummy: String
    private let reporter: (@Sendable (Duration) -> Void)?
    private let stats: Mutex<Stats>
    /// `backend.importedHashes.firebase`: what checks an imported Firebase hash (docs/ACCOUNTS.md "Imported users").
    private let firebase: FirebaseScrypt.Parameters?
    /// Told why a stored imported hash was refused at a sign-in (the refusal names the field, never the hash).
    private let refusedLegacyHash: (@Sendable (LegacyPasswordHash.Refusal) -> Void)?

    private struct Stats {
        var completed = 0
        var total = Duration.zero
        var longest = Duration.zero
        /// The running mean of a job's duration, for `Retry-After`.
        var mean: Duration
        var limited = 0
        var busy = 0
    }

    /// Makes the dummy hash (one hash at `parameters`, on the caller's thread: this runs once at start) and starts
    /// the pool's threads.
    ///
    /// - Parameters:
    ///   - parameters: `password.argon2id`.
    ///   - budget: the per-client allowance every call is charged to.
    ///   - poolSize: threads hashing at once; default one per core.
    ///   - maxEntriesPerClient: a client's most jobs waiting or running (default 2).
    ///   - engine: the hashing; argon2id unless a test counts calls.
    ///   - reporter: called with each job's duration, on the pool's thread (for a metrics histogram).
    ///   - firebase: the project parameters imported Firebase hashes are checked with; nil: none can match.
    ///   - refusedLegacyHash: told why a stored imported hash matched nothing because it does not parse or passes
    ///     the bounds (a row written by hand: the import refuses such rows), for one log line without the hash.
    package init(
        parameters: Argon2id.Parameters, budget: HashingBudget,
        poolSize: Int = ProcessInfo.processInfo.activeProcessorCount, maxEntriesPerClient: Int = 2,
        engine: any PasswordHashingEngine = Argon2idEngine(), reporter: (@Sendable (Duration) -> Void)? = nil,
        firebase: FirebaseScrypt.Parameters? = nil,
        refusedLegacyHash: (@Sendable (LegacyPasswordHash.Refusal) -> Void)? = nil
    ) throws(CryptoError) {
        self.parameters = parameters
        self.firebase = firebase
        self.refusedLegacyHash = refusedLegacyHash
        self.budget = budget
        self.engine = engine
        self.reporter = reporter
        let clock = ContinuousClock()
        let started = clock.now
        dummy = try engine.hash(try SecureRandom.bytes(32), parameters: parameters)
        stats = Mutex(Stats(mean: clock.now - started))
        pool = HashingPool(size: poolSize, maxPerClient: maxEntriesPerClient)
    }

    deinit {
        pool.shutdown()
    }

    /// `password` hashed at the configured parameters, as a PHC string to store (sign-up, a password change).
    package func hash(_ password: NormalizedPassword, client: ClientKey) async throws(CryptoError)
        -> HashingOutcome<String>
    {
        let (engine, parameters) = (self.engine, self.parameters)
        return try await run(client: client) { () throws(CryptoError) in
            try engine.hash(password.utf8, parameters: parameters)
        }
    }

    /// Whether `password` is the one `stored` was made from; `stored` nil (an unknown e-mail, a user without a
    /// password) checks against the dummy hash and is always ``PasswordCheck/mismatch``, in the same time. A match
    /// whose stored hash is weaker than the configured parameters comes with a new hash, made in the same job.
    package func verify(_ password: NormalizedPassword, against stored: String?, client: ClientKey)
        async throws(CryptoError) -> HashingOutcome<PasswordCheck>
    {
        let (engine, parameters, dummy) = (self.engine, self.parameters, self.dummy)
        return try await run(client: client) { () throws(CryptoError) in
            guard let stored else {
                _ = try engine.verify(password.utf8, encoded: dummy)
                return .mismatch
            }
            guard try engine.verify(password.utf8, encoded: stored) else { return .mismatch }
            guard Self.needsRehash(stored: stored, configured: parameters) else { return .match(rehashed: nil) }
            // A failed rehash leaves the old hash in place: the sign-in itself succeeded.
            return .match(rehashed: try? engine.hash(password.utf8, parameters: parameters))
        }
    }

    /// Whether the password is `user`'s, whichever hash it has: an imported one (``AccountUser/legacyPasswordHash``) is
    /// checked against `typed`, the password's bytes as the user typed them (the old system did not normalise), and
    /// a match comes with the argon2id hash of `password` made the normal way in the same job; otherwise as
    /// ``verify(_:against:client:)`` (nil `user`: the dummy hash). One job of the pool either way, charged to the
    /// budget: an imported hash costs about what argon2id does (docs/ACCOUNTS.md "Imported users").
    package func verify(_ password: NormalizedPassword, typed: [UInt8], of user: AccountUser?, client: ClientKey)
        async throws(CryptoError) -> HashingOutcome<PasswordCheck>
    {
        guard let legacy = user?.legacyPasswordHash else {
            return try await verify(password, against: user?.passwordHash, client: client)
        }
        let (engine, parameters, firebase) = (self.engine, self.parameters, self.firebase)
        let refused = refusedLegacyHash
        return try await run(client: client) { () throws(CryptoError) in
            // A row that does not parse or passes the bounds (written by hand: the import refuses such rows) matches
            // nothing, and is reported without its text; the same parser and bound as the import's.
            let hash: LegacyPasswordHash
            do throws(LegacyPasswordHash.Refusal) {
                hash = try LegacyPasswordHash(encoded: legacy)
            } catch {
                refused?(error)
                return .mismatch
            }
            guard try hash.verify(typed, firebase: firebase) else { return .mismatch }
            // A failed rehash leaves the imported hash in place, to be upgraded at the next sign-in.
            return .match(rehashed: try? engine.hash(password.utf8, parameters: parameters))
        }
    }

    /// Whether `stored` was made with less memory or fewer passes than `configured` (or is no argon2id PHC string
    /// at all), so that a successful sign-in should store a new hash. A stronger stored hash is kept: lowering the
    /// configuration does not weaken existing hashes.
    package static func needsRehash(stored: String, configured: Argon2id.Parameters) -> Bool {
        guard let current = Argon2id.Parameters(encoded: stored) else { return true }
        return current.memoryKiB < configured.memoryKiB || current.iterations < configured.iterations
    }

    /// The pool's queue and the hashes' durations now.
    package func snapshot() -> HashingSnapshot {
        let depth = pool.depth
        return stats.withLock { stats in
            HashingSnapshot(
                queued: depth.waiting, running: depth.running, completed: stats.completed,
                totalDuration: stats.total, longestDuration: stats.longest, limited: stats.limited, busy: stats.busy)
        }
    }

    /// Charges the budget, asks the pool, and runs `work` there while this task waits.
    private func run<Value: Sendable>(
        client: ClientKey, _ work: @escaping @Sendable () throws(CryptoError) -> Value
    ) async throws(CryptoError) -> HashingOutcome<Value> {
        if case .limited(let seconds) = budget.take(for: client) {
            stats.withLock { $0.limited += 1 }
            return .limited(retryAfterSeconds: seconds)
        }
        let result: Result<Value, CryptoError>? = await withCheckedContinuation { continuation in
            let refusal = pool.submit(client: client) { [self] in
                let clock = ContinuousClock()
                let started = clock.now
                let result = Result { () throws(CryptoError) in try work() }
                record(clock.now - started)
                return { continuation.resume(returning: result) }
            }
            if refusal != nil { continuation.resume(returning: nil) }
        }
        guard let result else {
            let mean = stats.withLock { stats in
                stats.busy += 1
                return stats.mean
            }
            return .busy(retryAfterSeconds: retryAfter(mean: mean))
        }
        return .done(try result.get())
    }

    /// How long until the queue as it is now has drained, in whole seconds, at least 1.
    private func retryAfter(mean: Duration) -> Int {
        let depth = pool.depth
        let jobsPerThread = Double(depth.waiting + depth.running) / Double(pool.size)
        let seconds = (jobsPerThread * Self.seconds(mean)).rounded(.up)
        return max(1, Int(min(seconds, 3600)))
    }

    private func record(_ duration: Duration) {
        stats.withLock { stats in
            stats.completed += 1
            stats.total += duration
            stats.longest = max(stats.longest, duration)
            // An exponentially weighted mean (weight 1/8), cheap and quick to follow a slower machine.
            stats.mean = stats.mean * 0.875 + duration * 0.125
        }
        reporter?(duration)
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
