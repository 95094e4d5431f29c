import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerProtocols
import AuthHandlerSystem
import Foundation

/// OAuth 2 (RFC 6749): the authorization code with PKCE (RFC 7636) at the start, its exchange at the callback (with
/// RFC 9207's `iss` check), the profile from the provider's userinfo endpoint. ``OIDCDriver`` reuses its start and
/// exchange.
struct OAuth2Driver: SignInProtocolDriver {
    let provider: ProviderDescriptor
    let context: ProtocolContext
    let endpoints: EndpointResolver

    func beginCallsProvider() async -> Bool {
        await endpoints.startCallsProvider(provider)
    }

    func begin(_ request: StartRequest) async throws(APIError) -> ProtocolStart {
        try authorizationStart(request, endpoints: try await endpoints.resolved(request.provider))
    }

    func beginAtOnce(_ request: StartRequest) -> Result<ProtocolStart, APIError>? {
        guard let endpoints = endpoints.resolvedAtOnce(request.provider) else { return nil }
        do {
            return .success(try authorizationStart(request, endpoints: endpoints))
        } catch {
            return .failure(error)
        }
    }

    func projected(_ base: PendingSession, request: StartRequest, random: String) -> PendingSession {
        var session = base
        session.state = random
        session.codeVerifier = random
        session.scopes = request.providerScopes
        return session
    }

    func complete(_ fields: [URLFormField], session: PendingSession) async throws(CallbackFailure) -> ProviderSignIn {
        let (credential, endpoints) = try await exchange(fields, session: session)
        return ProviderSignIn(
            credential: credential, profile: try await profile(credential: credential, endpoints: endpoints))
    }

    /// The authorization request of `request` at `endpoints`, with a fresh state and PKCE verifier; `nonce` makes the
    /// raw nonce and its hash for OIDC (nil for none).
    func authorizationStart(
        _ request: StartRequest, endpoints: ResolvedEndpoints,
        nonce: () throws -> (raw: String, hashed: String)? = { nil }
    ) throws(APIError) -> ProtocolStart {
        let provider = request.provider
        guard let authorization = endpoints.authorization else {
            throw APIError(
                .providerError, "\(provider.id) has no authorization endpoint; set endpoints.authorization")
        }
        let state: String
        let verifier: String
        let challenge: String
        // OIDC: the raw nonce stays sealed in the cookie; the provider gets its hash (OIDCNonce, HTTP-API.md §3.1).
        let madeNonce: (raw: String, hashed: String)?
        do {
            state = try SecureRandom.base64URLString(byteCount: 32)
            verifier = try PKCE.makeVerifier()
            challenge = try PKCE.challenge(forVerifier: verifier)
            madeNonce = try nonce()
        } catch {
            throw APIError(.internalError, "the random generator failed")
        }
        let scopes = request.providerScopes
        let authorizationRequest = provider.authorizationRequest(
            endpoint: authorization, redirectURI: context.redirectURI, scopes: scopes, state: state,
            codeChallenge: challenge, nonce: madeNonce?.hashed, customParameters: request.customParameters)
        let location: String
        do {
            location = try authorizationRequest.url()
        } catch {
            throw APIError(.providerError, "cannot build the \(provider.id) authorization URL: \(error)")
        }
        var session = context.session(request)
        session.state = state
        session.scopes = scopes
        session.codeVerifier = verifier
        session.nonce = madeNonce?.raw
        return ProtocolStart(location: location, session: session)
    }

    /// The authorization response checked (RFC 9207 `iss`, the IdP's `error`) and its code exchanged with the PKCE
    /// verifier (HTTP-API.md §3.2): the credential, and the endpoints it was exchanged at.
    func exchange(_ fields: [URLFormField], session: PendingSession) async throws(CallbackFailure)
        -> (IdPCredential, ResolvedEndpoints)
    {
        let endpoints: ResolvedEndpoints
        do {
            endpoints = try await self.endpoints.resolved(provider)
        } catch {
            throw .provider(error.message)
        }
        try Self.checkIssuer(fields, endpoints: endpoints)
        if let error = fields.first(named: "error") { throw Self.refusal(error, provider: provider) }
        guard let code = fields.first(named: "code"), !code.isEmpty else {
            throw .provider("\(provider.id) sent neither code nor error")
        }
        guard let tokenEndpoint = endpoints.token, let verifier = session.codeVerifier else {
            throw .provider("\(provider.id) has no token endpoint; set endpoints.token")
        }
        let answer: OAuth2TokenClient.Answer
        do {
            let client = try provider.tokenClient(
                endpoint: tokenEndpoint, http: context.http, timeout: context.providerTimeout)
            answer = try await client.exchange(code: code, redirectURI: context.redirectURI, codeVerifier: verifier)
        } catch let error as OAuth2ClientError {
            throw .provider("the \(provider.id) token exchange failed: \(error)")
        } catch {
            throw .provider("the \(provider.id) client secret could not be made: \(error)")
        }
        var credential = IdPCredential(answer)
        credential.nonce = session.nonce
        return (credential, endpoints)
    }

    /// RFC 9207: the response must come from the issuer we sent the user to.
    private static func checkIssuer(_ fields: [URLFormField], endpoints: ResolvedEndpoints) throws(CallbackFailure) {
        if let expected = endpoints.issuer, case .exact(let issuer) = expected {
            if let iss = fields.first(named: "iss") {
                guard ConstantTime.equals(iss, issuer) else {
                    throw .provider("the authorization response names another issuer (RFC 9207 iss mismatch)")
                }
            } else if endpoints.sendsIssParameter {
                throw .provider("the authorization response lacks the iss parameter its issuer promises (RFC 9207)")
            }
        }
    }

    /// The IdP's `error` as the app is told it: `access_denied` → `user-cancelled`, `interaction_required` and its kin →
    /// `interaction-required`, the rest `provider-error` (HTTP-API.md §3.2).
    private static func refusal(_ error: String, provider: ProviderDescriptor) -> CallbackFailure {
        let code = safeErrorCode(error)
        if code == "access_denied" { return .cancelled("the user denied the sign-in at \(provider.id)") }
        if interactionRequiredErrors.contains(code) {
            return .interactionRequired(
                "\(provider.id) answered error=\(code): it cannot sign the user in without their interaction; "
                    + "start the sign-in again without prompt=none")
        }
        return .provider("\(provider.id) answered error=\(code)")
    }

    /// The profile from the userinfo endpoint (and GitHub's verified e-mail addresses), mapped as the provider says.
    private func profile(credential: IdPCredential, endpoints: ResolvedEndpoints)
        async throws(CallbackFailure) -> ProviderProfile
    {
        guard let userInfoURL = endpoints.userInfo, let accessToken = credential.accessToken else {
            throw .provider("\(provider.id) has no userInfo endpoint to read the profile from; set endpoints.userInfo")
        }
        let client = OAuth2UserInfoClient(http: context.http, timeout: context.providerTimeout)
        let document: JSONValue
        do {
            document = try await client.fetch(url: userInfoURL.absoluteString, accessToken: accessToken)
        } catch {
            throw .provider("the \(provider.id) profile call failed: \(error)")
        }
        var secondary: JSONValue?
        if let emails = provider.emailsEndpoint {
            // GitHub's /user/emails is only for the verified primary address; without it the profile has no e-mail.
            secondary = try? await client.fetch(url: emails.absoluteString, accessToken: accessToken)
        }
        do {
            return try ProfileMapper.profile(
                provider.profileMapping, document: document, secondary: secondary, trustsEmail: provider.trustsEmail)
        } catch {
            throw .provider("the \(provider.id) profile is unusable: \(error)")
        }
    }

    /// The authorization errors of a `prompt=none` request that needs the user (OIDC Core §3.1.2.6): the app gets
    /// `interaction-required` for them, not `provider-error` (HTTP-API.md §3.2).
    static let interactionRequiredErrors: Set<String> = [
        "interaction_required", "login_required", "consent_required", "account_selection_required",
    ]

    /// An IdP `error` value reduced to the RFC 6749 error character set, so it is safe to echo.
    static func safeErrorCode(_ error: String) -> String {
        let kept = error.unicodeScalars.filter {
            $0.isASCII
                && ($0 == "_" || $0 == "." || $0 == "-" || $0.properties.isAlphabetic || ("0"..."9").contains($0))
        }
        let text = String(String.UnicodeScalarView(kept.prefix(64)))
        return text.isEmpty ? "unknown" : text
    }
}
