import AuthHandlerHTTP
import Foundation

/// One button of the sign-in picker: a provider and the start that its button opens.
package struct PickerChoice: Sendable, Equatable {
    /// The provider id, as `providerId` of the start.
    package var providerID: String
    /// The provider's name for people (``ProviderDescriptor/displayName``).
    package var displayName: String
    /// The start's query: `providerId` first, then the picker's own start parameters as they were given.
    package var startQuery: String
}

/// The sign-in picker, `GET /__/auth/signin` (HTTP-API.md §3.6): the start's parameters without `providerId`, checked
/// for every provider offered exactly as a start for that provider checks them (HTTP-API.md §3.1), so that no button
/// leads to a refused start.
extension SignInStart {
    /// The start parameters a picker carries into each button's start, in the order HTTP-API.md §3.1 lists them.
    static let carriedStartParameters = [
        "redirectUrl", "authType", "eventId", "scopes", "customParameters", "resultChallenge", "resultDelivery",
    ]

    /// The picker's buttons for a request's query `fields`; throws the error a start would answer for the first
    /// provider whose start would be refused.
    func pickerChoices(_ fields: [URLFormField]) throws(APIError) -> [PickerChoice] {
        try pickerOffer(fields, passwords: false).choices
    }

    /// The picker's buttons, and whether it offers the e-mail entry (HTTP-API.md §3.6): when `passwords` (the accounts
    /// backend with `password.enabled`), the sign-in is a plain sign-in (`authType` `signInViaRedirect`), and
    /// `providers=` is absent or lists `password`. With the e-mail entry no provider need be configured.
    func pickerOffer(_ fields: [URLFormField], passwords: Bool) throws(APIError)
        -> (choices: [PickerChoice], email: Bool)
    {
        for name in ["providerId", "providers"] + Self.carriedStartParameters where fields.all(named: name).count > 1 {
            throw APIError(.invalidRequest, "\(name) is given more than once; send it once")
        }
        if fields.first(named: "providerId") != nil {
            throw APIError(
                .invalidRequest,
                "the sign-in picker lets the user choose the provider; leave providerId out, or start at "
                    + "/__/auth/handler with it to skip the picker")
        }
        let authType = try StartRequest.authType(fields.first(named: "authType"))
        var list = fields.first(named: "providers")
        var email = passwords && authType == .signInViaRedirect
        if let given = list, passwords {
            let ids = given.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            let rest = ids.filter { $0 != Self.passwordProviderID }
            if ids.contains(Self.passwordProviderID), !email {
                throw APIError(
                    .invalidProvider,
                    "password (the e-mail entry) is offered only to sign in (authType signInViaRedirect); "
                        + "leave it out of providers")
            }
            email = email && rest.count < ids.count
            if rest.isEmpty { return (try carriedChecked(fields), email) }
            list = rest.joined(separator: ",")
        }
        let offered = try pickerProviders(list, allowNone: email)
        let carried = fields.filter { Self.carriedStartParameters.contains($0.name) }
        var choices: [PickerChoice] = []
        for provider in offered {
            let start = [URLFormField(name: "providerId", value: provider.id)] + carried
            // The start's own checks, in the start's order, then its cookie's size: a picker never offers a start that
            // would be refused before it reaches the provider.
            _ = try cookies.pendingCookie(
                projectedSession(try StartRequest(fields: start, providers: providers, settings: settings)))
            choices.append(
                PickerChoice(
                    providerID: provider.id, displayName: provider.displayName,
                    startQuery: FormURLEncoding.encode(start)))
        }
        return (choices, email)
    }

    /// The `providers=` entry of the e-mail entry, Firebase's provider id for e-mail and password.
    static let passwordProviderID = "password"

    /// The picker's carried parameters checked, for a picker that offers only the e-mail entry: no buttons.
    private func carriedChecked(_ fields: [URLFormField]) throws(APIError) -> [PickerChoice] {
        _ = try PickerEmailStart(fields: fields, settings: settings)
        return []
    }

    /// The pending sign-in `request`'s start would seal, its random values at their real lengths (base64url of 32
    /// bytes), and what the provider issues at its shortest (the provider's driver, ``SignInProtocolDriver``).
    private func projectedSession(_ request: StartRequest) -> PendingSession {
        let session = request.session(createdAt: now(), ttl: settings.sessionTTL)
        let random = String(repeating: "A", count: 43)
        return drivers[request.provider].projected(session, request: request, random: random)
    }

    /// The providers `providers=` lists, in its order and each once; every configured one, by name, without it.
    private func pickerProviders(_ list: String?, allowNone: Bool) throws(APIError) -> [ProviderDescriptor] {
        guard let list else {
            guard !providers.ids.isEmpty || allowNone else {
                throw APIError(
                    .invalidProvider, "no provider is configured, so there is nothing to pick; add one under providers")
            }
            return providers.descriptors.values.sorted {
                ($0.displayName.lowercased(), $0.id) < ($1.displayName.lowercased(), $1.id)
            }
        }
        var offered: [ProviderDescriptor] = []
        for id in list.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
            guard !id.isEmpty else {
                throw APIError(
                    .invalidRequest,
                    "providers has an empty entry; list configured provider ids separated by commas, "
                        + "e.g. providers=google.com,github.com, or leave it out to offer every provider")
            }
            let provider = try StartRequest.provider(id, in: providers)
            if !offered.contains(where: { $0.id == provider.id }) { offered.append(provider) }
        }
        return offered
    }
}

/// The start parameters the picker's e-mail forms carry (HTTP-API.md §3.6), checked as a start checks them
/// (HTTP-API.md §3.1): where the result code goes, and what binds it to the app.
package struct PickerEmailStart: Sendable, Equatable {
    package init(redirectURL: String, eventID: String?, resultChallenge: String?, resultDelivery: ResultDelivery?) {
        self.redirectURL = redirectURL
        self.eventID = eventID
        self.resultChallenge = resultChallenge
        self.resultDelivery = resultDelivery
    }

    package var redirectURL: String
    package var eventID: String?
    package var resultChallenge: String?
    package var resultDelivery: ResultDelivery?

    init(fields: [URLFormField], settings: SignInFlow.Settings) throws(APIError) {
        for name in SignInStart.carriedStartParameters where fields.all(named: name).count > 1 {
            throw APIError(.invalidRequest, "\(name) is given more than once; send it once")
        }
        guard try StartRequest.authType(fields.first(named: "authType")) == .signInViaRedirect else {
            throw APIError(
                .unsupportedAuthType,
                "the e-mail entry only signs in; link or reauthenticate with a provider, or through the accounts "
                    + "endpoints (HTTP-API.md §3.10)")
        }
        redirectURL = try StartRequest.redirectURL(fields.first(named: "redirectUrl"), policy: settings.redirectPolicy)
        eventID = try StartRequest.eventID(fields.first(named: "eventId"))
        _ = try StartRequest.scopes(fields.first(named: "scopes"))
        resultChallenge = try StartRequest.resultChallenge(
            fields.first(named: "resultChallenge"), required: settings.requireResultChallenge)
        resultDelivery = try StartRequest.resultDelivery(fields.first(named: "resultDelivery"))
    }

    /// Where the browser goes with the result `code`: the app's `redirectUrl`, as a provider sign-in's callback sends
    /// it (HTTP-API.md §3.2).
    package func location(code: String) -> String {
        var back = [URLFormField(name: "code", value: code)]
        if let eventID { back.append(URLFormField(name: "eventId", value: eventID)) }
        return (resultDelivery ?? .query).appending(back, to: redirectURL)
    }
}
