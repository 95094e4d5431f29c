import Foundation

/// The IdP's callback: CONTRACT §3.2. The pending session is looked up, checked and consumed before any
/// exchange; afterwards every outcome is a 303 back to the app, except an unknown state (a 400 page).
extension SignInFlow {
    /// Whether `fields` are an IdP's authorization response rather than a start request.
    public static func isCallback(_ fields: [URLFormField]) -> Bool {
        guard fields.first(named: "providerId") == nil else { return false }
        return ["state", "code", "error", "oauth_token", "oauth_verifier", "denied"].contains { name in
            fields.first(named: name) != nil
        }
    }

    /// Handles an authorization response; returns the app URL to send the browser to (303).
    public func callback(_ fields: [URLFormField]) async throws(HandlerError) -> String {
        let began = now()
        let consumed = try await consumeSession(fields)
        let session = consumed.session
        do throws(CallbackFailure) {
            guard let provider = providers[session.providerID] else {
                throw CallbackFailure.provider("\(session.providerID) is no longer configured")
            }
            let result: StoredResult
            switch consumed.protocolKind {
            case .oauth1: result = try await completeOAuth1(fields, session: session, provider: provider)
            case .oauth2, .oidc: result = try await completeOAuth2(fields, session: session, provider: provider)
            }
            let code = try await saveResult(result)
            metrics.signInCompleted(provider: session.providerID)
            log.log(
                .info, "signin.callback",
                ["provider": session.providerID, "outcome": "success", "latency_ms": milliseconds(since: began)])
            var back = [URLFormField(name: "code", value: code)]
            if let eventID = session.eventID { back.append(URLFormField(name: "eventId", value: eventID)) }
            return RedirectURLPolicy.appending(back, to: session.redirectURL)
        } catch {
            metrics.signInFailed(provider: session.providerID, outcome: error.code)
            log.log(
                .warning, "signin.callback",
                [
                    "provider": session.providerID, "outcome": error.code, "latency_ms": milliseconds(since: began),
                    "reason": error.message,
                ])
            var back = [
                URLFormField(name: "error", value: error.code),
                URLFormField(name: "error_description", value: error.message),
            ]
            if let eventID = session.eventID { back.append(URLFormField(name: "eventId", value: eventID)) }
            return RedirectURLPolicy.appending(back, to: session.redirectURL)
        }
    }

    /// Finds and consumes the pending session the response belongs to; unknown, expired or replayed → 400.
    private func consumeSession(_ fields: [URLFormField]) async throws(HandlerError) -> (
        session: PendingSession, protocolKind: ProviderConfig.ProtocolKind
    ) {
        for name in ["state", "code", "oauth_token", "oauth_verifier", "denied", "iss", "error"]
        where fields.all(named: name).count > 1 {
            throw .invalidRequest("the authorization response repeats \(name); start the sign-in again")
        }
        let key: String
        let isOAuth1: Bool
        let presented: String
        if let state = fields.first(named: "state") {
            (key, isOAuth1, presented) = (PendingSession.key(state: state), false, state)
        } else if let token = fields.first(named: "oauth_token") ?? fields.first(named: "denied") {
            (key, isOAuth1, presented) = (PendingSession.key(requestToken: token), true, token)
        } else {
            throw .invalidState("the authorization response has no state; start the sign-in again")
        }
        guard !presented.isEmpty, presented.utf8.count <= 512 else {
            throw .invalidState("the authorization response's state is empty or too long; start the sign-in again")
        }
        let payload: [UInt8]?
        do {
            payload = try await store.consumePending(key: key, now: now())
        } catch {
            throw Self.storeFailure(error)
        }
        guard let payload, let session = Self.decode(PendingSession.self, from: payload) else {
            log.log(.warning, "signin.callback", ["outcome": "invalid-state"])
            throw .invalidState(
                "this sign-in is unknown, expired or already completed; start the sign-in again from the app")
        }
        if isOAuth1 {
            // The session was found by the token; still compare it, in constant time, as the contract requires.
            guard let requestToken = session.requestToken, ConstantTime.equals(requestToken, presented) else {
                throw .invalidState("the oauth_token does not belong to this sign-in; start the sign-in again")
            }
            return (session, .oauth1)
        }
        return (session, .oauth2)
    }

    private func completeOAuth1(_ fields: [URLFormField], session: PendingSession, provider: ProviderDescriptor)
        async throws(CallbackFailure) -> StoredResult
    {
        if fields.first(named: "denied") != nil {
            throw .cancelled("the user denied the sign-in at \(provider.id)")
        }
        guard let verifier = fields.first(named: "oauth_verifier"), !verifier.isEmpty else {
            throw .provider("\(provider.id) sent no oauth_verifier")
        }
        guard let client = provider.oauth1Client(http: http, timeout: settings.providerTimeout),
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
            profile = try ProfileMapper.twitter(document, accessTokenFields: credentials.extraFields)
        } catch {
            throw .provider("the \(provider.id) profile is unusable: \(error)")
        }
        return result(
            session: session, credential: IdPCredential(accessToken: credentials.token, secret: credentials.secret),
            profile: profile)
    }

    private func completeOAuth2(_ fields: [URLFormField], session: PendingSession, provider: ProviderDescriptor)
        async throws(CallbackFailure) -> StoredResult
    {
        let endpoints: ResolvedEndpoints
        do {
            endpoints = try await resolvedEndpoints(provider)
        } catch {
            throw .provider(error.message)
        }
        // RFC 9207: the response must come from the issuer we sent the user to.
        if let expected = endpoints.issuer, case .exact(let issuer) = expected {
            if let iss = fields.first(named: "iss") {
                guard ConstantTime.equals(iss, issuer) else {
                    throw .provider("the authorization response names another issuer (RFC 9207 iss mismatch)")
                }
            } else if endpoints.sendsIssParameter {
                throw .provider("the authorization response lacks the iss parameter its issuer promises (RFC 9207)")
            }
        }
        if let error = fields.first(named: "error") {
            let code = Self.safeErrorCode(error)
            if code == "access_denied" { throw .cancelled("the user denied the sign-in at \(provider.id)") }
            throw .provider("\(provider.id) answered error=\(code)")
        }
        guard let code = fields.first(named: "code"), !code.isEmpty else {
            throw .provider("\(provider.id) sent neither code nor error")
        }
        guard let tokenEndpoint = endpoints.token, let verifier = session.codeVerifier else {
            throw .provider("\(provider.id) has no token endpoint; set endpoints.token")
        }
        let answer: OAuth2TokenClient.Answer
        do {
            let client = try provider.tokenClient(
                endpoint: tokenEndpoint, http: http, timeout: settings.providerTimeout)
            answer = try await client.exchange(code: code, redirectURI: settings.redirectURI, codeVerifier: verifier)
        } catch let error as OAuth2ClientError {
            throw .provider("the \(provider.id) token exchange failed: \(error)")
        } catch {
            throw .provider("the \(provider.id) client secret could not be made: \(error)")
        }
        let credential = answer.credential
        let profile: ProviderProfile
        if provider.protocolKind == .oidc {
            profile = try await oidcProfile(
                credential: credential, session: session, provider: provider, endpoints: endpoints)
        } else {
            profile = try await oauth2Profile(credential: credential, provider: provider, endpoints: endpoints)
        }
        return result(session: session, credential: credential, profile: profile)
    }

    private func oidcProfile(
        credential: IdPCredential, session: PendingSession, provider: ProviderDescriptor, endpoints: ResolvedEndpoints
    ) async throws(CallbackFailure) -> ProviderProfile {
        guard let idToken = credential.idToken else { throw .provider("\(provider.id) returned no id_token") }
        guard let jwks = endpoints.jwks, let issuer = endpoints.issuer else {
            throw .provider("\(provider.id) has no JWKS or issuer to check its id_token with")
        }
        let expectations = IDTokenExpectations(
            issuer: issuer, clientID: provider.clientID, nonce: session.nonce, jwksURI: jwks.absoluteString, now: now(),
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
                let document = try await OAuth2UserInfoClient(http: http, timeout: settings.providerTimeout).fetch(
                    url: userInfoURL.absoluteString, accessToken: accessToken)
                try claims.checkUserInfoSubject(document)
                userInfo = document
            } catch let error as OIDCError {
                throw .provider("the \(provider.id) userinfo is refused: \(error)")
            } catch {
                throw .provider("the \(provider.id) userinfo call failed: \(error)")
            }
        }
        do {
            return try ProfileMapper.oidc(claims: claims.raw, userInfo: userInfo)
        } catch {
            throw .provider("the \(provider.id) profile is unusable: \(error)")
        }
    }

    private func oauth2Profile(credential: IdPCredential, provider: ProviderDescriptor, endpoints: ResolvedEndpoints)
        async throws(CallbackFailure) -> ProviderProfile
    {
        guard let userInfoURL = endpoints.userInfo, let accessToken = credential.accessToken else {
            throw .provider("\(provider.id) has no userInfo endpoint to read the profile from; set endpoints.userInfo")
        }
        let client = OAuth2UserInfoClient(http: http, timeout: settings.providerTimeout)
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
            return try ProfileMapper.profile(provider.profileMapping, document: document, secondary: secondary)
        } catch {
            throw .provider("the \(provider.id) profile is unusable: \(error)")
        }
    }

    private func result(session: PendingSession, credential: IdPCredential, profile: ProviderProfile) -> StoredResult {
        StoredResult(
            providerID: session.providerID, authType: session.authType, eventID: session.eventID,
            resultChallenge: session.resultChallenge, credential: credential, profile: profile,
            requestURI: settings.redirectURI, nonce: session.nonce, createdAt: now())
    }

    private func saveResult(_ result: StoredResult) async throws(CallbackFailure) -> String {
        let code: String
        let payload: [UInt8]
        do {
            code = try SecureRandom.base64URLString(byteCount: 32)
            payload = try Self.encode(result)
        } catch {
            throw .internal("the result could not be stored")
        }
        do {
            try await store.insertResult(
                code: code, payload: payload, expiresAt: now().addingTimeInterval(settings.resultTTL))
        } catch {
            throw .internal("the result could not be stored: \(Self.storeFailure(error).message)")
        }
        return code
    }

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

/// Why a callback failed after its session was consumed; always reported to the app by redirect.
enum CallbackFailure: Error {
    case cancelled(String)
    case provider(String)
    case `internal`(String)

    var code: String {
        switch self {
        case .cancelled: "user-cancelled"
        case .provider: "provider-error"
        case .internal: "internal-error"
        }
    }

    var message: String {
        switch self {
        case .cancelled(let message), .provider(let message), .internal(let message): message
        }
    }
}
