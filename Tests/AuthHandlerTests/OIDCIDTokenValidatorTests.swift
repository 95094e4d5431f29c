import Foundation
import TestSupport
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerCrypto
@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols

/// One provider for a test: an RS256 and an ES256 key in its JWKS, a validator, a fixed `now`.
private struct Provider {
    let rsa: SigningKey
    let ec: SigningKey
    let http = ScriptedHTTP()
    let clock = TestClock()
    let validator: IDTokenValidator
    var now: Date { clock.date }

    init() throws {
        rsa = try SigningKey.generate(.rs256, keyID: "rsa-1")
        ec = try SigningKey.generate(.es256, keyID: "ec-1")
        http.serveKeys(OIDCTestTokens.jwksURI, [rsa.publicKey.jwk, ec.publicKey.jwk])
        validator = IDTokenValidator(keys: JWKSCache(http: http, now: clock.read))
    }

    func token(_ changes: [String: JSONValue?] = [:], key: SigningKey? = nil, header: JOSEHeader? = nil) throws
        -> String
    {
        try OIDCTestTokens.sign(OIDCTestTokens.claims(now: now, changes), key: key ?? rsa, header: header)
    }

    func expectations(algorithms: [JWSAlgorithm] = [.rs256]) -> IDTokenExpectations {
        OIDCTestTokens.expectations(now: now, algorithms: algorithms)
    }

    /// The error `validate` throws; also checks that its description does not contain the token.
    func refusal(_ token: String, _ expectations: IDTokenExpectations? = nil) async -> OIDCError? {
        let error = await oidcError { () async throws(OIDCError) in
            try await validator.validate(token, expecting: expectations ?? self.expectations())
        }
        if let error {
            for segment in token.split(separator: ".") where segment.count > 8 {
                #expect(!error.description.contains(segment))
            }
        }
        return error
    }

    var keySetFetches: Int { http.fetchCount(OIDCTestTokens.jwksURI) }
}

struct OIDCIDTokenValidatorTests {
    // MARK: Accepted tokens

    @Test func validRS256TokenIsAccepted() async throws {
        let provider = try Provider()
        let claims = try await provider.validator.validate(try provider.token(), expecting: provider.expectations())
        #expect(claims.iss == OIDCTestTokens.issuer)
        #expect(claims.sub == "248289761001")
        #expect(claims.aud == [OIDCTestTokens.clientID])
        #expect(claims.nonce == OIDCTestTokens.nonce)
        #expect(claims.email == "alice@example.com")
        #expect(claims.emailVerified == true)
        #expect(claims.name == "Alice")
        #expect(claims.azp == nil)
        #expect(claims.exp == Date(timeIntervalSince1970: provider.now.timeIntervalSince1970.rounded(.down) + 600))
        #expect(claims.raw["email"] == .string("alice@example.com"))
    }

    @Test func validES256TokenIsAcceptedWhenPinned() async throws {
        let provider = try Provider()
        let token = try provider.token(key: provider.ec)
        let claims = try await provider.validator.validate(
            token, expecting: provider.expectations(algorithms: [.es256]))
        #expect(claims.sub == "248289761001")
    }

    @Test func severalAudiencesWithMatchingAzpAreAccepted() async throws {
        let provider = try Provider()
        let token = try provider.token([
            "aud": .array([.string("other"), .string(OIDCTestTokens.clientID)]),
            "azp": .string(OIDCTestTokens.clientID),
        ])
        let claims = try await provider.validator.validate(token, expecting: provider.expectations())
        #expect(claims.aud == ["other", OIDCTestTokens.clientID])
        #expect(claims.azp == OIDCTestTokens.clientID)
    }

    @Test func emailVerifiedAsAStringIsRead() async throws {
        let provider = try Provider()
        let claims = try await provider.validator.validate(
            try provider.token(["email_verified": .string("false")]), expecting: provider.expectations())
        #expect(claims.emailVerified == false)
    }

    @Test func timesWithinTheClockSkewAreAccepted() async throws {
        let provider = try Provider()
        let now = provider.now.timeIntervalSince1970
        let token = try provider.token(["exp": .number(now - 299), "iat": .number(now + 300)])
        _ = try await provider.validator.validate(token, expecting: provider.expectations())
    }

    @Test func tokenWithoutKidIsAcceptedWithOneKeyOfItsType() async throws {
        let provider = try Provider()
        let token = try provider.token(header: JOSEHeader(alg: "RS256"))
        _ = try await provider.validator.validate(token, expecting: provider.expectations())
    }

    // MARK: Header refusals

    @Test(arguments: ["", "a.b", "a.b.c.d", "!!.e30.", "eyJ9.e30."])
    func malformedTokenIsRefused(token: String) async throws {
        let provider = try Provider()
        guard case .malformedToken = await provider.refusal(token) else {
            Issue.record("expected malformedToken")
            return
        }
        #expect(provider.keySetFetches == 0)
    }

    @Test func payloadThatIsNotAnObjectIsMalformed() async throws {
        let provider = try Provider()
        let token = try CompactJWS.sign(
            header: JOSEHeader(alg: "RS256", kid: "rsa-1"), payload: Data("[1]".utf8), key: provider.rsa)
        #expect(await provider.refusal(token) == .malformedToken(reason: "the payload is not a JSON object"))
    }

    @Test func algNoneIsRefusedByDefault() async throws {
        let provider = try Provider()
        let token = try CompactJWS.unsigned(
            payload: try OIDCTestTokens.payload(OIDCTestTokens.claims(now: provider.now)))
        #expect(await provider.refusal(token) == .unsignedToken)
        #expect(provider.keySetFetches == 0)
    }

    @Test func algNoneIsAcceptedOnlyWhenTheProviderAllowsIt() async throws {
        let provider = try Provider()
        let claims = OIDCTestTokens.claims(now: provider.now)
        let token = try CompactJWS.unsigned(payload: try OIDCTestTokens.payload(claims))
        var expectations = provider.expectations()
        expectations.allowsUnsigned = true
        let accepted = try await provider.validator.validate(token, expecting: expectations)
        #expect(accepted.sub == "248289761001")
        // The claims are still checked.
        let wrongNonce = try CompactJWS.unsigned(
            payload: try OIDCTestTokens.payload(OIDCTestTokens.claims(now: provider.now, ["nonce": .string("x")])))
        #expect(await provider.refusal(wrongNonce, expectations) == .nonceMismatch)
        // A "none" token carrying a signature is not a none token.
        let signed = token + "c2ln"
        #expect(
            await provider.refusal(signed, expectations)
                == .malformedToken(reason: "an alg none token must have an empty signature"))
    }

    @Test func algorithmOutsideThePinnedListIsRefused() async throws {
        let provider = try Provider()
        let token = try provider.token(key: provider.ec)
        #expect(await provider.refusal(token) == .algorithmNotAllowed(alg: "ES256", allowed: [.rs256]))
        #expect(provider.keySetFetches == 0)
    }

    @Test(arguments: ["NONE", "None", "rs256", "PS256", "RS512"])
    func algorithmSpellingsOutsideThePinnedListAreRefused(alg: String) async throws {
        let provider = try Provider()
        let valid = try provider.token()
        let parts = valid.split(separator: ".")
        let header = Base64.urlEncode(Array("{\"alg\":\"\(alg)\",\"kid\":\"rsa-1\"}".utf8))
        let token = header + "." + parts[1] + "." + parts[2]
        #expect(await provider.refusal(token) == .algorithmNotAllowed(alg: alg, allowed: [.rs256]))
    }

    /// RFC 8725 §2.1: an HS256 token keyed with the provider's public RSA modulus must never verify.
    @Test func hs256KeyedWithThePublicKeyIsRefused() async throws {
        let provider = try Provider()
        let header = Base64.urlEncode(Array("{\"alg\":\"HS256\",\"kid\":\"rsa-1\",\"typ\":\"JWT\"}".utf8))
        let payload = Base64.urlEncode(try OIDCTestTokens.payload(OIDCTestTokens.claims(now: provider.now)))
        let signingInput = header + "." + payload
        let publicKeyBytes = Base64.urlDecode(provider.rsa.publicKey.jwk.n ?? "") ?? []
        let mac = try HMAC.sha256(key: publicKeyBytes, message: Array(signingInput.utf8))
        let token = signingInput + "." + Base64.urlEncode(mac)
        #expect(await provider.refusal(token) == .algorithmNotAllowed(alg: "HS256", allowed: [.rs256]))
        #expect(provider.keySetFetches == 0)
    }

    @Test(arguments: ["jku", "x5u", "jwk", "x5c"])
    func keySourceInTheHeaderIsRefused(parameter: String) async throws {
        let provider = try Provider()
        var header = JOSEHeader(alg: "RS256", kid: "rsa-1")
        switch parameter {
        case "jku": header.jku = "https://attacker.example/jwks"
        case "x5u": header.x5u = "https://attacker.example/cert.pem"
        case "jwk": header.jwk = provider.rsa.publicKey.jwk
        default: header.x5c = ["MIIB"]
        }
        let token = try provider.token(header: header)
        #expect(await provider.refusal(token) == .keySourceInHeader(parameter: parameter))
        #expect(provider.keySetFetches == 0)
    }

    @Test func critHeaderIsRefused() async throws {
        let provider = try Provider()
        var header = JOSEHeader(alg: "RS256", kid: "rsa-1")
        header.crit = ["exp"]
        #expect(await provider.refusal(try provider.token(header: header)) == .criticalHeader(names: ["exp"]))
    }

    // MARK: Keys and signatures

    @Test func unknownKidIsRefusedAfterOneRefetch() async throws {
        let provider = try Provider()
        let stranger = try SigningKey.generate(.rs256, keyID: "unknown")
        _ = try await provider.validator.validate(try provider.token(), expecting: provider.expectations())
        provider.clock.advance(by: 11)
        let expectations = provider.expectations()
        #expect(
            await provider.refusal(try provider.token(key: stranger), expectations)
                == .unknownKeyID(kid: "unknown", algorithm: .rs256))
        #expect(provider.keySetFetches == 2)
    }

    @Test func keyRotationIsAcceptedAfterOneRefetchAndSprayingIsRateLimited() async throws {
        let provider = try Provider()
        _ = try await provider.validator.validate(try provider.token(), expecting: provider.expectations())
        #expect(provider.keySetFetches == 1)

        let rotated = try SigningKey.generate(.rs256, keyID: "rsa-2")
        provider.http.serveKeys(OIDCTestTokens.jwksURI, [rotated.publicKey.jwk])
        provider.clock.advance(by: 30)
        let claims = try await provider.validator.validate(
            try provider.token(key: rotated), expecting: provider.expectations())
        #expect(claims.sub == "248289761001")
        #expect(provider.keySetFetches == 2)

        provider.clock.advance(by: 5)
        let sprayed = try SigningKey.generate(.rs256, keyID: "rsa-3")
        #expect(
            await provider.refusal(try provider.token(key: sprayed))
                == .unknownKeyID(kid: "rsa-3", algorithm: .rs256))
        #expect(provider.keySetFetches == 2)
    }

    @Test func badSignatureIsRefused() async throws {
        let provider = try Provider()
        let token = try provider.token()
        let tampered = FakeSignature.flipped(token)
        #expect(await provider.refusal(tampered) == .invalidSignature)
    }

    @Test func signatureByAnotherKeyUnderAKnownKidIsRefused() async throws {
        let provider = try Provider()
        let impostor = try SigningKey.generate(.rs256, keyID: "rsa-1")
        #expect(await provider.refusal(try provider.token(key: impostor)) == .invalidSignature)
    }

    @Test func modifiedClaimsUnderTheOriginalSignatureAreRefused() async throws {
        let provider = try Provider()
        let parts = try provider.token().split(separator: ".")
        let forged = Base64.urlEncode(
            try OIDCTestTokens.payload(OIDCTestTokens.claims(now: provider.now, ["sub": .string("admin")])))
        #expect(await provider.refusal(parts[0] + "." + forged + "." + parts[2]) == .invalidSignature)
    }

    @Test func tokenWithoutKidIsRefusedWhenSeveralKeysOfItsTypeExist() async throws {
        let provider = try Provider()
        let second = try SigningKey.generate(.rs256, keyID: "rsa-2")
        provider.http.serveKeys(OIDCTestTokens.jwksURI, [provider.rsa.publicKey.jwk, second.publicKey.jwk])
        let token = try provider.token(header: JOSEHeader(alg: "RS256"))
        #expect(await provider.refusal(token) == .keyNotIdentified(algorithm: .rs256, candidates: 2))
    }

    // MARK: Claim refusals

    @Test(arguments: [OIDCTestTokens.issuer + "/", "https://IDP.example", "https://evil.example"])
    func issuerMismatchIsRefused(issuer: String) async throws {
        let provider = try Provider()
        #expect(
            await provider.refusal(try provider.token(["iss": .string(issuer)]))
                == .issuerMismatch(expected: OIDCTestTokens.issuer, received: issuer))
    }

    @Test func audienceWithoutTheClientIsRefused() async throws {
        let provider = try Provider()
        #expect(
            await provider.refusal(try provider.token(["aud": .string("someone-else")]))
                == .audienceMismatch(clientID: OIDCTestTokens.clientID))
    }

    @Test func severalAudiencesWithoutAzpAreRefused() async throws {
        let provider = try Provider()
        let token = try provider.token(["aud": .array([.string(OIDCTestTokens.clientID), .string("other")])])
        #expect(await provider.refusal(token) == .authorizedPartyMissing)
    }

    @Test func azpNamingAnotherClientIsRefused() async throws {
        let provider = try Provider()
        let token = try provider.token(["azp": .string("other")])
        #expect(await provider.refusal(token) == .authorizedPartyMismatch(clientID: OIDCTestTokens.clientID))
    }

    @Test(arguments: [
        JSONValue.number(1), .array([]), .array([.string(OIDCTestTokens.clientID), .number(2)]), .bool(true),
    ])
    func audienceOfTheWrongTypeIsRefused(audience: JSONValue) async throws {
        let provider = try Provider()
        #expect(await provider.refusal(try provider.token(["aud": audience])) == .invalidClaimType("aud"))
    }

    @Test(arguments: ["iss", "sub", "aud", "exp", "iat", "nonce"])
    func missingRequiredClaimIsRefused(claim: String) async throws {
        let provider = try Provider()
        #expect(await provider.refusal(try provider.token([claim: nil])) == .missingClaim(claim))
    }

    @Test func expiredTokenIsRefused() async throws {
        let provider = try Provider()
        let now = provider.now.timeIntervalSince1970
        #expect(
            await provider.refusal(try provider.token(["exp": .number(now - 300)]))
                == .expired(exp: now - 300, now: now))
    }

    @Test func expOfTheWrongTypeIsRefused() async throws {
        let provider = try Provider()
        #expect(await provider.refusal(try provider.token(["exp": .string("tomorrow")])) == .invalidClaimType("exp"))
    }

    @Test func tokenIssuedInTheFutureIsRefused() async throws {
        let provider = try Provider()
        let now = provider.now.timeIntervalSince1970
        #expect(
            await provider.refusal(try provider.token(["iat": .number(now + 301)]))
                == .issuedInFuture(iat: now + 301, now: now))
    }

    @Test func hugeTimesDoNotTrapInMessages() async throws {
        let provider = try Provider()
        let error = await provider.refusal(try provider.token(["iat": .number(1e300)]))
        #expect(error?.description.contains("in the future") == true)
    }

    @Test func notBeforeInTheFutureIsRefused() async throws {
        let provider = try Provider()
        let now = provider.now.timeIntervalSince1970
        #expect(
            await provider.refusal(try provider.token(["nbf": .number(now + 3600)]))
                == .notYetValid(nbf: now + 3600, now: now))
    }

    @Test func clockSkewIsBounded() {
        let expectations = IDTokenExpectations(
            issuer: "https://idp.example", clientID: "c", nonce: nil, jwksURI: OIDCTestTokens.jwksURI, now: Date(),
            clockSkew: 86_400)
        #expect(expectations.clockSkew == IDTokenExpectations.maximumClockSkew)
        var negative = expectations
        negative.clockSkew = -5
        #expect(negative.clockSkew == 0)
    }

    @Test func nonceMismatchIsRefused() async throws {
        let provider = try Provider()
        #expect(await provider.refusal(try provider.token(["nonce": .string("n-0S6_WzA2Mk")])) == .nonceMismatch)
    }

    @Test func emptySubjectIsRefused() async throws {
        let provider = try Provider()
        #expect(
            await provider.refusal(try provider.token(["sub": .string("")])) == .invalidSubject(reason: "it is empty"))
    }

    @Test func subjectLongerThan255IsRefused() async throws {
        let provider = try Provider()
        _ = try await provider.validator.validate(
            try provider.token(["sub": .string(String(repeating: "s", count: 255))]),
            expecting: provider.expectations())
        #expect(
            await provider.refusal(try provider.token(["sub": .string(String(repeating: "s", count: 256))]))
                == .invalidSubject(reason: "it is longer than 255 characters"))
    }

    @Test func maxAgeRequiresARecentAuthTime() async throws {
        let provider = try Provider()
        let now = provider.now.timeIntervalSince1970
        var expectations = provider.expectations()
        expectations.maxAge = 600
        #expect(await provider.refusal(try provider.token(), expectations) == .missingClaim("auth_time"))
        #expect(
            await provider.refusal(try provider.token(["auth_time": .number(now - 1201)]), expectations)
                == .authenticationTooOld(authTime: now - 1201, maxAge: 600))
        let claims = try await provider.validator.validate(
            try provider.token(["auth_time": .number(now - 60)]), expecting: expectations)
        #expect(claims.authTime == Date(timeIntervalSince1970: now - 60))
    }

    // MARK: Microsoft tenant template

    @Test func tenantTemplateIssuerIsBuiltFromTid() async throws {
        let provider = try Provider()
        let tenant = "9188040d-6c67-4c5b-b112-36a304b66dad"
        let template = "https://login.microsoftonline.com/{tenantid}/v2.0"
        var expectations = provider.expectations()
        expectations.issuer = .tenantTemplate(template)
        let issuer = "https://login.microsoftonline.com/\(tenant)/v2.0"
        let claims = try await provider.validator.validate(
            try provider.token(["iss": .string(issuer), "tid": .string(tenant)]), expecting: expectations)
        #expect(claims.iss == issuer)

        let otherTenant = "72f988bf-86f1-41af-91ab-2d7cd011db47"
        #expect(
            await provider.refusal(
                try provider.token(["iss": .string(issuer), "tid": .string(otherTenant)]), expectations)
                == .issuerMismatch(expected: "https://login.microsoftonline.com/\(otherTenant)/v2.0", received: issuer))
        #expect(
            await provider.refusal(try provider.token(["iss": .string(issuer)]), expectations) == .missingClaim("tid"))
        #expect(
            await provider.refusal(
                try provider.token(["iss": .string(issuer), "tid": .string("evil.example/x")]), expectations)
                == .invalidClaimType("tid"))
    }

    // MARK: Userinfo

    @Test func userInfoSubjectMustEqualTheTokens() async throws {
        let provider = try Provider()
        let claims = try await provider.validator.validate(try provider.token(), expecting: provider.expectations())
        try claims.checkUserInfoSubject(.object(["sub": .string("248289761001"), "name": .string("Alice")]))
        #expect(throws: OIDCError.userInfoSubjectMismatch) {
            try claims.checkUserInfoSubject(.object(["sub": .string("248289761002")]))
        }
        #expect(throws: OIDCError.userInfoSubjectMismatch) {
            try claims.checkUserInfoSubject(.object(["name": .string("Alice")]))
        }
    }

    // MARK: RFC 7515 known answers

    /// RFC 7515 A.2 and A.3 verify under their published keys; the claims (`iss: joe`, no `sub`) then stop
    /// validation at `sub`, which shows the signature check passed. Flipping the signature fails earlier.
    @Test(arguments: [
        (CryptoTestVectors.rs256JWS, CryptoTestVectors.rs256JWKJSON, JWSAlgorithm.rs256),
        (CryptoTestVectors.es256JWS, CryptoTestVectors.es256JWKJSON, JWSAlgorithm.es256),
    ])
    func rfc7515ExamplesVerify(token: String, jwk: String, algorithm: JWSAlgorithm) async throws {
        let http = ScriptedHTTP()
        let key = try JSONDecoder().decode(JWK.self, from: Data(jwk.utf8))
        http.serveKeys(OIDCTestTokens.jwksURI, [key])
        let validator = IDTokenValidator(keys: JWKSCache(http: http))
        let expectations = IDTokenExpectations(
            issuer: "joe", clientID: "c", nonce: nil, jwksURI: OIDCTestTokens.jwksURI,
            now: Date(timeIntervalSince1970: 1_300_819_000), allowedAlgorithms: [algorithm])
        let verified = await oidcError { () async throws(OIDCError) in
            try await validator.validate(token, expecting: expectations)
        }
        #expect(verified == .missingClaim("sub"))
        let tampered = await oidcError { () async throws(OIDCError) in
            try await validator.validate(FakeSignature.flipped(token), expecting: expectations)
        }
        #expect(tampered == .invalidSignature)
    }
}

/// Spoils a token's signature while keeping it well formed.
private enum FakeSignature {
    static func flipped(_ token: String) -> String {
        guard let dot = token.lastIndex(of: "."),
            let signature = Base64.urlDecode(String(token[token.index(after: dot)...]))
        else { return token }
        return token[...dot] + Base64.urlEncode(signature.map { $0 ^ 0x01 })
    }
}
