import AuthHandlerAccounts
import AuthHandlerCrypto
import AuthHandlerHTTP
import Foundation

/// `POST /__/auth/introspect` (RFC 7662; HTTP-API.md §3.10): an API asks whether an ID token still stands — its
/// session live, its `auth_time` not before the user's `validSince`, the user enabled — authenticated by the operator
/// secret `backend.introspectionSecret` (`Authorization: Bearer SECRET`, or HTTP Basic with the secret as the
/// password, RFC 7662 §2.1). Off (`404`) without that secret.
struct AccountsIntrospectionRoutes: RouteGroup {
    static let path = "/__/auth/introspect"

    func addRoutes(to table: inout RouteTable) {
        table.add("POST", Self.path) { await AccountsRoutes.handle($0, Self.introspect) }
        table.refuseOtherMethods(at: Self.path, saying: "use POST with a form body: token=...")
    }

    static func introspect(_ request: AccountsRequest) async throws(AccountsError) -> ServerResponse {
        guard let secret = request.backend.introspectionSecret else {
            throw AccountsError(
                .notFound, "introspection is off; set backend.introspectionSecret to serve \(Self.path)")
        }
        guard Self.presentsSecret(request.request.headers["Authorization"], secret) else {
            var response = AccountsSessionRoutes.oauthError(
                "invalid_client", "send the introspection secret as Authorization: Bearer or Basic")
            response.status = 401
            response.headers.set(name: "WWW-Authenticate", value: "Basic realm=\"auth-handler introspection\"")
            return response
        }
        guard
            request.request.headers["Content-Type"]?.lowercased().hasPrefix("application/x-www-form-urlencoded")
                == true
        else {
            return AccountsSessionRoutes.oauthError("invalid_request", "send a form body: token=...")
        }
        let tokens = request.request.formFields.all(named: "token")
        guard tokens.count == 1, let token = tokens.first, !token.isEmpty else {
            return AccountsSessionRoutes.oauthError("invalid_request", "token is required, once")
        }
        guard let facts = try await request.engine.introspect(token) else {
            return AccountsRequest.answer(.object(["active": .bool(false)]))
        }
        let settings = request.engine.settings.idToken
        return AccountsRequest.answer(
            .object([
                "active": .bool(true), "token_type": .string("id_token"), "iss": .string(settings.issuer),
                "aud": .string(settings.audience), "sub": .string(facts.localID.value),
                "sid": .string(facts.sessionID), "iat": Self.seconds(facts.issuedAt),
                "exp": Self.seconds(facts.expiresAt), "auth_time": Self.seconds(facts.authTime),
                "valid_since": Self.seconds(facts.validSince),
            ]))
    }

    /// Whether `field` is `Bearer SECRET` or `Basic base64(ANY:SECRET)`, compared in constant time.
    static func presentsSecret(_ field: String?, _ secret: Secret) -> Bool {
        guard let field else { return false }
        let parts = field.split(separator: " ", maxSplits: 1)
        guard parts.count == 2 else { return false }
        let presented: String
        switch parts[0].lowercased() {
        case "bearer":
            presented = String(parts[1])
        case "basic":
            guard let decoded = Base64.decode(String(parts[1])),
                let colon = decoded.firstIndex(of: UInt8(ascii: ":"))
            else { return false }
            presented = String(decoding: decoded[(colon + 1)...], as: UTF8.self)
        default:
            return false
        }
        return ConstantTime.equals(presented, secret.reveal())
    }

    static func seconds(_ date: Date) -> JSONValue { .integer(Int64(date.timeIntervalSince1970.rounded(.down))) }
}
