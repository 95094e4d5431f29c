import AuthHandler
import Foundation

/// The fake sign-in backend: Identity Toolkit's `accounts:signInWithIdp`. SCAFFOLD: being written.
extension FakeIdPRouter {
    func signInWithIdp(_ request: ServerRequest, failure: FakeFailureKind?) async -> ServerResponse {
        Self.notFound(request)
    }
}
