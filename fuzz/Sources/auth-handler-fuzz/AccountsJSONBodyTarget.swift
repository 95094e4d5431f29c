import AuthHandlerAccounts
import AuthHandlerHTTP

/// An accounts endpoint's JSON body (`JSONRequestBody`, HTTP-API.md §3.10): reading never traps, only the allowed
/// members get through, and a string member read back has no NUL and fits its limit.
enum AccountsJSONBodyTarget {
    /// The members the sign-up, sign-in and link endpoints take together.
    static let allowed = ["email", "password", "displayName", "session", "pendingCredential", "verifier"]
    static let limit = 64

    static func run(_ input: [UInt8]) {
        guard let body = try? JSONRequestBody(input, allowed: allowed) else { return }
        guard case .success(.object(let fields)) = JSONSyntax.parse(input) else {
            expect(false, "JSONRequestBody accepted a body that is not a JSON object")
            return
        }
        expect(fields.keys.allSatisfy(allowed.contains), "a member outside the allowed list got through")
        for name in allowed {
            if let text = try? body.string(name, optional: true, maximumBytes: limit) {
                expect(!text.utf8.contains(0), "a string member with a NUL got through")
                expect(text.utf8.count <= limit, "a string member over its limit got through")
            }
            _ = try? body.bool(name)
            expect(body.has(name) == (body.value(name) != nil), "has and value disagree")
        }
    }
}
