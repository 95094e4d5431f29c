import AuthHandlerCore
import AuthHandlerCrypto
import AuthHandlerHTTP
import Foundation

/// A request the fake IdP received, kept for test assertions (`GET /__fake/requests`).
package struct FakeRecordedRequest: Decodable, Sendable, Equatable {
    package var method: String
    package var path: String
    package var query: String
    package var headers: [String: String]
    package var body: String
    /// Seconds since 1970 on the fake IdP's clock.
    package var time: Double
}

extension FakeRecordedRequest: JSONWritable {
    /// The request as `GET /__fake/requests` lists it.
    package var json: JSONValue {
        .object([
            "method": .string(method), "path": .string(path), "query": .string(query),
            "headers": .object(headers.mapValues(JSONValue.string)), "body": .string(body), "time": .number(time),
        ])
    }
}

/// An OAuth 1.0a request token between `request_token` and `access_token`.
struct FakeRequestToken: Sendable {
    var token: String
    var secret: String
    var consumerKey: String
    var callback: String
    var issuedAt: Date
    /// Set when the user approved: the verifier and who approved.
    var verifier: String?
    var userID: String?
}

/// An OAuth 1.0a access token and its secret.
struct FakeOAuth1AccessToken: Sendable {
    var secret: String
    var consumerKey: String
    var userID: String
}

/// What an OAuth 2 grant gives: access for one client, to one scope, on behalf of one user (RFC 6749 §1.3). An
/// authorization code carries it to the token endpoint, and the access and refresh tokens issued for it keep it.
struct FakeOAuth2Grant: Sendable {
    var clientID: String
    var scope: String
    var userID: String
}

/// An OAuth 2 authorization code waiting for the token endpoint.
struct FakeAuthorizationCode: Sendable {
    var grant: FakeOAuth2Grant
    var redirectURI: String
    var nonce: String?
    var codeChallenge: String?
    var issuedAt: Date
}

/// An OAuth 2 access or refresh token.
struct FakeOAuth2Token: Sendable {
    var grant: FakeOAuth2Grant
    var expiresAt: Date
}

/// Everything the fake IdP remembers between requests. One actor, so each check-and-consume is atomic.
actor FakeIdPState {
    let configuration: FakeIdPConfiguration
    private var clockOffset: TimeInterval = 0
    private var requestTokens: [String: FakeRequestToken] = [:]
    private var oauth1AccessTokens: [String: FakeOAuth1AccessToken] = [:]
    /// `consumer key \n timestamp \n nonce` of every signed request inside the timestamp window.
    private var seenNonces: [String: Date] = [:]
    private var codes: [String: FakeAuthorizationCode] = [:]
    private var accessTokens: [String: FakeOAuth2Token] = [:]
    private var refreshTokens: [String: FakeOAuth2Token] = [:]
    private var failures = FakeFailureQueue()
    private var recorded: [FakeRecordedRequest] = []
    /// Federated ids (`providerId:subject`) the fake backend has signed in before, with their local id.
    private var backendAccounts: [String: String] = [:]
    private static let recordLimit = 1000
    /// The RS256 key that signs ID tokens (and the fake backend's tokens); only its public half is in the JWKS.
    private(set) var signingKey: SigningKey
    private var keyGeneration = 1
    /// Keys made when a `rotate-keys` failure was queued, taken in order by the rotations.
    private(set) var preparedKeys: [SigningKey] = []
    /// The most keys one queued failure prepares; further rotations make theirs when they happen.
    static let preparedKeyLimit = 4

    init(configuration: FakeIdPConfiguration) throws {
        self.configuration = configuration
        signingKey = try FakeIdPState.initialKey.get()
    }

    /// The first signing key, made once per process and shared by every fake IdP in it.
    ///
    /// Why shared: an RSA-2048 key takes tens of milliseconds of CPU to generate, and a test process starts
    /// hundreds of fake IdPs on two cores; generating one each starved their request handlers. A fake IdP
    /// has nothing to protect, and `rotate-keys` still makes fresh, per-instance keys.
    static let initialKey: Result<SigningKey, CryptoError> = Result { () throws(CryptoError) in
        try SigningKey.generate(.rs256, keyID: "fake-key-1")
    }

    /// Replaces the signing key: a new `kid`, and the old key leaves the JWKS.
    ///
    /// The key was made when the failure was queued (`prepareRotation`), so the answer that rotates is not held up
    /// by RSA key generation, whose time varies widely (tens of milliseconds, seconds on a loaded machine) and could
    /// otherwise push the answer past the daemon's provider time-out.
    func rotateKeys() throws {
        keyGeneration += 1
        signingKey =
            preparedKeys.isEmpty
            ? try SigningKey.generate(.rs256, keyID: "fake-key-\(keyGeneration)") : preparedKeys.removeFirst()
    }

    /// Makes the keys `count` queued rotations will install, named by the generations they will be.
    private func prepareRotation(count: Int) throws {
        for _ in 0..<count {
            let generation = keyGeneration + preparedKeys.count + 1
            preparedKeys.append(try SigningKey.generate(.rs256, keyID: "fake-key-\(generation)"))
        }
    }

    /// The `short-coordinate-key` failure's ES256 key and its JWK as published, with the x coordinate's leading zero
    /// byte dropped (31 bytes); in the JWKS from its first use until `reset`.
    private(set) var shortCoordinateKey: (key: SigningKey, published: JWK)?

    /// The `short-coordinate-key` failure's key, made on first use: P-256 keys are drawn until one's x coordinate
    /// begins with a zero byte (one in 256 does).
    func shortCoordinateSigningKey() throws -> SigningKey {
        if let shortCoordinateKey { return shortCoordinateKey.key }
        for _ in 0..<8192 {
            let key = try SigningKey.generate(.es256, keyID: "fake-short-coordinate-key")
            var jwk = key.publicKey.jwk
            guard let x = jwk.x.flatMap(Base64.urlDecode), x.first == 0 else { continue }
            jwk.x = Base64.urlEncode(Array(x.dropFirst()))
            jwk.alg = JWSAlgorithm.es256.rawValue
            jwk.use = "sig"
            shortCoordinateKey = (key, jwk)
            return key
        }
        throw CryptoError(operation: "short-coordinate-key", detail: "no P-256 key with a leading zero byte in x")
    }

    // MARK: Clock

    /// The fake IdP's clock: the real time plus whatever the control API advanced it by.
    func now() -> Date {
        Date().addingTimeInterval(clockOffset)
    }

    func advanceClock(seconds: TimeInterval) {
        clockOffset += seconds
    }

    // MARK: Control API

    func queue(_ failure: FakeFailure) {
        // A key that cannot be made now is made by the rotation, which answers 500 with the error.
        if failure.kind == .rotateKeys { try? prepareRotation(count: min(failure.count, Self.preparedKeyLimit)) }
        failures.add(failure)
    }

    func nextFailure(for endpoint: FakeEndpoint) -> FakeFailureKind? {
        failures.next(for: endpoint)
    }

    func pendingFailures() -> [FakeFailure] {
        failures.pending
    }

    func record(_ request: FakeRecordedRequest) {
        recorded.append(request)
        if recorded.count > Self.recordLimit { recorded.removeFirst(recorded.count - Self.recordLimit) }
    }

    func recordedRequests() -> [FakeRecordedRequest] {
        recorded
    }

    /// Forgets queued failures only.
    func clearFailures() {
        failures.removeAll()
        preparedKeys.removeAll()
    }

    /// Forgets recorded requests only.
    func clearRequests() {
        recorded.removeAll()
    }

    /// Forgets queued failures and recorded requests (tokens and codes stay valid).
    func reset() {
        failures.removeAll()
        preparedKeys.removeAll()
        recorded.removeAll()
        shortCoordinateKey = nil
    }

    // MARK: OAuth 1.0a

    /// Records a nonce; false when the same consumer used it with the same timestamp before.
    func useNonce(consumerKey: String, timestamp: String, nonce: String) -> Bool {
        let current = now()
        let window = TimeInterval(configuration.timestampWindowSeconds)
        seenNonces = seenNonces.filter { current.timeIntervalSince($0.value) <= 2 * window }
        let key = "\(consumerKey)\n\(timestamp)\n\(nonce)"
        if seenNonces[key] != nil { return false }
        seenNonces[key] = current
        return true
    }

    func issueRequestToken(consumerKey: String, callback: String) throws -> FakeRequestToken {
        let token = FakeRequestToken(
            token: try SecureRandom.base64URLString(byteCount: 24),
            secret: try SecureRandom.base64URLString(byteCount: 24),
            consumerKey: consumerKey, callback: callback, issuedAt: now())
        requestTokens[token.token] = token
        return token
    }

    /// The request token if it exists and has not expired.
    func requestToken(_ token: String) -> FakeRequestToken? {
        guard let entry = requestTokens[token] else { return nil }
        guard now().timeIntervalSince(entry.issuedAt) <= TimeInterval(configuration.requestTokenLifetimeSeconds) else {
            requestTokens[token] = nil
            return nil
        }
        return entry
    }

    /// Marks the request token approved by `userID`; returns the verifier.
    func approveRequestToken(_ token: String, userID: String) throws -> String? {
        guard var entry = requestToken(token), entry.verifier == nil else { return nil }
        let verifier = try SecureRandom.base64URLString(byteCount: 16)
        entry.verifier = verifier
        entry.userID = userID
        requestTokens[token] = entry
        return verifier
    }

    /// Removes the request token on denial, so it can never be exchanged.
    func denyRequestToken(_ token: String) {
        requestTokens[token] = nil
    }

    /// Consumes the request token (single use) whatever the outcome of the checks that follow.
    func consumeRequestToken(_ token: String) -> FakeRequestToken? {
        guard let entry = requestToken(token) else { return nil }
        requestTokens[token] = nil
        return entry
    }

    func issueOAuth1AccessToken(consumerKey: String, userID: String) throws -> (token: String, secret: String) {
        let token = "\(userID)-" + (try SecureRandom.base64URLString(byteCount: 24))
        let secret = try SecureRandom.base64URLString(byteCount: 24)
        oauth1AccessTokens[token] = FakeOAuth1AccessToken(secret: secret, consumerKey: consumerKey, userID: userID)
        return (token, secret)
    }

    func oauth1AccessToken(_ token: String) -> FakeOAuth1AccessToken? {
        oauth1AccessTokens[token]
    }

    // MARK: OAuth 2

    func issueCode(_ code: FakeAuthorizationCode) throws -> String {
        let value = try SecureRandom.base64URLString(byteCount: 32)
        codes[value] = code
        return value
    }

    /// Consumes the code (single use): a second redemption finds nothing.
    func consumeCode(_ value: String) -> FakeAuthorizationCode? {
        codes.removeValue(forKey: value)
    }

    func issueTokens(for grant: FakeOAuth2Grant) throws -> (access: String, refresh: String) {
        let expiresAt = now().addingTimeInterval(TimeInterval(configuration.accessTokenLifetimeSeconds))
        let token = FakeOAuth2Token(grant: grant, expiresAt: expiresAt)
        let access = try SecureRandom.base64URLString(byteCount: 32)
        let refresh = try SecureRandom.base64URLString(byteCount: 32)
        accessTokens[access] = token
        refreshTokens[refresh] = token
        return (access, refresh)
    }

    /// A bearer access token that has not expired.
    func accessToken(_ value: String) -> FakeOAuth2Token? {
        guard let token = accessTokens[value], token.expiresAt > now() else { return nil }
        return token
    }

    func consumeRefreshToken(_ value: String) -> FakeOAuth2Token? {
        refreshTokens.removeValue(forKey: value)
    }

    // MARK: Backend

    /// The local id for a federated id, and whether it was created now.
    func backendAccount(federatedID: String, linkingTo localID: String?) -> (localID: String, isNew: Bool)? {
        if let existing = backendAccounts[federatedID] {
            if let localID, localID != existing { return nil }
            return (existing, false)
        }
        let local = localID ?? "uid-\(backendAccounts.count + 1)"
        backendAccounts[federatedID] = local
        return (local, localID == nil)
    }
}
