import AuthHandlerHTTP
import Foundation

/// What the Service layer and the tests call: each step handed to the part that owns it (docs/ARCHITECTURE.md,
/// `Flow`).
extension SignInFlow {
    /// ``SignInStart/maximumPendingPerBrowser``.
    package static let maximumPendingPerBrowser = SignInStart.maximumPendingPerBrowser

    /// ``SignInStart/start(_:client:cookieHeaders:fetchMetadata:)`` (HTTP-API.md §3.1).
    package func start(
        _ fields: [URLFormField], client: String? = nil, cookieHeaders: [String] = [],
        fetchMetadata: FetchMetadata = FetchMetadata()
    ) async throws(APIError) -> StartAnswer {
        try await starts.start(fields, client: client, cookieHeaders: cookieHeaders, fetchMetadata: fetchMetadata)
    }

    /// ``SignInStart/startImmediately(_:cookieHeaders:fetchMetadata:)``: a start answered on the listener's thread.
    package func startImmediately(
        _ fields: [URLFormField], cookieHeaders: [String] = [], fetchMetadata: FetchMetadata = FetchMetadata()
    ) -> Result<StartAnswer, APIError>? {
        starts.startImmediately(fields, cookieHeaders: cookieHeaders, fetchMetadata: fetchMetadata)
    }

    /// ``SignInStart/pickerChoices(_:)`` (HTTP-API.md §3.6).
    package func pickerChoices(_ fields: [URLFormField]) throws(APIError) -> [PickerChoice] {
        try starts.pickerChoices(fields)
    }

    /// ``SignInStart/pickerOffer(_:passwords:)`` (HTTP-API.md §3.6).
    package func pickerOffer(_ fields: [URLFormField], passwords: Bool) throws(APIError)
        -> (choices: [PickerChoice], email: Bool)
    {
        try starts.pickerOffer(fields, passwords: passwords)
    }

    /// The e-mail entry's start parameters in `fields`, checked as a start checks them (HTTP-API.md §3.6).
    package func pickerEmailStart(_ fields: [URLFormField]) throws(APIError) -> PickerEmailStart {
        try PickerEmailStart(fields: fields, settings: settings)
    }

    /// Keeps the result of a picker sign-in to the accounts backend as a provider result is kept (sealed under its
    /// code, single use, bound to the app's `resultChallenge`; HTTP-API.md §3.2, §3.6); where to send the browser.
    package func savePickerResult(
        _ start: PickerEmailStart, localID: String, email: String?, displayName: String?, isNewUser: Bool,
        method: String = SignInStart.passwordProviderID
    ) async throws(APIError) -> String {
        let at = callbacks.now()
        let result = StoredResult(
            providerID: method, authType: .signInViaRedirect, eventID: start.eventID,
            resultChallenge: start.resultChallenge, credential: IdPCredential(),
            profile: ProviderProfile(id: localID, displayName: displayName, email: email),
            requestURI: settings.redirectURI, createdAt: at,
            account: AccountResult(
                localID: localID, method: method, authTime: at, isNewUser: isNewUser))
        do throws(CallbackFailure) {
            return start.location(code: try await callbacks.results.save(result))
        } catch {
            throw APIError(error.code, error.message)
        }
    }

    /// ``SignInCallback/isCallback(_:)``.
    package static func isCallback(_ fields: [URLFormField]) -> Bool {
        SignInCallback.isCallback(fields)
    }

    /// ``SignInCallback/callback(_:cookieHeaders:formPost:client:)`` (HTTP-API.md §3.2).
    package func callback(_ fields: [URLFormField], cookieHeaders: [String], formPost: Bool, client: String? = nil)
        async -> CallbackAnswer
    {
        await callbacks.callback(fields, cookieHeaders: cookieHeaders, formPost: formPost, client: client)
    }

    /// An IdP `error` value reduced to the RFC 6749 error character set, so it is safe to echo.
    package static func safeErrorCode(_ error: String) -> String {
        OAuth2Driver.safeErrorCode(error)
    }

    /// ``SignInRedemption/redeem(_:)`` (HTTP-API.md §3.3).
    package func redeem(_ fields: [URLFormField]) async throws(APIError) -> RedemptionAnswer {
        try await redemption.redeem(fields)
    }

    /// ``DeviceSignIn/issueDevice(_:client:)`` (HTTP-API.md §3.9).
    package func issueDevice(_ fields: [URLFormField], client: String) async throws(APIError) -> DeviceIssue {
        try await device.issueDevice(fields, client: client)
    }

    /// ``DeviceSignIn/deviceConfirmation(userCode:client:cookieHeaders:)``.
    package func deviceConfirmation(userCode typed: String, client: String, cookieHeaders: [String])
        async throws(APIError) -> DeviceConfirmationAnswer
    {
        try await device.deviceConfirmation(userCode: typed, client: client, cookieHeaders: cookieHeaders)
    }

    /// ``DeviceSignIn/deviceDecision(_:client:cookieHeaders:)``.
    package func deviceDecision(_ fields: [URLFormField], client: String, cookieHeaders: [String])
        async throws(APIError) -> DeviceDecisionAnswer
    {
        try await device.deviceDecision(fields, client: client, cookieHeaders: cookieHeaders)
    }

    /// ``DevicePolling/poll(_:)``.
    package func pollDevice(_ fields: [URLFormField]) async -> DeviceTokenAnswer {
        await devicePolls.poll(fields)
    }
}
