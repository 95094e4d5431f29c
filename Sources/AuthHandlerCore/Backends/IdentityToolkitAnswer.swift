import AuthHandlerHTTP
import AuthHandlerSystem
import Foundation

/// Reads an `accounts:signInWithIdp` answer the way the Firebase JS SDK does (`_performFetchWithErrorHandling`,
/// `_performSignInRequest`): `needConfirmation` first, then an error (`error.message` on a failure status,
/// `errorMessage` on a 200 when `returnIdpCredential` was set) whose code precedes an optional ` : detail`,
/// then `mfaPendingCredential`, and otherwise a signed-in user.
enum IdentityToolkitAnswer {
    static let backendName = "Identity Toolkit"

    /// The members of a successful answer passed on as `signIn`; the IdP credential and raw profile are not
    /// repeated, the result already carries them.
    static let signInMembers = [
        "idToken", "refreshToken", "localId", "isNewUser", "expiresIn", "email", "emailVerified", "displayName",
        "photoUrl", "federatedId", "providerId", "tenantId",
    ]

    /// The `signIn` JSON of a successful answer, or the `BackendError` the answer means.
    static func interpret(
        status: Int, body: [UInt8], request: BackendSignInRequest, scrubbing sensitive: SensitiveValues
    ) throws(BackendError) -> JSONValue {
        let json = JSONValue.parse(body)
        if BackendExchange.isTransient(status: status) {
            let code = json?["error"]?["message"]?.stringValue.map { " (\(errorCode(in: $0)))" } ?? ""
            throw .transient(reason: "\(backendName) answered HTTP \(status)\(sensitive.scrub(code))")
        }
        if json?["needConfirmation"]?.boolValue == true {
            throw .accountExistsWithDifferentCredential(
                email: json?["email"]?.stringValue ?? request.profile.email,
                providerId: json?["providerId"]?.stringValue ?? request.providerId,
                verifiedProviders: json?["verifiedProvider"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        }
        let isSuccess = (200..<300).contains(status)
        let message = isSuccess ? json?["errorMessage"]?.stringValue : json?["error"]?["message"]?.stringValue
        if let message {
            throw error(message: message, status: status, answer: json, request: request, scrubbing: sensitive)
        }
        guard isSuccess else {
            throw .rejected(
                reason: "\(backendName) answered HTTP \(status) without an error message; check backend.url")
        }
        guard let json, let members = json.objectValue else {
            throw .rejected(reason: "\(backendName) answered HTTP \(status) with a body that is not a JSON object")
        }
        if let pending = json["mfaPendingCredential"]?.stringValue {
            throw .secondFactorRequired(mfaPendingCredential: pending, mfaInfo: json["mfaInfo"] ?? .array([]))
        }
        guard json["idToken"]?.stringValue != nil, json["localId"]?.stringValue != nil else {
            throw .rejected(reason: "\(backendName) answered without idToken or localId")
        }
        var signIn: [String: JSONValue] = [:]
        for name in signInMembers {
            if let value = members[name] { signIn[name] = value }
        }
        // Identity Toolkit omits false booleans (proto3 JSON); HTTP-API.md §3.3 always shows isNewUser.
        signIn["isNewUser"] = .bool(json["isNewUser"]?.boolValue ?? false)
        return .object(signIn)
    }

    /// `CODE` of `CODE : detail`.
    static func errorCode(in message: String) -> String {
        guard let separator = message.range(of: " : ") else {
            return message.trimmingCharacters(in: .whitespaces)
        }
        return String(message[..<separator.lowerBound]).trimmingCharacters(in: .whitespaces)
    }

    private static func error(
        message: String, status: Int, answer: JSONValue?, request: BackendSignInRequest,
        scrubbing sensitive: SensitiveValues
    ) -> BackendError {
        let code = errorCode(in: message)
        let email = answer?["email"]?.stringValue
        switch code {
        case "FEDERATED_USER_ID_ALREADY_LINKED":
            return .credentialAlreadyInUse(email: email, providerId: request.providerId)
        case "EMAIL_EXISTS":
            return .emailExists(email: email)
        case "USER_DISABLED":
            return .userDisabled
        case "INVALID_ID_TOKEN", "TOKEN_EXPIRED":
            return .invalidIDToken
        case "TOO_MANY_ATTEMPTS_TRY_LATER":
            return .transient(reason: "\(backendName) is rate-limiting sign-ins (TOO_MANY_ATTEMPTS_TRY_LATER)")
        default:
            return .rejected(reason: "\(backendName) answered HTTP \(status): \(sensitive.scrub(message))")
        }
    }
}
