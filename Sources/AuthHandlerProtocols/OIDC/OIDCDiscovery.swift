import AuthHandlerHTTP
import AuthHandlerSystem
import Foundation
import Synchronization

/// Fetches and caches OpenID Provider metadata per issuer (OpenID Connect Discovery 1.0 §4).
///
/// The document must name exactly the configured issuer (§4.3) and only https (or loopback http)
/// endpoints. Documents are cached for `timeToLive`; concurrent first requests for one issuer share a
/// single fetch. A failed fetch is remembered for `failureTTL` (default 30 seconds): during that window
/// the same error is thrown without a fetch, so a provider that is down is not asked again by every
/// start; after it, the next caller fetches once more.
package actor OIDCDiscovery {
    /// The path appended to the issuer (§4.1).
    package static let wellKnownPath = "/.well-known/openid-configuration"

    private let http: any HTTPFetching
    private let timeToLive: TimeInterval
    private let failureTTL: TimeInterval
    private let requestTimeout: Duration
    private let now: WallClock
    /// Fetched documents, under a lock of their own so that ``cachedMetadata(for:documentIssuer:)`` can read them
    /// without waiting for the actor.
    private let cached = Mutex<[String: (metadata: OIDCProviderMetadata, fetchedAt: Date)]>([:])
    private var failed: [String: (error: OIDCError, failedAt: Date)] = [:]
    private var inFlight = SingleFlight<String, OIDCProviderMetadata, OIDCError>()

    /// - Parameters:
    ///   - timeToLive: how long a fetched document is used before it is fetched again (default one hour).
    ///   - failureTTL: how long a failed fetch is answered from memory before it is tried again (default 30 s).
    ///   - now: the clock, injected so tests can move time.
    package init(
        http: any HTTPFetching, timeToLive: TimeInterval = 3600, failureTTL: TimeInterval = 30,
        requestTimeout: Duration = .seconds(10), now: @escaping WallClock = systemWallClock
    ) {
        self.http = http
        self.timeToLive = timeToLive
        self.failureTTL = failureTTL
        self.requestTimeout = requestTimeout
        self.now = now
    }

    /// The metadata for `issuer`, from the cache or fetched.
    ///
    /// - Parameter documentIssuer: the `issuer` value the document must carry when the provider documents
    ///   one different from the URL it is fetched under (Microsoft's multi-tenant documents say
    ///   `https://login.microsoftonline.com/{tenantid}/v2.0`); nil means `issuer` itself, as §4.3 requires.
    package func metadata(for issuer: String, documentIssuer: String? = nil) async throws(OIDCError)
        -> OIDCProviderMetadata
    {
        let key = Self.cacheKey(issuer: issuer, documentIssuer: documentIssuer)
        let current = now()
        if let metadata = fresh(key, at: current) { return metadata }
        if let failure = failed[key], current.timeIntervalSince(failure.failedAt) < failureTTL {
            throw failure.error
        }
        let fetch = inFlight.join(key) {
            let http = self.http
            let timeout = requestTimeout
            return Task {
                let result = await Self.fetch(
                    issuer: issuer, documentIssuer: documentIssuer ?? issuer, http: http, timeout: timeout)
                self.finish(key: key, result: result)
                return result
            }
        }
        return try await fetch.value.get()
    }

    /// Whether ``metadata(for:documentIssuer:)`` would answer now without a call of its own to the provider: a
    /// document within `timeToLive`, a failure within `failureTTL`, or a fetch already in flight (the caller shares
    /// it). False only when a call would start, so that only a start that makes the provider work is counted
    /// against the start rate limit (HTTP-API.md §2.4, `startRateLimit`).
    package func isCached(issuer: String, documentIssuer: String? = nil) -> Bool {
        let key = Self.cacheKey(issuer: issuer, documentIssuer: documentIssuer)
        if inFlight.isRunning(key) { return true }
        let current = now()
        if fresh(key, at: current) != nil { return true }
        if let failure = failed[key], current.timeIntervalSince(failure.failedAt) < failureTTL { return true }
        return false
    }

    /// The document for `issuer` when one fetched within `timeToLive` is at hand; nil otherwise, without fetching or
    /// waiting (a start answered on the listener's thread, HTTP-API.md §3.1, falls back to ``metadata(for:documentIssuer:)``).
    package nonisolated func cachedMetadata(for issuer: String, documentIssuer: String? = nil) -> OIDCProviderMetadata?
    {
        fresh(Self.cacheKey(issuer: issuer, documentIssuer: documentIssuer), at: now())
    }

    private nonisolated func fresh(_ key: String, at current: Date) -> OIDCProviderMetadata? {
        cached.withLock { cached in
            guard let entry = cached[key], current.timeIntervalSince(entry.fetchedAt) < timeToLive else { return nil }
            return entry.metadata
        }
    }

    /// Drops every cached document and remembered failure (for a configuration reload).
    package func removeAll() {
        cached.withLock { $0.removeAll() }
        failed.removeAll()
    }

    private func finish(key: String, result: Result<OIDCProviderMetadata, OIDCError>) {
        inFlight.end(key)
        switch result {
        case .success(let metadata):
            let fetchedAt = now()
            cached.withLock { $0[key] = (metadata, fetchedAt) }
            failed[key] = nil
        case .failure(let error):
            failed[key] = (error, now())
        }
    }

    private static func cacheKey(issuer: String, documentIssuer: String?) -> String {
        issuer + "\u{0}" + (documentIssuer ?? "")
    }

    /// The discovery URL for `issuer`: a terminating `/` is removed before the well-known path (§4).
    static func discoveryURL(issuer: String) -> String {
        var base = Substring(issuer)
        while base.hasSuffix("/") { base = base.dropLast() }
        return base + wellKnownPath
    }

    private static func fetch(issuer: String, documentIssuer: String, http: any HTTPFetching, timeout: Duration)
        async -> Result<OIDCProviderMetadata, OIDCError>
    {
        do throws(OIDCError) {
            try OIDCURLPolicy.check(issuer, field: "issuer")
            let url = discoveryURL(issuer: issuer)
            let body = try await OIDCDocumentFetch.get(url, document: .discovery, http: http, timeout: timeout)
            let metadata = try decode(body, url: Redaction.target(url))
            guard metadata.issuer == documentIssuer else {
                throw .discoveryIssuerMismatch(expected: documentIssuer, received: metadata.issuer)
            }
            try OIDCURLPolicy.check(metadata.authorizationEndpoint, field: "authorization_endpoint")
            try OIDCURLPolicy.check(metadata.tokenEndpoint, field: "token_endpoint")
            if let userinfo = metadata.userinfoEndpoint {
                try OIDCURLPolicy.check(userinfo, field: "userinfo_endpoint")
            }
            try OIDCURLPolicy.check(metadata.jwksURI, field: "jwks_uri")
            return .success(metadata)
        } catch {
            return .failure(error)
        }
    }

    private static func decode(_ body: [UInt8], url: String) throws(OIDCError) -> OIDCProviderMetadata {
        do {
            return try JSONDecoder().decode(OIDCProviderMetadata.self, from: Data(body))
        } catch DecodingError.keyNotFound(let key, _) {
            throw .malformedDocument(
                .discovery, url: url, reason: "the required member \"\(key.stringValue)\" is missing")
        } catch DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context) {
            let member = context.codingPath.first?.stringValue ?? "document"
            throw .malformedDocument(.discovery, url: url, reason: "the member \"\(member)\" has the wrong type")
        } catch {
            throw .malformedDocument(.discovery, url: url, reason: "not a JSON object")
        }
    }
}
