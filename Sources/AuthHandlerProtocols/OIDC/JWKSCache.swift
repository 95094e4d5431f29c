import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerSystem
import Foundation

/// Fetches and caches providers' key sets by `jwks_uri`, refetching once for an unknown `kid`.
///
/// An unknown `kid` usually means the provider rotated its keys, so the set is fetched again, but never
/// more often than `refetchInterval` per URI: a stream of tokens with invented `kid`s must not make the
/// handler hammer the IdP. Failed fetches count towards that limit too. Concurrent fetches of one URI
/// share a single request.
package actor JWKSCache {
    private struct Entry {
        var keySet: JSONWebKeySet?
        var fetchedAt: Date?
        var attemptedAt: Date
        var failure: OIDCError?
        /// When a token's unknown `kid` last caused a refetch; such refetches are rate-limited separately,
        /// so that a rotation right after a routine fetch is still picked up.
        var rotationRefetchAt: Date?
    }

    private let http: any HTTPFetching
    private let timeToLive: TimeInterval
    private let refetchInterval: TimeInterval
    private let requestTimeout: Duration
    private let now: WallClock
    private let reportSkipped: @Sendable (_ jwksURI: String, _ skipped: [JSONWebKeySet.SkippedKey]) -> Void
    private var entries: [String: Entry] = [:]
    private var inFlight = SingleFlight<String, JSONWebKeySet, OIDCError>()

    /// - Parameters:
    ///   - timeToLive: how long a fetched set is used before it is fetched again (default one hour).
    ///   - refetchInterval: the shortest time between two fetches of one URI (default 10 s).
    ///   - now: the clock, injected so tests can move time.
    ///   - reportSkipped: told, once per fetch, the entries of a fetched set that were skipped as unusable and why
    ///     (with the URI without its query), so that they can be logged; the flow hands them to its observer.
    package init(
        http: any HTTPFetching, timeToLive: TimeInterval = 3600, refetchInterval: TimeInterval = 10,
        requestTimeout: Duration = .seconds(10), now: @escaping WallClock = systemWallClock,
        reportSkipped: @escaping @Sendable (_ jwksURI: String, _ skipped: [JSONWebKeySet.SkippedKey]) -> Void = {
            _, _ in
        }
    ) {
        self.http = http
        self.timeToLive = timeToLive
        self.refetchInterval = refetchInterval
        self.requestTimeout = requestTimeout
        self.now = now
        self.reportSkipped = reportSkipped
    }

    /// The keys that may verify an `algorithm` signature from the set at `jwksURI`.
    ///
    /// With a `keyID`: the keys with that `kid`, refetching the set once (rate-limited) when there are none.
    /// Without: the one key of the algorithm's type, when the set has exactly one.
    package func keys(jwksURI: String, keyID: String?, algorithm: JWSAlgorithm) async throws(OIDCError) -> [PublicKey] {
        try OIDCURLPolicy.check(jwksURI, field: "jwks_uri")
        let current = now()
        let (cached, fetchedNow) = try await currentSet(jwksURI, now: current)
        var keySet = cached
        guard let keyID else {
            let candidates = keySet.candidates(keyID: nil, algorithm: algorithm)
            guard candidates.count == 1 else {
                throw .keyNotIdentified(algorithm: algorithm, candidates: candidates.count)
            }
            return candidates
        }
        var candidates = keySet.candidates(keyID: keyID, algorithm: algorithm)
        if candidates.isEmpty, !fetchedNow {
            let later = now()
            if mayRefetchForRotation(jwksURI, now: later) {
                entries[jwksURI]?.rotationRefetchAt = later
                keySet = try await fetch(jwksURI, now: later)
                candidates = keySet.candidates(keyID: keyID, algorithm: algorithm)
            }
        }
        guard !candidates.isEmpty else {
            throw .unknownKeyID(kid: keyID, algorithm: algorithm, skipped: keySet.skipped(keyID: keyID))
        }
        return candidates
    }

    /// Drops every cached set (for a configuration reload).
    package func removeAll() {
        entries.removeAll()
    }

    /// The cached set while fresh (and `false`); otherwise a fetch (and `true`), or the last failure while
    /// fetches are rate-limited.
    private func currentSet(_ uri: String, now: Date) async throws(OIDCError) -> (JSONWebKeySet, Bool) {
        if let entry = entries[uri] {
            if let keySet = entry.keySet, let fetchedAt = entry.fetchedAt,
                now.timeIntervalSince(fetchedAt) < timeToLive
            {
                return (keySet, false)
            }
            if !inFlight.isRunning(uri), let failure = entry.failure, !mayFetch(uri, now: now) {
                throw failure
            }
        }
        return (try await fetch(uri, now: now), true)
    }

    /// Whether an unknown `kid` may refetch the set now: at most once per `refetchInterval`, and never while
    /// the last fetch failed within it (an IdP that is down is not hammered).
    private func mayRefetchForRotation(_ uri: String, now: Date) -> Bool {
        if inFlight.isRunning(uri) { return true }
        guard let entry = entries[uri] else { return true }
        if entry.failure != nil, now.timeIntervalSince(entry.attemptedAt) < refetchInterval { return false }
        guard let last = entry.rotationRefetchAt else { return true }
        return now.timeIntervalSince(last) >= refetchInterval
    }

    /// Whether the rate limit lets a new fetch of `uri` start now (a fetch already running may be joined).
    private func mayFetch(_ uri: String, now: Date) -> Bool {
        if inFlight.isRunning(uri) { return true }
        guard let attemptedAt = entries[uri]?.attemptedAt else { return true }
        return now.timeIntervalSince(attemptedAt) >= refetchInterval
    }

    private func fetch(_ uri: String, now startedAt: Date) async throws(OIDCError) -> JSONWebKeySet {
        let fetch = inFlight.join(uri) {
            let http = self.http
            let timeout = requestTimeout
            if entries[uri] == nil {
                entries[uri] = Entry(
                    keySet: nil, fetchedAt: nil, attemptedAt: startedAt, failure: nil, rotationRefetchAt: nil)
            } else {
                entries[uri]?.attemptedAt = startedAt
            }
            return Task {
                let result = await Self.download(uri, http: http, timeout: timeout)
                self.finish(uri, result: result, startedAt: startedAt)
                return result
            }
        }
        return try await fetch.value.get()
    }

    private func finish(_ uri: String, result: Result<JSONWebKeySet, OIDCError>, startedAt: Date) {
        inFlight.end(uri)
        switch result {
        case .success(let keySet):
            if !keySet.skipped.isEmpty { reportSkipped(Redaction.target(uri), keySet.skipped) }
            let rotationRefetchAt = entries[uri]?.rotationRefetchAt
            entries[uri] = Entry(
                keySet: keySet, fetchedAt: startedAt, attemptedAt: startedAt, failure: nil,
                rotationRefetchAt: rotationRefetchAt)
        case .failure(let error):
            entries[uri]?.failure = error
        }
    }

    private static func download(_ uri: String, http: any HTTPFetching, timeout: Duration) async
        -> Result<JSONWebKeySet, OIDCError>
    {
        do throws(OIDCError) {
            let body = try await OIDCDocumentFetch.get(uri, document: .keySet, http: http, timeout: timeout)
            return .success(try JSONWebKeySet(parsing: body, url: Redaction.target(uri)))
        } catch {
            return .failure(error)
        }
    }
}
