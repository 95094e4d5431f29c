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
        for name in ["providerId", "providers"] + Self.carriedStartParameters where fields.all(named: name).count > 1 {
            throw APIError(.invalidRequest, "\(name) is given more than once; send it once")
        }
        if fields.first(named: "providerId") != nil {
            throw APIError(
                .invalidRequest,
                "the sign-in picker lets the user choose the provider; leave providerId out, or start at "
                    + "/__/auth/handler with it to skip the picker")
        }
        let offered = try pickerProviders(fields.first(named: "providers"))
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
        return choices
    }

    /// The pending sign-in `request`'s start would seal, its random values at their real lengths (base64url of 32
    /// bytes), and what the provider issues at its shortest (the provider's driver, ``SignInProtocolDriver``).
    private func projectedSession(_ request: StartRequest) -> PendingSession {
        let session = request.session(createdAt: now(), ttl: settings.sessionTTL)
        let random = String(repeating: "A", count: 43)
        return drivers[request.provider].projected(session, request: request, random: random)
    }

    /// The providers `providers=` lists, in its order and each once; every configured one, by name, without it.
    private func pickerProviders(_ list: String?) throws(APIError) -> [ProviderDescriptor] {
        guard let list else {
            guard !providers.ids.isEmpty else {
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
