import AuthHandlerAccounts
import AuthHandlerHTTP
import Foundation

/// The signed-in user's own account (HTTP-API.md §3.10): read, update, delete, link, unlink.
struct AccountsUserRoutes: RouteGroup {
    func addRoutes(to table: inout RouteTable) {
        table.add("GET", "/__/auth/user") { await AccountsRoutes.handle($0, Self.show) }
        table.add("PATCH", "/__/auth/user") { await AccountsRoutes.handle($0, Self.update) }
        table.add("DELETE", "/__/auth/user") { await AccountsRoutes.handle($0, Self.delete) }
        table.refuseOtherMethods(at: "/__/auth/user", saying: "use GET, PATCH or DELETE with Authorization: Bearer")
        table.add("POST", "/__/auth/user/link") { await AccountsRoutes.handle($0, Self.link) }
        table.refuseOtherMethods(at: "/__/auth/user/link", saying: "use POST with a JSON body")
        table.add("POST", "/__/auth/user/unlink") { await AccountsRoutes.handle($0, Self.unlink) }
        table.refuseOtherMethods(at: "/__/auth/user/unlink", saying: "use POST with a JSON body")
    }

    static func show(_ request: AccountsRequest) async throws(AccountsError) -> ServerResponse {
        let caller = try await request.engine.authenticate(try request.bearer())
        return try await Self.account(caller.user, request)
    }

    static func update(_ request: AccountsRequest) async throws(AccountsError) -> ServerResponse {
        let caller = try await request.engine.authenticate(try request.bearer())
        let body = try request.json(allowed: ["displayName", "photoURL"])
        let photo = try body.string("photoURL", optional: true, maximumBytes: 2048)
        if let photo, !photo.isEmpty, !photo.hasPrefix("https://") {
            throw AccountsError(.invalidRequest, "\"photoURL\" must be an https URL, or \"\" to clear it")
        }
        let user = try await request.engine.updateProfile(
            caller, displayName: try body.string("displayName", optional: true, maximumBytes: 256), photoURL: photo)
        return try await Self.account(user, request)
    }

    static func delete(_ request: AccountsRequest) async throws(AccountsError) -> ServerResponse {
        let caller = try await request.engine.authenticate(try request.bearer(), recency: .recent)
        try await request.engine.deleteUser(caller)
        return AccountsRequest.answer(.object(["deleted": .string(caller.user.localID.value)]))
    }

    static func link(_ request: AccountsRequest) async throws(AccountsError) -> ServerResponse {
        let caller = try await request.engine.authenticate(try request.bearer(), recency: .recent)
        let body = try request.json(allowed: ["pendingCredential", "verifier"])
        let user = try await request.engine.linkPending(
            caller, pendingCredential: try body.requiredString("pendingCredential"),
            verifier: try body.requiredString("verifier", maximumBytes: 256), mail: request.backend.mail)
        return try await Self.account(user, request)
    }

    static func unlink(_ request: AccountsRequest) async throws(AccountsError) -> ServerResponse {
        let caller = try await request.engine.authenticate(try request.bearer(), recency: .recent)
        let body = try request.json(allowed: ["providerId"])
        let user = try await request.engine.unlink(
            caller, providerID: try body.requiredString("providerId", maximumBytes: 128))
        return try await Self.account(user, request)
    }

    /// The account as `GET /__/auth/user` answers it: never the password hash or a token.
    static func account(_ user: AccountUser, _ request: AccountsRequest) async throws(AccountsError) -> ServerResponse {
        let identities = try await request.engine.identities(of: user)
        return AccountsRequest.answer(AccountView(user: user, identities: identities).json)
    }
}
