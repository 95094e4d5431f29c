import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerSystem

struct VersionTests {
    @Test func versionIsSemantic() {
        #expect(AuthHandlerVersion.string.split(separator: ".").count == 3)
    }
}
