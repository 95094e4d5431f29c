import Testing

@testable import AuthHandler

struct VersionTests {
    @Test func versionIsSemantic() {
        #expect(AuthHandlerVersion.string.split(separator: ".").count == 3)
    }
}
