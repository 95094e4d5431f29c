import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerProtocols
import AuthHandlerSystem
import Foundation

/// A start request's parameters, each checked, in the order HTTP-API.md §3.1 lists them.
struct StartRequest {
    let provider: ProviderDescriptor
    let redirectURL: String
    let authType: AuthType
    let eventID: String?
    let requestedScopes: [String]
    let customParameters: [URLFormField]
    let resultChallenge: String?
    /// Set for a device sign-in's start (HTTP-API.md §3.9); carried into the pending sign-in.
    var deviceResultCode: String? = nil
    /// `resultDelivery` as given; nil (absent) is the query.
    var resultDelivery: ResultDelivery? = nil

    /// The bounds on what the app sends that is sealed into the cookie, so that one stays small (HTTP-API.md §3.1).
    static let maximumEventIDLength = 128
    static let maximumRedirectURLLength = 512
    static let maximumScopesLength = 256
    /// The most bytes the custom parameters may take in the provider URL, percent-encoded: with the handler's own
    /// parameters the URL then stays within the 8,000 octets RFC 9110 §4.1 asks every recipient to accept.
    static let maximumCustomParameterBytes = 4096

    /// The request of a start: first that it is a navigation, then its fields.
    init(
        fields: [URLFormField], fetchMetadata: FetchMetadata, providers: ProviderRegistry, settings: SignInFlow.Settings
    ) throws(APIError) {
        try Self.requireNavigation(fetchMetadata)
        try self.init(fields: fields, providers: providers, settings: settings)
    }

    init(fields: [URLFormField], providers: ProviderRegistry, settings: SignInFlow.Settings) throws(APIError) {
        for name in [
            "providerId", "redirectUrl", "authType", "eventId", "scopes", "customParameters", "resultChallenge",
            "resultDelivery",
        ]
        where fields.all(named: name).count > 1 {
            throw APIError(.invalidRequest, "\(name) is given more than once; send it once")
        }
        provider = try Self.provider(fields.first(named: "providerId"), in: providers)
        redirectURL = try Self.redirectURL(fields.first(named: "redirectUrl"), policy: settings.redirectPolicy)
        authType = try Self.authType(fields.first(named: "authType"))
        eventID = try Self.eventID(fields.first(named: "eventId"))
        requestedScopes = try Self.scopes(fields.first(named: "scopes"))
        customParameters = try Self.customParameters(fields.first(named: "customParameters"), provider: provider)
        resultChallenge = try Self.resultChallenge(
            fields.first(named: "resultChallenge"), required: settings.requireResultChallenge)
        resultDelivery = try Self.resultDelivery(fields.first(named: "resultDelivery"))
    }

    /// Refuses a start that is not a top-level navigation, before anything else, so such a request sets no cookie:
    /// eviction sees only the cookies sent with each request, and twenty `<img>` starts in flight at once would set
    /// twenty (HTTP-API.md §3.1).
    static func requireNavigation(_ fetchMetadata: FetchMetadata) throws(APIError) {
        guard fetchMetadata.isTopLevelNavigation else {
            let made = [
                fetchMetadata.mode.map { "Sec-Fetch-Mode: \($0)" },
                fetchMetadata.destination.map { "Sec-Fetch-Dest: \($0)" },
            ]
            .compactMap { $0 }.joined(separator: ", ")
            throw APIError(
                .navigationRequired,
                "a sign-in starts only as a navigation of the browser window (a link, a redirect, window.location or "
                    + "window.open), not from an image, frame or script (this request came with "
                    + "\(SignInFlow.shortened(made, limit: 120))); open the start URL in the window")
        }
    }

    /// `providerId`: a configured provider.
    static func provider(_ id: String?, in providers: ProviderRegistry) throws(APIError) -> ProviderDescriptor {
        guard let id, !id.isEmpty else {
            throw APIError(
                .invalidRequest, "providerId is required; add providerId=<a configured provider id> to the URL")
        }
        guard let provider = providers[id] else {
            let known = providers.ids.joined(separator: ", ")
            throw APIError(
                .invalidProvider, "'\(SignInFlow.shortened(id))' is not a configured provider; configured: \(known)")
        }
        return provider
    }

    /// `redirectUrl`: one of `allowedRedirectURLs`, exactly.
    static func redirectURL(_ given: String?, policy: RedirectURLPolicy) throws(APIError) -> String {
        guard let given, !given.isEmpty else {
            throw APIError(.invalidRequest, "redirectUrl is required; add redirectUrl=<one of allowedRedirectURLs>")
        }
        guard given.utf8.count <= maximumRedirectURLLength else {
            throw APIError(
                .invalidRequest,
                "redirectUrl is longer than \(maximumRedirectURLLength) bytes; keep app state elsewhere than in its query"
            )
        }
        guard policy.allows(given) else {
            throw APIError(
                .unauthorizedRedirectURL,
                "redirectUrl is not in allowedRedirectURLs; add the exact URL (scheme, host, port and path) "
                    + "to allowedRedirectURLs in the config")
        }
        return given
    }

    /// `authType`, `signInViaRedirect` when absent.
    static func authType(_ name: String?) throws(APIError) -> AuthType {
        let name = name ?? AuthType.signInViaRedirect.rawValue
        guard let authType = AuthType(rawValue: name) else {
            throw APIError(
                .unsupportedAuthType,
                "authType '\(SignInFlow.shortened(name))' is not supported; use signInViaRedirect, "
                    + "linkViaRedirect or reauthViaRedirect")
        }
        return authType
    }

    /// `eventId`: at most 128 printable characters (bytes), when given.
    static func eventID(_ eventID: String?) throws(APIError) -> String? {
        if let eventID {
            guard eventID.utf8.count <= Self.maximumEventIDLength,
                eventID.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7f })
            else {
                throw APIError(
                    .invalidRequest, "eventId must be at most \(maximumEventIDLength) printable characters")
            }
        }
        return eventID
    }

    /// `scopes`: at most 256 bytes of comma-separated scope tokens, trimmed, empty ones and repeats dropped.
    static func scopes(_ text: String?) throws(APIError) -> [String] {
        guard (text?.utf8.count ?? 0) <= maximumScopesLength else {
            throw APIError(
                .invalidRequest, "scopes is longer than \(maximumScopesLength) bytes; request fewer scopes")
        }
        var scopes: [String] = []
        for scope in (text ?? "").split(separator: ",") {
            let trimmed = scope.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { continue }
            // RFC 6749 §3.3 scope-token: %x21 / %x23-5B / %x5D-7E.
            guard
                trimmed.utf8.allSatisfy({ $0 == 0x21 || (0x23...0x5B).contains($0) || (0x5D...0x7E).contains($0) })
            else {
                throw APIError(
                    .invalidRequest,
                    "scope '\(SignInFlow.shortened(trimmed))' has characters a scope cannot have (RFC 6749 §3.3)")
            }
            if !scopes.contains(trimmed) { scopes.append(trimmed) }
        }
        return scopes
    }

    /// `resultChallenge`: the base64url SHA-256 of the app's redemption verifier; required when the config says so.
    static func resultChallenge(_ challenge: String?, required: Bool) throws(APIError) -> String? {
        if challenge == nil, required {
            throw APIError(
                .invalidRequest,
                "resultChallenge is required: send the base64url SHA-256 of a random verifier your app keeps, "
                    + "and present the verifier when you redeem the result")
        }
        if let challenge {
            guard challenge.utf8.count == 43, Base64.urlDecode(challenge)?.count == 32 else {
                throw APIError(
                    .invalidRequest,
                    "resultChallenge must be the base64url SHA-256 (43 characters) of your redemption verifier")
            }
        }
        return challenge
    }

    /// `resultDelivery`: `query` or `fragment`, when given.
    static func resultDelivery(_ name: String?) throws(APIError) -> ResultDelivery? {
        guard let name else { return nil }
        guard let delivery = ResultDelivery(rawValue: name) else {
            throw APIError(
                .invalidRequest,
                "resultDelivery '\(SignInFlow.shortened(name))' is not supported; use query (the default) or fragment")
        }
        return delivery
    }

    /// `customParameters`: a JSON object of strings, none of them reserved for the provider's protocol.
    static func customParameters(_ text: String?, provider: ProviderDescriptor) throws(APIError) -> [URLFormField] {
        guard let text, !text.isEmpty else { return [] }
        guard let object = JSONValue.parse(Array(text.utf8))?.objectValue else {
            throw APIError(
                .invalidRequest,
                #"customParameters must be a JSON object of strings, each name once, e.g. {"login_hint":"a@b.c"}"#)
        }
        var fields: [URLFormField] = []
        for (name, value) in object.sorted(by: { $0.key < $1.key }) {
            guard let string = value.stringValue else {
                throw APIError(.invalidRequest, "customParameters.\(SignInFlow.shortened(name)) must be a string")
            }
            fields.append(URLFormField(name: name, value: string))
        }
        guard FormURLEncoding.encode(fields).utf8.count <= maximumCustomParameterBytes else {
            throw APIError(
                .invalidRequest,
                "customParameters take more than \(maximumCustomParameterBytes) bytes in the provider URL; "
                    + "send fewer or shorter ones")
        }
        let family: ReservedParameters.ProtocolFamily = provider.protocolKind == .oauth1 ? .oauth1 : .oauth2
        do {
            try ReservedParameters.validate(fields, for: family)
        } catch {
            switch error {
            case .invalidName: throw APIError(.invalidRequest, error.description)
            case .reserved: throw APIError(.reservedCustomParameter, error.description)
            }
        }
        return fields
    }

    /// The provider's default scopes followed by the requested ones, without repeats.
    func scopes(defaults: [String]) -> [String] {
        var scopes = defaults
        for scope in requestedScopes where !scopes.contains(scope) { scopes.append(scope) }
        return scopes
    }

    /// The scopes an OAuth 2 or OIDC start sends: ``scopes(defaults:)`` with the provider's configured ones.
    var providerScopes: [String] { scopes(defaults: configuredScopes) }

    /// The provider's own scopes, before any requested one: its default scopes, and `openid` first for OIDC when they
    /// lack it.
    var configuredScopes: [String] {
        var scopes = provider.defaultScopes
        if provider.protocolKind == .oidc, !scopes.contains("openid") { scopes.insert("openid", at: 0) }
        return scopes
    }

    func session(createdAt: Date, ttl: Duration) -> PendingSession {
        PendingSession(
            providerID: provider.id, redirectURL: redirectURL, authType: authType, eventID: eventID,
            resultChallenge: resultChallenge, scopes: requestedScopes, codeVerifier: nil, nonce: nil,
            requestToken: nil, requestTokenSecret: nil, createdAt: createdAt,
            expiresAt: createdAt.addingTimeInterval(ttl.timeInterval), deviceResultCode: deviceResultCode,
            resultDelivery: resultDelivery)
    }
}
