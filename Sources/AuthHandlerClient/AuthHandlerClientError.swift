import Foundation

/// Why a sign-in did not complete: one case per error code of the daemon (HTTP-API.md §5), named after FirebaseAuth's
/// `AuthErrorCode` where it has the same meaning, then the client's own failures.
///
/// Every daemon case carries the daemon's `message` (what to do next; never a token) and the extra members its error
/// object has (HTTP-API.md §3.3). Printing an error shows its code and message only: the pending credential and
/// `mfaPendingCredential` it may carry are secrets.
public enum AuthHandlerClientError: Error, Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    // MARK: The daemon's codes

    /// `invalid-request`: a malformed start or redemption.
    case invalidRequest(message: String)
    /// `invalid-provider`: the `providerId` is not configured.
    case invalidProviderID(message: String)
    /// `unauthorized-redirect-url`: the redirect URL is not in `allowedRedirectURLs`.
    case unauthorizedRedirectURL(message: String)
    /// `unsupported-auth-type`.
    case unsupportedAuthType(message: String)
    /// `reserved-custom-parameter`: a custom parameter names one the daemon sets itself.
    case reservedCustomParameter(message: String)
    /// `invalid-state`: the browser's callback did not match a sign-in it started.
    case invalidState(message: String)
    /// `invalid-result-code`: the result code is unknown, expired or already redeemed, or the verifier does not match.
    case invalidResultCode(message: String)
    /// `invalid-id-token`: the backend refused the ID token given for link or reauthentication.
    case invalidUserToken(message: String)
    /// `second-factor-required`: finish the sign-in with the second factor, through the backend, with
    /// `mfaPendingCredential`; `mfaInfo` lists the enrolled factors (Identity Toolkit's form).
    case secondFactorRequired(mfaPendingCredential: String, mfaInfo: AuthHandlerClient.JSON, message: String)
    /// `user-disabled`: the backend says the account is disabled.
    case userDisabled(message: String)
    /// `user-cancelled`: the user denied the sign-in at the provider (`access_denied`, or OAuth 1.0a `denied`).
    case userCancelled(message: String)
    /// `navigation-required`: the browser fetched the start from inside a page (an image, a frame, `fetch()`); open
    /// the start URL as a top-level page instead.
    case navigationRequired(message: String)
    /// `not-found`: no such path at the base URL (a wrong base URL, or a `--once` port).
    case notFound(message: String)
    /// `method-not-allowed`.
    case methodNotAllowed(message: String)
    /// `account-exists-with-different-credential`: an account with this identity's e-mail exists. Sign in with one
    /// of `verifiedProviders`, then link `credential` (the provider's, as the result would have carried it); with
    /// backend `accounts`, `pendingCredential` instead, with `link(pendingCredential:from:)` (HTTP-API.md §3.10).
    case accountExistsWithDifferentCredential(
        email: String?, verifiedProviders: [String], credential: SignInResult.Credential?, pendingCredential: String?,
        message: String)
    /// `credential-already-in-use`: this identity already belongs to another account.
    case credentialAlreadyInUse(email: String?, message: String)
    /// `email-already-in-use`: linking failed because the e-mail belongs to another account.
    case emailAlreadyInUse(email: String?, message: String)
    /// `redemption-in-progress`: another redemption of the code is in flight; try again after `retryAfter` seconds.
    case redemptionInProgress(retryAfter: Int?, message: String)
    /// `too-many-requests`: over the daemon's rate limit; try again after `retryAfter` seconds.
    case tooManyRequests(retryAfter: Int?, message: String)
    /// `internal-error`: a failure of the daemon itself.
    case internalError(message: String)
    /// `provider-error`: the identity provider failed or answered wrongly.
    case providerError(message: String)
    /// `backend-error`: the sign-in backend failed. When it was transient the code stays redeemable until it expires,
    /// and `complete` with the same request may succeed.
    case backendError(message: String)
    /// `interaction-required`: a silent sign-in (`prompt=none`) needs the user (OpenID Connect Core §3.1.2.6).
    case interactionRequired(message: String)
    /// `unavailable`: the daemon's store is unreachable; try again after `retryAfter` seconds.
    case unavailable(retryAfter: Int?, message: String)

    // MARK: Device sign-in (RFC 8628 §3.5, HTTP-API.md §3.9)

    /// `expired_token`: nobody signed in with the user code before it expired; start a new device sign-in.
    case deviceCodeExpired(message: String)
    /// `invalid_grant`: the daemon knows no such device code, or its result was already delivered.
    case invalidGrant(message: String)

    // MARK: The client's own

    /// `begin` was given something the daemon would refuse, or the client's base URL cannot reach a daemon.
    case invalidArgument(message: String)
    /// The callback URL is not a return from this daemon: no `code` or `error`, a repeated parameter, or bad
    /// percent-encoding.
    case invalidCallbackURL(message: String)
    /// The callback URL is not the request's `redirectURL` come back: its scheme, host, port or path differs. Its
    /// code was not redeemed.
    case mismatchedCallbackURL(message: String)
    /// `baseURL` is plain `http` to a host other than loopback (`localhost`, 127.0.0.0/8, `::1`): the verifier and
    /// the result would cross the network unencrypted. Refused before anything is sent.
    case insecureBaseURL(message: String)
    /// The callback belongs to another sign-in: its `eventId` is not the request's (or is missing). Its code was
    /// not redeemed.
    case mismatchedEventId(expected: String, received: String?)
    /// `POST /__/auth/result` did not reach the daemon or its answer was cut off (URLSession's description).
    case networkError(message: String)
    /// The answer is not the daemon's JSON (a proxy's page, a truncated body); `status` is its HTTP status.
    case unreadableAnswer(status: Int, message: String)
    /// An error code this client does not know (a newer daemon's), with its message.
    case unknown(code: String, message: String)
    /// The ``SessionStore`` could not read, write or remove the session (a file readable by others, a full disk, a
    /// keychain refusal).
    case sessionStore(message: String)
    /// An account call that needs a signed-in user was made while signed out, or the session ended (its refresh
    /// token was refused: `invalid_grant`).
    case signedOut(message: String)

    /// The error a daemon answered with: its error object (HTTP-API.md §3.5, the `error` of a redirect as one with
    /// only `code` and `message`) and its `Retry-After`. A code is matched against ``code``, the one table of the
    /// daemon's codes; a code no case here has (a newer daemon's) is `unknown`.
    init(_ answer: DaemonErrorObject, retryAfter: Int? = nil) {
        let message = answer.message ?? ""
        let candidates: [AuthHandlerClientError] = [
            .invalidRequest(message: message), .invalidProviderID(message: message),
            .unauthorizedRedirectURL(message: message), .unsupportedAuthType(message: message),
            .reservedCustomParameter(message: message), .invalidState(message: message),
            .invalidResultCode(message: message), .invalidUserToken(message: message),
            .secondFactorRequired(
                mfaPendingCredential: answer.mfaPendingCredential ?? "", mfaInfo: answer.mfaInfo ?? .array([]),
                message: message),
            .userDisabled(message: message), .navigationRequired(message: message), .userCancelled(message: message),
            .notFound(message: message), .methodNotAllowed(message: message),
            .accountExistsWithDifferentCredential(
                email: answer.email, verifiedProviders: answer.verifiedProviders ?? [], credential: answer.credential,
                pendingCredential: answer.pendingCredential, message: message),
            .credentialAlreadyInUse(email: answer.email, message: message),
            .emailAlreadyInUse(email: answer.email, message: message),
            .redemptionInProgress(retryAfter: retryAfter, message: message),
            .tooManyRequests(retryAfter: retryAfter, message: message), .internalError(message: message),
            .providerError(message: message), .backendError(message: message),
            .interactionRequired(message: message), .unavailable(retryAfter: retryAfter, message: message),
        ]
        self = candidates.first { $0.code == answer.code } ?? .unknown(code: answer.code, message: message)
    }

    /// The daemon's error code (HTTP-API.md §5) of a daemon case, or of `unknown`; nil for the client's own failures.
    public var code: String? {
        switch self {
        case .invalidRequest: "invalid-request"
        case .invalidProviderID: "invalid-provider"
        case .unauthorizedRedirectURL: "unauthorized-redirect-url"
        case .unsupportedAuthType: "unsupported-auth-type"
        case .reservedCustomParameter: "reserved-custom-parameter"
        case .invalidState: "invalid-state"
        case .invalidResultCode: "invalid-result-code"
        case .invalidUserToken: "invalid-id-token"
        case .secondFactorRequired: "second-factor-required"
        case .userDisabled: "user-disabled"
        case .navigationRequired: "navigation-required"
        case .userCancelled: "user-cancelled"
        case .notFound: "not-found"
        case .methodNotAllowed: "method-not-allowed"
        case .accountExistsWithDifferentCredential: "account-exists-with-different-credential"
        case .credentialAlreadyInUse: "credential-already-in-use"
        case .emailAlreadyInUse: "email-already-in-use"
        case .redemptionInProgress: "redemption-in-progress"
        case .tooManyRequests: "too-many-requests"
        case .internalError: "internal-error"
        case .providerError: "provider-error"
        case .backendError: "backend-error"
        case .interactionRequired: "interaction-required"
        case .unavailable: "unavailable"
        case .deviceCodeExpired: "expired_token"
        case .invalidGrant: "invalid_grant"
        case .unknown(let code, _): code
        case .invalidArgument, .invalidCallbackURL, .mismatchedCallbackURL, .insecureBaseURL, .mismatchedEventId,
            .networkError, .unreadableAnswer, .sessionStore, .signedOut:
            nil
        }
    }

    /// What went wrong and what to do: the daemon's message, or the client's.
    public var message: String {
        switch self {
        case .invalidRequest(let message), .invalidProviderID(let message), .unauthorizedRedirectURL(let message),
            .unsupportedAuthType(let message), .reservedCustomParameter(let message), .invalidState(let message),
            .invalidResultCode(let message), .invalidUserToken(let message), .secondFactorRequired(_, _, let message),
            .userDisabled(let message), .userCancelled(let message), .navigationRequired(let message),
            .notFound(let message),
            .methodNotAllowed(let message), .accountExistsWithDifferentCredential(_, _, _, _, let message),
            .credentialAlreadyInUse(_, let message), .emailAlreadyInUse(_, let message),
            .redemptionInProgress(_, let message), .tooManyRequests(_, let message), .internalError(let message),
            .providerError(let message), .backendError(let message), .interactionRequired(let message),
            .unavailable(_, let message), .deviceCodeExpired(let message), .invalidGrant(let message),
            .invalidArgument(let message), .invalidCallbackURL(let message), .mismatchedCallbackURL(let message),
            .insecureBaseURL(let message),
            .networkError(let message), .unreadableAnswer(_, let message), .unknown(_, let message),
            .sessionStore(let message), .signedOut(let message):
            message
        case .mismatchedEventId(let expected, let received):
            "the callback URL is for another sign-in (eventId \(received.map { "\"\($0)\"" } ?? "missing"), "
                + "expected \"\(expected)\"); complete each SignInRequest with its own callback"
        }
    }

    public var description: String {
        "AuthHandlerClientError(\(code ?? "client"): \(message))"
    }

    public var customMirror: Mirror {
        Mirror(self, children: ["description": description])
    }
}

extension AuthHandlerClientError: LocalizedError {
    public var errorDescription: String? { message }
}
