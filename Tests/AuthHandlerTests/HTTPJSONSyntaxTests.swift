import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP

struct HTTPJSONSyntaxTests {
    private func failure(_ text: String) -> JSONSyntax.Failure? {
        if case .failure(let failure) = JSONSyntax.parseConfiguration(Array(text.utf8)) { return failure }
        return nil
    }

    @Test func validDocumentsPass() {
        #expect(failure(#"{"a": [1, -2.5e3, true, false, null, "x\n\u00e9"], "b": {}}"#) == nil)
        #expect(failure("  []  ") == nil)
    }

    @Test func errorsCarryLineAndColumn() {
        #expect(failure("{\n  \"a\": 1,\n}")?.line == 3)
        #expect(failure("{\n  \"a\": 1,\n}")?.column == 1)
        #expect(failure("{\"a\" 1}")?.line == 1)
        #expect(failure("{\"a\" 1}")?.column == 6)
        #expect(failure("")?.message.contains("end of the file") == true)
        #expect(failure("{} x")?.message.contains("after the top-level value") == true)
        #expect(failure("[01]") != nil)
        #expect(failure(#"["\q"]"#) != nil)
        #expect(failure("[\"a\nb\"]") != nil)
        #expect(failure("{'a': 1}")?.message.contains("quoted key") == true)
    }

    @Test func duplicateKeysAreRefused() {
        let found = failure("{\"a\": 1,\n \"a\": 2}")
        #expect(found?.message.contains("duplicate key \"a\"") == true)
        #expect(found?.line == 2)
        #expect(found?.column == 2)
    }
}
