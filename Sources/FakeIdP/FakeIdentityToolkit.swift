import AuthHandlerCore
import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerProtocols
import Foundation

/// The body of `accounts:signInWithIdp`; every member optional so that each gap gets Identity Toolkit's own error.
struct SignInWithIdpRequest: Decodable, Sendable {
    var requestUri: String?
    var postBody: String?
    var returnSecureToken: Bool?
    var returnIdpCredential: Bool?
    /// A Firebase ID token of the account to link the credential to.
    var idToken: String?
    var tenantId: String?
}

/// The fake sign-in backend: Identity Toolkit's `accounts:signInWithIdp` (HTTP-API.md §2.8 and §4.1).
///
/// It checks the API key, `requestUri` and `postBody`, then that the IdP credential is one the fake IdP
/// really issued (OAuth 1.0a and OAuth 2 access tokens by lookup, ID tokens by signature, `iss`, `aud`
/// and `exp`). Users with `backendBehavior` `needConfirmation` or `secondFactor` get Identity Toolkit's
/// `needConfirmation` and `mfaPendingCredential` answers. Reference:
/// https://cloud.google.com/identity-platform/docs/reference/rest/v1/accounts/signInWithIdp
extension FakeIdPRouter {
    /// The Firebase project the fake backend stands for: the `aud` of its ID tokens.
    static let backendProjectID = "fake-project"
    /// The `iss` of the fake backend's ID tokens, as Firebase's `securetoken` issuer.
    static let backendIssuer = "https://securetoken.google.com/\(backendProjectID)"
    /// Lifetime of the fake backend's ID tokens (`expiresIn`).
    static let backendTokenLifetime = 3600

    func signInWithIdp(_ request: ServerRequest, failure: FakeFailureKind?) async -> ServerResponse {
        guard request.method == "POST" else { return Self.methodNotAllowed(request, allowed: "POST") }
        do {
            return try await answerSignInWithIdp(request, failure: failure)
        } catch {
            return error.response
        }
    }

    private func answerSignInWithIdp(_ request: ServerRequest, failure: FakeFailureKind?)
        async throws(IdentityToolkitError) -> ServerResponse
    {
        try checkAPIKey(request)
        if case .oauthError(let code, let description) = failure {
            throw IdentityToolkitError(code, description)
        }
        let body = try Self.decodeSignInWithIdp(request.body)
        guard let requestUri = body.requestUri, !requestUri.isEmpty else {
            throw IdentityToolkitError("MISSING_REQUEST_URI")
        }
        guard let components = URLComponents(string: requestUri),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host, !host.isEmpty
        else {
            throw IdentityToolkitError("INVALID_REQUEST_URI", "requestUri must be an http or https URL")
        }
        guard let postBody = body.postBody, !postBody.isEmpty,
            let fields = try? FormURLEncoding.decode(postBody)
        else {
            throw IdentityToolkitError(
                "INVALID_CREDENTIAL_OR_PROVIDER_ID",
                "Invalid IdP response/credential: postBody must be a form such as providerId=...&access_token=...")
        }
        var linkTarget: String?
        if let idToken = body.idToken {
            linkTarget = try await verifiedBackendLocalID(idToken)
        }
        let identity = try await federatedIdentity(postBody: fields)
        let accountKey = (body.tenantId.map { "\($0)/" } ?? "") + identity.providerID + ":" + identity.subject
        var answer = Self.identityFields(identity)
        if let tenantID = body.tenantId { answer["tenantId"] = tenantID }

        // Linking adds the credential to the signed-in account; the user's sign-in behaviour does not apply.
        if linkTarget == nil, identity.behavior == .needConfirmation {
            answer.merge(identity.credential) { _, new in new }
            answer["needConfirmation"] = true
            answer["verifiedProvider"] = ["password"]
            return Self.json(answer)
        }
        guard let account = await state.backendAccount(federatedID: accountKey, linkingTo: linkTarget) else {
            // With returnIdpCredential, Identity Toolkit answers 200 with `errorMessage` and the credential.
            guard body.returnIdpCredential == true else {
                throw IdentityToolkitError("FEDERATED_USER_ID_ALREADY_LINKED")
            }
            answer.merge(identity.credential) { _, new in new }
            answer["errorMessage"] = "FEDERATED_USER_ID_ALREADY_LINKED"
            return Self.json(answer)
        }
        answer["localId"] = account.localID
        if linkTarget == nil, identity.behavior == .secondFactor {
            answer["mfaPendingCredential"] = try Self.opaqueToken(prefix: "fake-mfa-pending-")
            answer["mfaInfo"] = [
                [
                    "mfaEnrollmentId": "fake-mfa-\(identity.subject)", "displayName": "Work phone",
                    "phoneInfo": "+*******1234", "enrolledAt": "2024-01-01T00:00:00Z",
                ]
            ]
            return Self.json(answer)
        }
        answer.merge(identity.credential) { _, new in new }
        answer["isNewUser"] = account.isNew
        if body.returnSecureToken == true {
            answer["idToken"] = try await issueBackendIDToken(
                localID: account.localID, identity: identity, tenantID: body.tenantId)
            answer["refreshToken"] = try Self.opaqueToken(prefix: "fake-refresh-")
            answer["expiresIn"] = String(Self.backendTokenLifetime)
        }
        return Self.json(answer)
    }

    /// `?key=` (or `X-Goog-Api-Key`) must be the configured key, or any non-empty key when none is configured.
    private func checkAPIKey(_ request: ServerRequest) throws(IdentityToolkitError) {
        let key = request.queryItems.last { $0.name == "key" }?.value ?? request.headers["X-Goog-Api-Key"] ?? ""
        guard !key.isEmpty else { throw .invalidAPIKey }
        if let expected = state.configuration.backendAPIKey, !ConstantTime.equals(expected, key) {
            throw .invalidAPIKey
        }
    }

    private static func decodeSignInWithIdp(_ body: [UInt8]) throws(IdentityToolkitError) -> SignInWithIdpRequest {
        do {
            return try JSONDecoder().decode(SignInWithIdpRequest.self, from: Data(body))
        } catch {
            throw .invalidJSON(describe(error))
        }
    }

    /// The members every answer about a federated identity carries.
    private static func identityFields(_ identity: FakeFederatedIdentity) -> [String: Any] {
        var fields: [String: Any] = [
            "kind": "identitytoolkit#VerifyAssertionResponse",
            "providerId": identity.providerID,
            "federatedId": identity.federatedID,
            "emailVerified": identity.emailVerified,
            "rawUserInfo": identity.rawUserInfo,
        ]
        if let email = identity.email { fields["email"] = email }
        if let displayName = identity.displayName { fields["displayName"] = displayName }
        if let screenName = identity.screenName { fields["screenName"] = screenName }
        return fields
    }

    /// The local id in a Firebase ID token this backend issued; refuses any other token.
    private func verifiedBackendLocalID(_ idToken: String) async throws(IdentityToolkitError) -> String {
        let (key, now) = await state.backendSigningContext()
        let claims: [String: Any]
        do {
            claims = try Self.verifiedClaims(idToken, key: key, issuer: Self.backendIssuer, now: now)
        } catch {
            if error.expired { throw IdentityToolkitError("TOKEN_EXPIRED") }
            throw IdentityToolkitError(
                "INVALID_ID_TOKEN", "the idToken was not issued by this backend: \(error.reason)")
        }
        guard claims["aud"] as? String == Self.backendProjectID, let localID = claims["sub"] as? String,
            !localID.isEmpty
        else {
            throw IdentityToolkitError("INVALID_ID_TOKEN", "the idToken is for another project or has no sub")
        }
        return localID
    }

    /// A Firebase-style ID token: RS256 with the fake IdP's key, `iss` `securetoken`, `aud` the project.
    private func issueBackendIDToken(localID: String, identity: FakeFederatedIdentity, tenantID: String?)
        async throws(IdentityToolkitError) -> String
    {
        let (key, now) = await state.backendSigningContext()
        let issuedAt = Int(now.timeIntervalSince1970)
        var identities: [String: Any] = [identity.providerID: [identity.subject]]
        if let email = identity.email { identities["email"] = [email] }
        var firebase: [String: Any] = ["identities": identities, "sign_in_provider": identity.providerID]
        if let tenantID { firebase["tenant"] = tenantID }
        var claims: [String: Any] = [
            "iss": Self.backendIssuer, "aud": Self.backendProjectID, "sub": localID, "user_id": localID,
            "iat": issuedAt, "auth_time": issuedAt, "exp": issuedAt + Self.backendTokenLifetime,
            "email_verified": identity.emailVerified, "firebase": firebase,
        ]
        if let email = identity.email { claims["email"] = email }
        if let name = identity.displayName { claims["name"] = name }
        do {
            let payload = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
            return try CompactJWS.sign(
                header: JOSEHeader(alg: key.algorithm.rawValue, kid: key.publicKey.keyID), payload: payload, key: key)
        } catch {
            throw IdentityToolkitError.internalError("cannot sign the ID token: \(error)")
        }
    }

    private static func opaqueToken(prefix: String) throws(IdentityToolkitError) -> String {
        do {
            return prefix + (try SecureRandom.base64URLString(byteCount: 32))
        } catch {
            throw IdentityToolkitError.internalError("no randomness: \(error)")
        }
    }
}

extension FakeIdPState {
    /// The current signing key and the fake clock's time, read together.
    func backendSigningContext() -> (key: SigningKey, now: Date) {
        (signingKey, now())
    }
}
