import Foundation

/// A client's account session and everything that changes it, in one actor: the session, the one refresh in flight
/// (single-flight: concurrent callers share it), the ``SessionStore`` and the listeners of `authStateChanges`.
actor AccountState {
    /// A new ID token and refresh token, from `POST /__/auth/token` (RFC 6749 §5.1).
    struct Grant: Sendable {
        var idToken: String
        var refreshToken: String
    }

    /// How many seconds before its expiry an ID token is refreshed instead of handed out.
    static let refreshMargin: TimeInterval = 60

    let store: any SessionStore
    private(set) var session: AccountSession?
    private var refresh: Task<Result<String, AuthHandlerClientError>, Never>?
    /// Bumped by every sign-in and sign-out, so a refresh that started before one does not overwrite its outcome.
    private var generation = 0
    private var listeners: [UUID: AsyncStream<AccountUser?>.Continuation] = [:]

    init(store: any SessionStore) {
        self.store = store
    }

    var user: AccountUser? { session.flatMap { AccountUser(idToken: $0.idToken) } }

    /// Loads the stored session, if any, and tells the listeners.
    func restore() throws(AuthHandlerClientError) -> AccountUser? {
        let stored = try store.load()
        try change(to: stored)
        return user
    }

    /// Makes `session` the current one (nil: signed out), saves or clears it, and tells the listeners when the user
    /// changed. Any refresh in flight no longer counts.
    func change(to session: AccountSession?) throws(AuthHandlerClientError) {
        let before = user?.uid
        generation += 1
        self.session = session
        if let session { try store.save(session) } else { try store.clear() }
        if user?.uid != before { announce() }
    }

    /// The current ID token, refreshed with `grant` when `forceRefresh` or when it expires within
    /// ``refreshMargin``. Concurrent callers share one refresh. `invalid_grant` signs out.
    func idToken(
        forceRefresh: Bool, grant: @escaping @Sendable (String) async throws(AuthHandlerClientError) -> Grant
    ) async throws(AuthHandlerClientError) -> String {
        if let refresh { return try await refresh.value.get() }
        guard let session else { throw .signedOut(message: "no user is signed in: sign in first") }
        if !forceRefresh, let expiry = user?.expiresAt, expiry.timeIntervalSinceNow > Self.refreshMargin {
            return session.idToken
        }
        let started = generation
        // The task runs on this actor (a `Task` made here inherits its isolation) except while `grant` waits.
        let task = Task { () -> Result<String, AuthHandlerClientError> in
            let outcome: Result<Grant, AuthHandlerClientError>
            do throws(AuthHandlerClientError) {
                outcome = .success(try await grant(session.refreshToken))
            } catch {
                outcome = .failure(error)
            }
            return self.finish(outcome, started: started)
        }
        refresh = task
        return try await task.value.get()
    }

    /// Applies a refresh's outcome unless a sign-in or sign-out came first.
    private func finish(_ outcome: Result<Grant, AuthHandlerClientError>, started: Int) -> Result<
        String, AuthHandlerClientError
    > {
        refresh = nil
        guard started == generation else {
            return .failure(.signedOut(message: "the user signed in or out while the ID token was being refreshed"))
        }
        do {
            switch outcome {
            case .success(let grant):
                try change(to: AccountSession(refreshToken: grant.refreshToken, idToken: grant.idToken))
                return .success(grant.idToken)
            case .failure(.invalidGrant(let message)):
                try change(to: nil)
                return .failure(.signedOut(message: "the session ended (\(message)); sign in again"))
            case .failure(let error):
                return .failure(error)
            }
        } catch {
            return .failure(error)
        }
    }

    /// Adds a listener: it gets the current user at once, then each sign-in and sign-out.
    func listen(_ continuation: AsyncStream<AccountUser?>.Continuation) {
        let id = UUID()
        listeners[id] = continuation
        continuation.onTermination = { _ in Task { await self.removeListener(id) } }
        continuation.yield(user)
    }

    private func removeListener(_ id: UUID) {
        listeners[id] = nil
    }

    private func announce() {
        let current = user
        for continuation in listeners.values { continuation.yield(current) }
    }
}
