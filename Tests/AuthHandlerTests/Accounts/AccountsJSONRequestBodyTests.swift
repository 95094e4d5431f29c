import Testing

@testable import AuthHandlerAccounts

/// The accounts endpoints' JSON bodies (HTTP-API.md §3.10): strict, by name, never echoing a value.
struct AccountsJSONRequestBodyTests {
    static func body(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test("members are read with their types; null is absent")
    func reads() throws {
        let body = try JSONRequestBody(
            Self.body(#"{"email": "a@example.com", "password": "pw", "displayName": null, "x": true}"#),
            allowed: ["email", "password", "displayName", "x"])
        #expect(try body.requiredString("email") == "a@example.com")
        #expect(try body.string("displayName", optional: true) == nil)
        #expect(try body.bool("x") == true)
        #expect(!body.has("displayName"))
    }

    @Test(
        "bad bodies are invalid-request naming what is wrong, and never echo a value",
        arguments: [
            ("", "empty"), ("[1]", "array"), (#"{"email": "a"#, "not valid JSON"),
            (#"{"email": "a@example.com", "passwrod": "hunter2-secret"}"#, "unknown member \"passwrod\""),
            (#"{"email": 5}"#, "\"email\" is a number"), (#"{"email": "a\u0000b"}"#, "NUL"),
            (#"{"email": "a@example.com", "email": "b"}"#, "not valid JSON"),
            (#"{"password": "\q-hunter2-secret"}"#, "not valid JSON"),
        ])
    func refusals(text: String, expected: String) {
        #expect {
            let body = try JSONRequestBody(Self.body(text), allowed: ["email", "password"])
            _ = try body.requiredString("email")
        } throws: { error in
            guard let error = error as? AccountsError else { return false }
            return error.code == .invalidRequest && error.message.contains(expected)
                && !error.message.contains("hunter2")
        }
    }

    @Test("a string over its limit is refused before anything else reads it")
    func limit() {
        let long = String(repeating: "a", count: 5000)
        #expect(throws: AccountsError.self) {
            try JSONRequestBody(Self.body(#"{"password": "\#(long)"}"#), allowed: ["password"]).requiredString(
                "password")
        }
    }
}
