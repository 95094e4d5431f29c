/// The guessing throttle a password sign-in consults (issue 25 §3 "Guessing is throttled"): ``check(email:client:deviceCookie:)``
/// before hashing, then ``recordFailure(email:client:)`` or ``recordSuccess(email:client:)`` after.
///
/// This is the seam between the endpoint and where the counters live. ``SignInThrottle`` keeps them in memory, per
/// instance, which is exact for one daemon; several instances behind one database need the counters in the accounts'
/// store, which will provide its own conformance, so that the endpoint does not change: the requirements are `async`
/// for it (the in-memory one answers at once), and a store that cannot answer decides there whether to refuse or
/// admit.
package protocol SignInThrottling: Sendable {
    /// Whether a sign-in for `email` (the normalised form, whether or not an account has it) from `client` may
    /// hash a password now; `deviceCookie` is the device cookie's value the request carried, if any.
    func check(email: String, client: ClientKey, deviceCookie: String?) async -> SignInAdmission
    /// A wrong password (or an unknown e-mail) for `email` from `client`.
    func recordFailure(email: String, client: ClientKey) async
    /// The right password: clears the pair's failures and the e-mail's consecutive count.
    func recordSuccess(email: String, client: ClientKey) async
}

/// The throttle's answer before a sign-in hashes.
package enum SignInAdmission: Sendable, Hashable {
    /// Go on and check the password.
    case allowed
    /// `429 too-many-requests` with `Retry-After: retryAfterSeconds` (≥ 1), nothing hashed.
    case throttled(retryAfterSeconds: Int)
    /// The database that keeps the shared counters did not answer within its statement timeout:
    /// `503 unavailable` now, nothing hashed. Admitting the sign-in instead would send it to wait for the same
    /// database once more, doubling the wait that docs/OPERATIONS.md ("What each outage does") bounds by one
    /// `statementTimeoutMs`.
    case unavailable
}
