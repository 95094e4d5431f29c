import AuthHandlerHTTP
import AuthHandlerProtocols
import Foundation

/// OpenID Connect: OAuth 2's start and exchange (``OAuth2Driver``, with discovery completing the endpoints), plus a
/// nonce at the start and the ID token validated at the callback (HTTP-API.md §3.1, §3.2).
struct OIDCDriver: SignInProtocolDriver {
    let oauth2: OAuth2Driver
    let validator: IDTokenValidator

    private var provider: ProviderDescriptor { oauth2.provider }
    private var context: ProtocolContext { oauth2.context }

    func beginCallsProvider() async -> Bool {
        await oauth2.beginCallsProvider()
    }

    func begin(_ request: StartRequest) async throws(APIError) -> ProtocolStart {
        try oauth2.authorizationStart(
            request, endpoints: try await oauth2.endpoints.resolved(request.provider), nonce: Self.makeNonce)
    }

    func beginAtOnce(_ request: StartRequest) -> Result<ProtocolStart, APIError>? {
        guard let endpoints = oauth2.endpoints.resolvedAtOnce(request.provider) else { return nil }
        do {
            return .success(try oauth2.authorizationStart(request, endpoints: endpoints, nonce: Self.makeNonce))
        } catch {
            return .failure(error)
        }
    }

    /// The raw nonce sealed in the cookie and its hash sent to the provider (OIDCNonce, HTTP-API.md §3.1).
    private static func makeNonce() throws -> (raw: String, hashed: String)? {
        let raw = try OIDCNonce.makeRaw()
        return (raw, try OIDCNonce.hashed(raw))
    }

    func projected(_ base: PendingSession, request: StartRequest, random: String) -> PendingSession {
        var session = oauth2.projected(base, request: request, random: random)
        session.nonce = random
        return session
    }

    func complete(_ fields: [URLFormField], session: PendingSession) async throws(CallbackFailure) -> ProviderSignIn {
        let (credential, endpoints) = try await oauth2.exchange(fields, session: session)
        return ProviderSignIn(
            credential: credential,
            profile: try await profile(credential: credential, session: session, endpoints: endpoints))
    }

    /// The ID token validated (signature via JWKS, `iss`, `aud`/`azp`, `exp`/`iat`, `nonce`, `sub`), the userinfo's
    /// `sub` matched, and the profile mapped from their claims (HTTP-API.md §3.2).
    private func profile(credential: IdPCredential, session: PendingSession, endpoints: ResolvedEndpoints)
        async throws(CallbackFailure) -> ProviderProfile
    {
        guard let idToken = credential.idToken else { throw .provider("\(provider.id) returned no id_token") }
        guard let jwks = endpoints.jwks, let issuer = endpoints.issuer else {
            throw .provider("\(provider.id) has no JWKS or issuer to check its id_token with")
        }
        // The token carries the hash of the raw nonce sealed in the cookie (OIDCNonce, HTTP-API.md §3.1).
        let expectedNonce: String?
        do {
            expectedNonce = try session.nonce.map(OIDCNonce.hashed)
        } catch {
            throw .internal("the nonce could not be hashed: \(error)")
        }
        let expectations = IDTokenExpectations(
            issuer: issuer, clientID: provider.clientID, nonce: expectedNonce, jwksURI: jwks.absoluteString,
            now: context.now(),
            allowedAlgorithms: provider.idTokenAlgorithms.isEmpty ? [.rs256] : provider.idTokenAlgorithms)
        let claims: IDTokenClaims
        do {
            claims = try await validator.validate(idToken, expecting: expectations)
        } catch {
            throw .provider("the \(provider.id) id_token was refused: \(error)")
        }
        var userInfo: JSONValue?
        if let userInfoURL = endpoints.userInfo, let accessToken = credential.accessToken {
            do {
                let document = try await OAuth2UserInfoClient(http: context.http, timeout: context.providerTimeout)
                    .fetch(url: userInfoURL.absoluteString, accessToken: accessToken)
                try claims.checkUserInfoSubject(document)
                userInfo = document
            } catch let error as OIDCError {
                throw .provider("the \(provider.id) userinfo is refused: \(error)")
            } catch {
                throw .provider("the \(provider.id) userinfo call failed: \(error)")
            }
        }
        do {
            return try ProfileMapper.oidc(claims: claims.raw, userInfo: userInfo, trustsEmail: provider.trustsEmail)
        } catch {
            throw .provider("the \(provider.id) profile is unusable: \(error)")
        }
    }
}
