/// Where a client keeps its ``AccountSession`` between launches: ``KeychainSessionStore`` on Apple platforms,
/// ``FileSessionStore`` elsewhere (Linux), ``MemorySessionStore`` for tests and for a session that must not outlive
/// the process.
///
/// The client calls these from its own actor, one at a time. A failure is `sessionStore(message:)`.
public protocol SessionStore: Sendable {
    /// The stored session, or nil when there is none.
    func load() throws(AuthHandlerClientError) -> AccountSession?
    /// Replaces the stored session with `session`.
    func save(_ session: AccountSession) throws(AuthHandlerClientError)
    /// Removes the stored session; nothing stored is not an error.
    func clear() throws(AuthHandlerClientError)
}
