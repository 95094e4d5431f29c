import AuthHandlerHTTP
import AuthHandlerProtocols
import Foundation

/// OAuth 1.0a (RFC 5849): a request token at the start, the access token and the signed profile call at the callback.
struct OAuth1Driver: SignInProtocolDriver {
    let provider: ProviderDescriptor
    let context: ProtocolContext
    /// The provider calls in flight, bounded across clients (HTTP-API.md §3.1).
    let providerCalls: OutboundCallLimit

    /// An OAuth 1.0a start always asks the provider for a request token.
    func beginCallsProvider() async -> Bool { true }

    /// Never at once: the request token is a call to the provider.
    func beginAtOnce(_ request: StartRequest) -> Result<ProtocolStart, APIError>? { nil }

    func begin(_ request: StartRequest) async throws(APIError) -> ProtocolStart {
        let provider = request.provider
        guard let client = provider.oauth1Client(http: context.http, timeout: context.providerTimeout, now: context.now)
        else {
            throw APIError(
                .providerError, "\(provider.id) lacks OAuth 1.0a endpoints or credentials; run check-config")
        }
        // Bounded across clients too, so a flood from many addresses cannot pile up calls to the provider.
        let answer: OAuth1Client.TemporaryCredentials?
        do {
            answer = try await providerCalls.withPermit {
                try await client.requestToken(callback: context.redirectURI)
            }
        } catch {
            throw APIError(.providerError, "the \(provider.id) request-token call failed: \(error)")
        }
        guard let temporary = answer else {
            throw APIError(
                .unavailable, "too many sign-ins are starting at once; retry in a moment", retryAfterSeconds: 1)
        }
        let location: String
        do {
            location = try client.authorizeURL(token: temporary.token, customParameters: request.customParameters)
        } catch {
            throw APIError(.providerError, "cannot build the \(provider.id) authorize URL: \(error)")
        }
        var session = context.session(request)
        session.requestToken = temporary.token
        session.requestTokenSecret = temporary.secret
        return ProtocolStart(location: location, session: session)
    }

    /// The request token and its secret come from the provider, so they are taken at their shortest: the picker may let
    /// through a start that its provider's long token then makes too large, never the other way round.
    func projected(_ base: PendingSession, request: StartRequest, random: String) -> PendingSession {
        var session = base
        session.requestToken = "A"
        session.requestTokenSecret = ""
        return session
    }

    func complete(_ fields: [URLFormField], session: PendingSession) async throws(CallbackFailure) -> ProviderSignIn {
        if fields.first(named: "denied") != nil {
            throw .cancelled("the user denied the sign-in at \(provider.id)")
        }
        guard let verifier = fields.first(named: "oauth_verifier"), !verifier.isEmpty else {
            throw .provider("\(provider.id) sent no oauth_verifier")
        }
        guard
            let client = provider.oauth1Client(http: context.http, timeout: context.providerTimeout, now: context.now),
            let requestToken = session.requestToken, let requestTokenSecret = session.requestTokenSecret
        else { throw .provider("\(provider.id) lacks OAuth 1.0a endpoints or credentials") }
        let credentials: OAuth1Client.TokenCredentials
        do {
            credentials = try await client.accessToken(
                requestToken: requestToken, requestTokenSecret: requestTokenSecret, verifier: verifier)
        } catch {
            throw .provider("the \(provider.id) access-token call failed: \(error)")
        }
        var document: JSONValue?
        if let profileURL = provider.endpoints.profile {
            do {
                document = try await client.signedGET(
                    url: profileURL.absoluteString, token: credentials.token, tokenSecret: credentials.secret)
            } catch {
                throw .provider("the \(provider.id) profile call failed: \(error)")
            }
        }
        let profile: ProviderProfile
        do {
            profile = try ProfileMapper.twitter(
                document, accessTokenFields: credentials.extraFields, trustsEmail: provider.trustsEmail)
        } catch {
            throw .provider("the \(provider.id) profile is unusable: \(error)")
        }
        return ProviderSignIn(
            credential: IdPCredential(accessToken: credentials.token, secret: credentials.secret), profile: profile)
    }
}
