/// What a request that would hash gets from ``PasswordHasher``.
package enum HashingOutcome<Value: Sendable>: Sendable {
    /// The hash was made or checked.
    case done(Value)
    /// The client's ``HashingBudget`` is spent: `429 too-many-requests` with `Retry-After`, nothing was hashed.
    case limited(retryAfterSeconds: Int)
    /// The hashing pool's queue is full, or holds this client's 2 entries already: `503 unavailable` with
    /// `Retry-After`, nothing was hashed (and the budget's token is spent).
    case busy(retryAfterSeconds: Int)
}

extension HashingOutcome: Equatable where Value: Equatable {}

/// The answer of ``PasswordHasher/verify(_:against:client:)``.
package enum PasswordCheck: Sendable, Equatable {
    /// Not the password (or no password at all: an unknown e-mail, a user without a password).
    case mismatch
    /// The password; `rehashed` is a new PHC string at the configured parameters when the stored one was made with
    /// weaker ones (issue 25 §3): the caller stores it.
    case match(rehashed: String?)
}

/// The hashing pool's state for `/metrics`: queue depth now, and how long hashes took.
package struct HashingSnapshot: Sendable, Equatable {
    /// Jobs waiting for a thread.
    package var queued: Int
    /// Jobs running.
    package var running: Int
    /// Hash or verify jobs finished (a verify that rehashes counts once).
    package var completed: Int
    /// Their summed duration (a Prometheus summary's `_sum`; `completed` is its `_count`).
    package var totalDuration: Duration
    /// The longest one.
    package var longestDuration: Duration
    /// Requests refused with ``HashingOutcome/limited(retryAfterSeconds:)``.
    package var limited: Int
    /// Requests refused with ``HashingOutcome/busy(retryAfterSeconds:)``.
    package var busy: Int
}
