import AuthHandlerHTTP
import AuthHandlerProtocols
import AuthHandlerStore
import AuthHandlerSystem
import Foundation

/// Redeeming a result: HTTP-API.md §3.3. The credential is handed to the sign-in backend here. Every way to sign in
/// ends here, and device sign-in's poll redeems through it too (docs/ARCHITECTURE.md, `Flow`).
struct SignInRedemption: Sendable {
    let store: any SessionStore
    /// For the protocol a result's provider speaks, which the backend is told.
    let providers: ProviderRegistry
    let backend: any SignInBackend
    let observer: any SignInObserver
    let now: WallClock
    /// What a client is told to wait before retrying a redemption another one holds (``SignInFlow/Settings``).
    let retryAfterSeconds: Int

    /// The result JSON for a redemption form (`code`, `verifier`, `idToken`).
    ///
    /// The result is read and its verifier and `idToken` checked before it is claimed, so whoever intercepted a code
    /// can neither spoil the sign-in nor hold it up; the claim then makes the backend call happen at most once.
    func redeem(_ fields: [URLFormField]) async throws(APIError) -> RedemptionAnswer {
        let began = now()
        for name in ["code", "verifier", "idToken"] where fields.all(named: name).count > 1 {
            throw APIError(.invalidRequest, "\(name) is given more than once; send it once")
        }
        guard let code = fields.first(named: "code"), !code.isEmpty, code.utf8.count <= 512 else {
            throw APIError(.invalidRequest, "code is required: the code the handler added to your redirectUrl")
        }
        let peeked = try await lookUpResult(code: code, claiming: false)
        let result = peeked.result
        do throws(RedeemFailure) {
            try checkRedemption(result, fields: fields)
        } catch {
            observer.stepFailed(
                .redeem, provider: result.providerID, code: error.error.code, latencyMilliseconds: nil,
                reason: error.error.message)
            throw error.error
        }
        // Claimed for as long as the result lives; released below only when the code stays redeemable.
        _ = try await lookUpResult(code: code, claiming: true, peeked: peeked)
        do throws(RedeemFailure) {
            let answer = try await signIn(result, code: code, fields: fields)
            do {
                try await finish(code: code, redeemed: true)
            } catch {
                // The sign-in is done; the app gets it. The claim lasts until the result expires, so the code cannot
                // succeed a second time.
                observer.redeemedResultNotDeleted(provider: result.providerID)
            }
            observer.stepSucceeded(
                .redeem, provider: result.providerID,
                latencyMilliseconds: SignInFlow.milliseconds(since: began, now: now))
            return answer
        } catch let failure {
            // Only a definite answer uses the code up; anything the app can retry leaves it redeemable.
            let error = failure.error
            try? await finish(code: code, redeemed: !failure.keepsCode)
            observer.stepFailed(
                .redeem, provider: result.providerID, code: error.code,
                latencyMilliseconds: SignInFlow.milliseconds(since: began, now: now), reason: error.message)
            throw error
        }
    }

    /// A result as read from the store, with the sealed bytes it was opened from.
    private struct ReadResult {
        var sealed: [UInt8]
        var result: StoredResult
    }

    /// The result under `code`, read or claimed: `400 invalid-result-code` when there is none (or it does not open),
    /// `409 redemption-in-progress` while another redemption holds it.
    ///
    /// A claim that finds the very bytes `peeked` was opened from returns `peeked`: a result is written once under its
    /// code and never changed, so opening and decoding the same bytes again would only repeat the work.
    private func lookUpResult(code: String, claiming: Bool, peeked: ReadResult? = nil) async throws(APIError)
        -> ReadResult
    {
        let lookup: ResultLookup
        do {
            if claiming {
                lookup = try await store.claimResult(code: code, now: now())
            } else {
                lookup = try await store.peekResult(code: code, now: now())
            }
        } catch {
            throw SignInFlow.storeFailure(error)
        }
        switch lookup {
        case .available(let sealed):
            if let peeked, peeked.sealed == sealed { return peeked }
            if let plaintext = ResultSeal.open(sealed, code: code),
                let result = JSONValue.parse(plaintext).flatMap(StoredResult.init(json:))
            {
                return ReadResult(sealed: sealed, result: result)
            }
        case .claimed:
            observer.redemptionFoundHeld()
            throw APIError(
                .redemptionInProgress, "another redemption of this code is in flight; retry after it ends",
                retryAfterSeconds: retryAfterSeconds)
        case .absent:
            break
        }
        observer.stepFailed(.redeem, provider: nil, code: .invalidResultCode, latencyMilliseconds: nil, reason: nil)
        throw APIError(.invalidResultCode, "the result code is unknown, expired or already redeemed; sign in again")
    }

    /// The app's proof that it started this sign-in (HTTP-API.md §3.3), and the `idToken` link and reauth need.
    private func checkRedemption(_ result: StoredResult, fields: [URLFormField]) throws(RedeemFailure) {
        let verifier = fields.first(named: "verifier")
        if let challenge = result.resultChallenge {
            guard let verifier, PKCE.verify(verifier: verifier, matchesChallenge: challenge) else {
                throw RedeemFailure(
                    error: APIError(
                        .invalidResultCode,
                        "the verifier is missing or does not match the resultChallenge of this sign-in"),
                    keepsCode: true)
            }
        } else if verifier != nil {
            throw RedeemFailure(
                error: APIError(
                    .invalidResultCode,
                    "this sign-in was started without resultChallenge, so no verifier can match; redeem without one"),
                keepsCode: true)
        }
        if result.authType.requiresIDToken, fields.first(named: "idToken")?.isEmpty ?? true {
            throw RedeemFailure(
                error: APIError(
                    .invalidRequest,
                    "idToken is required for \(result.authType.rawValue): send the user's current ID token"),
                keepsCode: true)
        }
    }

    private func signIn(
        _ result: StoredResult, code: String, fields: [URLFormField]
    ) async throws(RedeemFailure) -> RedemptionAnswer {
        let idToken = fields.first(named: "idToken")
        let resultId: String
        do {
            resultId = try ResultSeal.resultID(code)
        } catch {
            throw RedeemFailure(
                error: APIError(.internalError, "the result id could not be derived: \(error.description)"),
                keepsCode: true)
        }
        if let account = result.account { return try await accountSignIn(result, account) }
        guard let provider = providers[result.providerID] else {
            throw RedeemFailure(
                error: APIError(.backendError, "\(result.providerID) is no longer configured"), keepsCode: false)
        }
        let request = BackendSignInRequest(
            providerId: result.providerID, protocolKind: provider.protocolKind, credential: result.credential,
            profile: result.profile, authType: result.authType, requestUri: result.requestURI,
            idToken: result.authType.requiresIDToken ? idToken : nil, eventId: result.eventID,
            resultId: resultId, verifier: fields.first(named: "verifier"))
        let signIn: JSONValue?
        do {
            signIn = try await backend.signIn(request)
        } catch {
            var details = error.details
            if case .accountExistsWithDifferentCredential = error {
                details["credential"] = .object(StoredResult.members(of: result.credential))
            }
            throw RedeemFailure(
                error: APIError(error.code, error.description, details: details),
                keepsCode: error.isTransient)
        }
        return RedemptionAnswer(
            providerId: result.providerID, authType: result.authType, eventId: result.eventID,
            credential: result.credential, profile: result.profile, signIn: signIn)
    }

    /// A picker sign-in to the daemon's own accounts (HTTP-API.md §3.6): its session starts now, for the user read
    /// again (one disabled or deleted since is refused, and the code used up).
    private func accountSignIn(_ result: StoredResult, _ account: AccountResult) async throws(RedeemFailure)
        -> RedemptionAnswer
    {
        guard let accounts = backend as? AccountsBackend else {
            throw RedeemFailure(
                error: APIError(.backendError, "the accounts backend is no longer configured; sign in again"),
                keepsCode: false)
        }
        let signIn: JSONValue
        do {
            signIn = try await accounts.signIn(account)
        } catch {
            throw RedeemFailure(
                error: APIError(error.code, error.description, details: error.details), keepsCode: error.isTransient)
        }
        return RedemptionAnswer(
            providerId: result.providerID, authType: result.authType, eventId: result.eventID,
            credential: result.credential, profile: result.profile, signIn: signIn)
    }

    private func finish(code: String, redeemed: Bool) async throws(APIError) {
        do {
            if redeemed {
                try await store.deleteResult(code: code)
            } else {
                try await store.releaseResult(code: code)
            }
        } catch {
            throw SignInFlow.storeFailure(error)
        }
    }

}

/// A failed redemption, and whether the result code stays redeemable (a wrong verifier, a missing idToken,
/// a transient backend failure) or is used up (a definite answer from the backend).
struct RedeemFailure: Error {
    var error: APIError
    var keepsCode: Bool
}

/// The `200` answer of `POST /__/auth/result` (HTTP-API.md §3.3).
package struct RedemptionAnswer: Sendable {
    package var providerId: String
    package var authType: AuthType
    package var eventId: String?
    package var credential: IdPCredential
    package var profile: ProviderProfile
    /// The backend's answer; null for backend `none`.
    package var signIn: JSONValue?
}
