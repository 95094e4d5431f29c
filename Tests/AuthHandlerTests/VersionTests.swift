import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols
@testable import AuthHandlerStore
@testable import AuthHandlerSystem
@testable import auth_handler

struct VersionTests {
    @Test func versionIsSemantic() {
        #expect(AuthHandlerVersion.string.split(separator: ".").count == 3)
    }
}
