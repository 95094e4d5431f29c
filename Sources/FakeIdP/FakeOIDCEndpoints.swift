import AuthHandler
import Foundation

/// OAuth 2 / OIDC endpoints under `/oidc/`. SCAFFOLD: being written.
extension FakeIdPRouter {
    func oidcDiscovery(_ request: ServerRequest, failure: FakeFailureKind?) async -> ServerResponse {
        Self.notFound(request)
    }
    func oidcAuthorize(_ request: ServerRequest, failure: FakeFailureKind?) async -> ServerResponse {
        Self.notFound(request)
    }
    func oidcToken(_ request: ServerRequest, failure: FakeFailureKind?) async -> ServerResponse {
        Self.notFound(request)
    }
    func oidcUserInfo(_ request: ServerRequest, failure: FakeFailureKind?) async -> ServerResponse {
        Self.notFound(request)
    }
    func oidcJWKS(_ request: ServerRequest, failure: FakeFailureKind?) async -> ServerResponse {
        Self.notFound(request)
    }
}
