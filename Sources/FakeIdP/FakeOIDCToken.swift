import AuthHandlerCore
import AuthHandlerHTTP
import AuthHandlerProtocols
import Foundation

/// `POST /oidc/token`: the token endpoint (RFC 6749 §3.2, §4.1.3, §6; RFC 7636 §4.6; OIDC Core §3.1.3).
extension FakeIdPRouter {
    func oidcToken(_ request: ServerRequest, failure: FakeFailureKind?) async -> ServerResponse {
        guard request.method == "POST" else { return Self.methodNotAllowed(request, allowed: "POST") }
        do {
            return try await oidcTokenExchange(request, failure: failure)
        } catch let error as FakeOIDCError {
            return error.tokenResponse
        } catch {
            return FakeOIDCError(.serverError, "the fake IdP failed: \(error)").tokenResponse
        }
    }

    private func oidcTokenExchange(_ request: ServerRequest, failure: FakeFailureKind?) async throws -> ServerResponse {
        let contentType = request.headers["Content-Type"] ?? ""
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
        guard mediaType.trimmingCharacters(in: .whitespaces).lowercased() == "application/x-www-form-urlencoded"
        else {
            throw FakeOIDCError(.invalidRequest, "send the parameters as application/x-www-form-urlencoded")
        }
        if case .oauthError(let code, let description) = failure {
            throw FakeOIDCError(code: code, description: description ?? "queued failure")
        }
        let parameters = FakeOIDCParameters(fields: request.formFields)
        if let repeated = parameters.repeatedNames.first {
            throw FakeOIDCError(.invalidRequest, "the parameter \(repeated) is sent more than once (RFC 6749 §3.2)")
        }
        let (client, method) = try FakeOIDCClientAuthentication.authenticate(
            headers: request.headers, parameters: parameters, configuration: state.configuration)
        switch parameters["grant_type"] {
        case nil:
            throw FakeOIDCError(.invalidRequest, "grant_type is missing")
        case "authorization_code":
            return try await oidcRedeemCode(parameters, client: client, method: method, failure: failure)
        case "refresh_token":
            return try await oidcRefresh(parameters, client: client)
        case let other?:
            throw FakeOIDCError(
                code: "unsupported_grant_type",
                description: "grant_type \"\(other)\" is not supported; use authorization_code or refresh_token")
        }
    }

    /// `grant_type=authorization_code`: the code is consumed before any check, so it never works twice.
    private func oidcRedeemCode(
        _ parameters: FakeOIDCParameters, client: FakeIdPConfiguration.OAuth2Client,
        method: FakeOIDCClientAuthentication, failure: FakeFailureKind?
    ) async throws -> ServerResponse {
        guard let value = parameters["code"] else { throw FakeOIDCError(.invalidRequest, "code is missing") }
        guard let code = await state.consumeCode(value) else {
            throw FakeOIDCError(.invalidGrant, "the code is unknown or was already used")
        }
        let now = await state.now()
        guard now.timeIntervalSince(code.issuedAt) <= TimeInterval(state.configuration.codeLifetimeSeconds) else {
            throw FakeOIDCError(
                .invalidGrant,
                "the code expired (codes live \(state.configuration.codeLifetimeSeconds) s)")
        }
        guard code.grant.clientID == client.id else {
            throw FakeOIDCError(.invalidGrant, "the code was issued to another client")
        }
        guard let redirectURI = parameters["redirect_uri"] else {
            throw FakeOIDCError(.invalidRequest, "redirect_uri is missing; send the one used at authorize")
        }
        guard redirectURI == code.redirectURI else {
            throw FakeOIDCError(.invalidGrant, "redirect_uri differs from the one used at authorize")
        }
        switch (code.codeChallenge, parameters["code_verifier"]) {
        case (let challenge?, let verifier?):
            guard PKCE.verify(verifier: verifier, matchesChallenge: challenge) else {
                throw FakeOIDCError(.invalidGrant, "code_verifier does not match the code_challenge (PKCE S256)")
            }
        case (.some, nil):
            throw FakeOIDCError(.invalidGrant, "code_verifier is missing; the code was issued with a code_challenge")
        case (nil, .some):
            throw FakeOIDCError(.invalidGrant, "code_verifier is sent, but the code was issued without code_challenge")
        case (nil, nil):
            guard method != .publicClient else {
                throw FakeOIDCError(.invalidGrant, "a public client's code needs PKCE")
            }
        }
        guard let user = state.configuration.user(id: code.grant.userID) else {
            throw FakeOIDCError(.invalidGrant, "the code's user is no longer configured")
        }
        var idToken: String?
        if FakeOIDCParameters.scopeTokens(code.grant.scope)?.contains("openid") == true {
            let key =
                failure == .shortCoordinateKey ? try await state.shortCoordinateSigningKey() : await state.signingKey
            let issuer = FakeIDTokenIssuer(
                issuer: self.issuer, key: key,
                lifetimeSeconds: state.configuration.accessTokenLifetimeSeconds)
            idToken = try issuer.issue(
                user: user, clientID: client.id, nonce: code.nonce, authTime: code.issuedAt, now: now,
                failure: failure)
        }
        return try await oidcTokenResponse(for: code.grant, idToken: idToken)
    }

    /// `grant_type=refresh_token` (RFC 6749 §6): the refresh token rotates, the scope may only narrow.
    private func oidcRefresh(
        _ parameters: FakeOIDCParameters, client: FakeIdPConfiguration.OAuth2Client
    ) async throws -> ServerResponse {
        guard let value = parameters["refresh_token"] else {
            throw FakeOIDCError(.invalidRequest, "refresh_token is missing")
        }
        guard var grant = await state.consumeRefreshToken(value)?.grant else {
            throw FakeOIDCError(.invalidGrant, "the refresh token is unknown or was already used")
        }
        guard grant.clientID == client.id else {
            throw FakeOIDCError(.invalidGrant, "the refresh token was issued to another client")
        }
        if let requested = parameters["scope"] {
            let granted = Set(FakeOIDCParameters.scopeTokens(grant.scope) ?? [])
            guard let tokens = FakeOIDCParameters.scopeTokens(requested), tokens.allSatisfy(granted.contains) else {
                throw FakeOIDCError(.invalidScope, "scope may only narrow the scope originally granted")
            }
            grant.scope = requested
        }
        return try await oidcTokenResponse(for: grant, idToken: nil)
    }

    /// A successful token response (RFC 6749 §5.1), never cached.
    private func oidcTokenResponse(for grant: FakeOAuth2Grant, idToken: String?) async throws -> ServerResponse {
        let tokens = try await state.issueTokens(for: grant)
        var body: [String: Any] = [
            "access_token": tokens.access,
            "token_type": "Bearer",
            "expires_in": state.configuration.accessTokenLifetimeSeconds,
            "refresh_token": tokens.refresh,
            "scope": grant.scope,
        ]
        if let idToken { body["id_token"] = idToken }
        var response = Self.json(body)
        response.headers.set(name: "Cache-Control", value: "no-store")
        response.headers.set(name: "Pragma", value: "no-cache")
        return response
    }
}
