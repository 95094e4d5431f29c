import AuthHandler
import Foundation

/// OAuth 1.0a (Twitter-like) endpoints under `/oauth1/`. SCAFFOLD: being written.
extension FakeIdPRouter {
    func oauth1RequestToken(_ request: ServerRequest, failure: FakeFailureKind?) async -> ServerResponse {
        Self.notFound(request)
    }
    func oauth1Authorize(_ request: ServerRequest, failure: FakeFailureKind?) async -> ServerResponse {
        Self.notFound(request)
    }
    func oauth1AccessToken(_ request: ServerRequest, failure: FakeFailureKind?) async -> ServerResponse {
        Self.notFound(request)
    }
    func oauth1VerifyCredentials(_ request: ServerRequest, failure: FakeFailureKind?) async -> ServerResponse {
        Self.notFound(request)
    }
}
