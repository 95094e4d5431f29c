import Foundation
import Synchronization
import TestSupport
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerCrypto
@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols
@testable import auth_handler

struct OIDCJWKSCacheTests {
    static let uri = OIDCTestTokens.jwksURI

    @Test func keysAreFoundByKidAndAlgorithm() async throws {
        let rsa = try SigningKey.generate(.rs256, keyID: "r1")
        let ec = try SigningKey.generate(.es256, keyID: "e1")
        let http = ScriptedHTTP()
        http.serveKeys(Self.uri, [rsa.publicKey.jwk, ec.publicKey.jwk])
        let cache = JWKSCache(http: http)
        let found = try await cache.keys(jwksURI: Self.uri, keyID: "e1", algorithm: .es256)
        #expect(found.map(\.jwk) == [ec.publicKey.jwk])
        #expect(http.fetchCount(Self.uri) == 1)
    }

    /// A P-256 key whose x coordinate lost its leading zero byte: 31 bytes, where RFC 7518 §6.2.1.2 requires 32.
    static func shortCoordinate(_ jwk: JWK) throws -> JWK {
        var short = jwk
        short.x = Base64.urlEncode(Array(try #require(jwk.x.flatMap(Base64.urlDecode)).dropFirst()))
        return short
    }

    @Test func unusableKeysAreSkippedWithTheirReasonNotFatal() throws {
        let good = try SigningKey.generate(.rs256, keyID: "good")
        var encryption = good.publicKey.jwk
        encryption.kid = "enc"
        encryption.use = "enc"
        let short = try Self.shortCoordinate(try SigningKey.generate(.es256, keyID: "p256-short").publicKey.jwk)
        let json = { (jwk: JWK) in String(decoding: jwk.serialized, as: UTF8.self) }
        let body = """
            {"keys": [42, {"kty": "oct", "kid": "hmac", "k": "c2VjcmV0"},
                      {"kty": "RSA", "kid": "short", "n": "\(CryptoTestVectors.rsa1024Modulus)", "e": "AQAB"},
                      {"kty": "EC", "kid": "p384", "crv": "P-384", "x": "AA", "y": "AA"},
                      \(json(encryption)), \(json(short)), {"kid": "no-kty"},
                      \(json(good.publicKey.jwk))]}
            """
        let set = try JSONWebKeySet(parsing: Array(body.utf8), url: Self.uri)
        #expect(set.keys.map(\.keyID) == ["good"])
        #expect(set.skipped.map(\.index) == [0, 1, 2, 3, 4, 5, 6])
        #expect(set.skipped.map(\.keyID) == [nil, "hmac", "short", "p384", "enc", "p256-short", "no-kty"])
        let reasons = set.skipped.map(\.reason)
        #expect(reasons[0].hasPrefix("not a JWK"))
        #expect(reasons[1].contains("unsupported kty \"oct\""))
        #expect(reasons[2].contains("bits"))
        #expect(reasons[3].contains("P-384"))
        #expect(reasons[4].contains("use \"enc\""))
        #expect(reasons[5] == "P-256 coordinates must be 32 bytes each (RFC 7518 §6.2.1.2), got x 31 and y 32")
        #expect(reasons[6].hasPrefix("not a JWK"))
        #expect(set.skipped[5].description == "keys[5] (kid \"p256-short\"): " + reasons[5])
    }

    /// A reason quotes the IdP's members, so it is bounded.
    @Test func aSkippedKeysReasonIsBounded() throws {
        let body = "{\"keys\": [{\"kty\": \"" + String(repeating: "A", count: 5000) + "\"}]}"
        let set = try JSONWebKeySet(parsing: Array(body.utf8), url: Self.uri)
        #expect(set.skipped.count == 1)
        #expect(set.skipped.first?.reason.count == JSONWebKeySet.SkippedKey.maximumReasonLength + 1)
    }

    /// The refusal of a token whose key was skipped names that key and why, and the skipped keys are reported once
    /// per fetch, for the log (the flow's observer logs them as `event=oidc.jwks`).
    @Test func aSkippedKeyWithTheTokensKidIsNamedInTheRefusalAndReported() async throws {
        let good = try SigningKey.generate(.rs256, keyID: "good")
        let short = try Self.shortCoordinate(try SigningKey.generate(.es256, keyID: "p256-short").publicKey.jwk)
        let http = ScriptedHTTP()
        http.serveKeys(Self.uri, [good.publicKey.jwk, short])
        let reports = Mutex<[(String, [JSONWebKeySet.SkippedKey])]>([])
        let clock = TestClock()
        let cache = JWKSCache(
            http: http, refetchInterval: 10, now: clock.read,
            reportSkipped: { uri, skipped in reports.withLock { $0.append((uri, skipped)) } })
        let error = await oidcError { () async throws(OIDCError) in
            try await cache.keys(jwksURI: Self.uri, keyID: "p256-short", algorithm: .es256)
        }
        let skipped = JSONWebKeySet.SkippedKey(
            index: 1, keyID: "p256-short",
            reason: "P-256 coordinates must be 32 bytes each (RFC 7518 §6.2.1.2), got x 31 and y 32")
        #expect(error == .unknownKeyID(kid: "p256-short", algorithm: .es256, skipped: [skipped]))
        #expect(
            error?.description
                == "no ES256 key with kid \"p256-short\" in the provider's JWKS, even after refetching it; the JWKS has "
                + "a key with that kid, skipped as unusable: keys[1] (kid \"p256-short\"): P-256 coordinates must be 32 "
                + "bytes each (RFC 7518 §6.2.1.2), got x 31 and y 32")
        #expect(reports.withLock { $0.map(\.0) } == [Self.uri])
        #expect(reports.withLock { $0.map(\.1) } == [[skipped]])
        // A cached set is not reported again; a kid that is simply absent is not blamed on the skipped key, and the
        // refetch it causes (at most one per refetchInterval) reports what that fetch skipped.
        _ = try await cache.keys(jwksURI: Self.uri, keyID: "good", algorithm: .rs256)
        #expect(reports.withLock { $0.count } == 1)
        clock.advance(by: 10)
        let other = await oidcError { () async throws(OIDCError) in
            try await cache.keys(jwksURI: Self.uri, keyID: "absent", algorithm: .es256)
        }
        #expect(other == .unknownKeyID(kid: "absent", algorithm: .es256))
        #expect(http.fetchCount(Self.uri) == 2)
        #expect(reports.withLock { $0.count } == 2)
    }

    @Test func documentWithoutKeysArrayIsMalformed() {
        #expect(
            throws: OIDCError.malformedDocument(
                .keySet, url: Self.uri, reason: "not a JSON object with a \"keys\" array")
        ) {
            try JSONWebKeySet(parsing: Array("{\"key\": []}".utf8), url: Self.uri)
        }
    }

    @Test func timeToLiveIsHonoured() async throws {
        let key = try SigningKey.generate(.es256, keyID: "k")
        let http = ScriptedHTTP()
        http.serveKeys(Self.uri, [key.publicKey.jwk])
        let clock = TestClock()
        let cache = JWKSCache(http: http, timeToLive: 600, now: clock.read)
        _ = try await cache.keys(jwksURI: Self.uri, keyID: "k", algorithm: .es256)
        clock.advance(by: 599)
        _ = try await cache.keys(jwksURI: Self.uri, keyID: "k", algorithm: .es256)
        #expect(http.fetchCount(Self.uri) == 1)
        clock.advance(by: 1)
        _ = try await cache.keys(jwksURI: Self.uri, keyID: "k", algorithm: .es256)
        #expect(http.fetchCount(Self.uri) == 2)
    }

    /// A cache that fetched a set holding only `old`, may refetch every 10 s, and `seconds` later is asked for `new`,
    /// which the provider rotated to in the meantime: the unknown `kid` is fetched again and found.
    private static func rotatedCache(after seconds: Double) async throws -> (ScriptedHTTP, TestClock, JWKSCache) {
        let old = try SigningKey.generate(.es256, keyID: "old")
        let new = try SigningKey.generate(.es256, keyID: "new")
        let http = ScriptedHTTP()
        http.serveKeys(Self.uri, [old.publicKey.jwk])
        let clock = TestClock()
        let cache = JWKSCache(http: http, refetchInterval: 10, now: clock.read)
        _ = try await cache.keys(jwksURI: Self.uri, keyID: "old", algorithm: .es256)
        http.serveKeys(Self.uri, [new.publicKey.jwk])
        clock.advance(by: seconds)
        let rotated = try await cache.keys(jwksURI: Self.uri, keyID: "new", algorithm: .es256)
        #expect(rotated.map(\.keyID) == ["new"])
        #expect(http.fetchCount(Self.uri) == 2)
        return (http, clock, cache)
    }

    /// The error of asking `cache` for a `kid` its set does not hold.
    private static func unknownKey(_ kid: String, in cache: JWKSCache) async -> OIDCError? {
        await oidcError { () async throws(OIDCError) in
            try await cache.keys(jwksURI: Self.uri, keyID: kid, algorithm: .es256)
        }
    }

    @Test func unknownKidRefetchesOnceThenIsRateLimited() async throws {
        let (http, clock, cache) = try await Self.rotatedCache(after: 10)
        clock.advance(by: 9)
        #expect(await Self.unknownKey("sprayed", in: cache) == .unknownKeyID(kid: "sprayed", algorithm: .es256))
        #expect(http.fetchCount(Self.uri) == 2)
        clock.advance(by: 1)
        _ = await Self.unknownKey("sprayed-again", in: cache)
        #expect(http.fetchCount(Self.uri) == 3)
    }

    @Test func rotationRightAfterARoutineFetchIsPickedUp() async throws {
        let (http, clock, cache) = try await Self.rotatedCache(after: 1)
        clock.advance(by: 1)
        #expect(await Self.unknownKey("sprayed", in: cache) == .unknownKeyID(kid: "sprayed", algorithm: .es256))
        #expect(http.fetchCount(Self.uri) == 2)
    }

    @Test func unknownKidOnTheFirstFetchIsNotFetchedTwice() async throws {
        let key = try SigningKey.generate(.es256, keyID: "k")
        let http = ScriptedHTTP()
        http.serveKeys(Self.uri, [key.publicKey.jwk])
        let error = await oidcError { () async throws(OIDCError) in
            // A fixed clock: under load a real one may pass the 10 s interval between the two reads.
            try await JWKSCache(http: http, now: TestClock().read)
                .keys(jwksURI: Self.uri, keyID: "other", algorithm: .es256)
        }
        #expect(error == .unknownKeyID(kid: "other", algorithm: .es256))
        #expect(http.fetchCount(Self.uri) == 1)
    }

    @Test func failedFetchesAreRateLimitedToo() async throws {
        let http = ScriptedHTTP()
        http.serve(Self.uri, OutboundResponse(status: 500))
        let clock = TestClock()
        let cache = JWKSCache(http: http, now: clock.read)
        for _ in 0..<3 {
            let error = await oidcError { () async throws(OIDCError) in
                try await cache.keys(jwksURI: Self.uri, keyID: "k", algorithm: .rs256)
            }
            #expect(error == .unexpectedStatus(.keySet, url: Self.uri, status: 500))
        }
        #expect(http.fetchCount(Self.uri) == 1)
        clock.advance(by: 10)
        _ = await oidcError { () async throws(OIDCError) in
            try await cache.keys(jwksURI: Self.uri, keyID: "k", algorithm: .rs256)
        }
        #expect(http.fetchCount(Self.uri) == 2)
    }

    @Test func keyWithoutKidNeedsExactlyOneKeyOfTheType() async throws {
        let rsa = try SigningKey.generate(.rs256, keyID: "r1")
        let ec = try SigningKey.generate(.es256, keyID: "e1")
        let http = ScriptedHTTP()
        http.serveKeys(Self.uri, [rsa.publicKey.jwk, ec.publicKey.jwk])
        let cache = JWKSCache(http: http)
        let only = try await cache.keys(jwksURI: Self.uri, keyID: nil, algorithm: .rs256)
        #expect(only.map(\.keyID) == ["r1"])

        let second = try SigningKey.generate(.rs256, keyID: "r2")
        let crowded = ScriptedHTTP()
        crowded.serveKeys(Self.uri, [rsa.publicKey.jwk, second.publicKey.jwk])
        let error = await oidcError { () async throws(OIDCError) in
            try await JWKSCache(http: crowded).keys(jwksURI: Self.uri, keyID: nil, algorithm: .rs256)
        }
        #expect(error == .keyNotIdentified(algorithm: .rs256, candidates: 2))
    }

    @Test func errorsNameTheURLWithoutItsQuery() async {
        let uri = "https://idp.example/jwks?api_key=s3cret"
        let http = ScriptedHTTP()
        http.serve(uri, OutboundResponse(status: 502))
        let error = await oidcError { () async throws(OIDCError) in
            try await JWKSCache(http: http).keys(jwksURI: uri, keyID: "k", algorithm: .rs256)
        }
        #expect(error == .unexpectedStatus(.keySet, url: "https://idp.example/jwks", status: 502))
        #expect(error?.description.contains("s3cret") == false)
    }

    @Test func plainHTTPKeySetOnANonLoopbackHostIsRefused() async {
        let http = ScriptedHTTP()
        let error = await oidcError { () async throws(OIDCError) in
            try await JWKSCache(http: http).keys(jwksURI: "http://idp.example/jwks", keyID: "k", algorithm: .rs256)
        }
        #expect(error == .insecureURL(field: "jwks_uri", url: "http://idp.example/jwks"))
        #expect(http.fetchCount("http://idp.example/jwks") == 0)
    }

    @Test(.timeLimit(.minutes(1))) func concurrentFirstRequestsShareOneFetch() async throws {
        let key = try SigningKey.generate(.es256, keyID: "k")
        let gate = TestGate()
        let http = ScriptedHTTP(gate: gate)
        http.serveKeys(Self.uri, [key.publicKey.jwk])
        let clock = TestClock()
        let cache = JWKSCache(http: http, timeToLive: 0, now: clock.read)
        let callers = 8
        let allArrived = clock.gate(afterReads: callers)
        try await withThrowingTaskGroup(of: [PublicKey].self) { group in
            for _ in 0..<callers {
                group.addTask { try await cache.keys(jwksURI: Self.uri, keyID: "k", algorithm: .es256) }
            }
            await allArrived.wait()
            gate.open()
            for try await keys in group { #expect(keys.count == 1) }
        }
        #expect(http.fetchCount(Self.uri) == 1)
    }
}
