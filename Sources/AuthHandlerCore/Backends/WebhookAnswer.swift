import AuthHandlerHTTP
import AuthHandlerSystem

/// Reads a webhook's answer: 2xx is the `signIn` JSON (null when empty); a 4xx whose JSON body is
/// `{"error": {"code": ...}}` with one of the codes of HTTP-API.md §5 is that outcome; 408, 429 and 5xx are
/// transient; anything else is a refusal.
enum WebhookAnswer {
    static let backendName = "the webhook"

    static func interpret(status: Int, body: [UInt8], scrubbing sensitive: SensitiveValues, providerId: String)
        throws(BackendError) -> JSONValue
    {
        if BackendExchange.isTransient(status: status) {
            throw .transient(reason: "\(backendName) answered HTTP \(status)")
        }
        if (200..<300).contains(status) {
            if body.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) { return .null }
            guard let json = JSONValue.parse(body) else {
                throw .rejected(reason: "\(backendName) answered HTTP \(status) with a body that is not JSON")
            }
            return json
        }
        guard (400..<500).contains(status) else {
            throw .rejected(reason: "\(backendName) answered HTTP \(status); redirects are not followed")
        }
        let error = JSONValue.parse(body)?["error"]
        let email = error?["email"]?.stringValue
        switch error?["code"]?.stringValue.flatMap(APIError.Code.init(rawValue:)) {
        case .accountExistsWithDifferentCredential:
            throw .accountExistsWithDifferentCredential(
                email: email, providerId: providerId,
                verifiedProviders: error?["verifiedProviders"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        case .credentialAlreadyInUse:
            throw .credentialAlreadyInUse(email: email, providerId: providerId)
        case .emailAlreadyInUse:
            throw .emailExists(email: email)
        case .userDisabled:
            throw .userDisabled
        case .invalidIDToken:
            throw .invalidIDToken
        case .secondFactorRequired:
            if let pending = error?["mfaPendingCredential"]?.stringValue {
                throw .secondFactorRequired(mfaPendingCredential: pending, mfaInfo: error?["mfaInfo"] ?? .array([]))
            }
            throw .rejected(reason: "\(backendName) answered second-factor-required without mfaPendingCredential")
        default:
            var reason = "\(backendName) answered HTTP \(status)"
            if let code = error?["code"]?.stringValue { reason += " \(code)" }
            if let message = error?["message"]?.stringValue { reason += ": \(message)" }
            throw .rejected(reason: sensitive.scrub(reason))
        }
    }
}
