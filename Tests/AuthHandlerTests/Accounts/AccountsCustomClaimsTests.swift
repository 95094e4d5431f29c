import AuthHandlerHTTP
import Testing

@testable import AuthHandlerAccounts

/// Custom claims: a JSON object of at most 1,000 bytes without a reserved name (issue 25 §4).
@Suite struct AccountsCustomClaimsTests {
    @Test("each reserved name is refused, and the error names it", arguments: CustomClaims.reservedNames.sorted())
    func reservedNameRefused(_ name: String) {
        let refusal = #expect(throws: CustomClaims.Refusal.self) {
            try CustomClaims(json: .object(["role": .string("admin"), name: .string("x")]))
        }
        #expect(refusal == .reservedName(name))
        #expect(refusal?.description.contains("\"\(name)\"") == true)
    }

    @Test("the issue's list of reserved names, exactly")
    func reservedNames() {
        let listed =
            "iss sub aud exp nbf iat jti auth_time sid nonce acr amr azp cnf email email_verified name picture "
            + "user_id firebase"
        #expect(CustomClaims.reservedNames == Set(listed.split(separator: " ").map(String.init)))
    }

    @Test("1,000 bytes of compact JSON are accepted, 1,001 refused")
    func sizeLimit() throws {
        // {"k":"…"} is 8 bytes around the value.
        let fits = JSONValue.object(["k": .string(String(repeating: "a", count: 992))])
        #expect(fits.serialized.count == 1000)
        #expect(try CustomClaims(json: fits).members.count == 1)
        let over = JSONValue.object(["k": .string(String(repeating: "a", count: 993))])
        #expect(throws: CustomClaims.Refusal.tooLarge(bytes: 1001)) { try CustomClaims(json: over) }
        // Measured on the compact form: whitespace around a small object does not count.
        let spaced = Array(("{\"role\": \"admin\"" + String(repeating: " ", count: 2000) + "}").utf8)
        #expect(try CustomClaims(parsing: spaced).members == ["role": .string("admin")])
    }

    @Test("only a JSON object is a claims set")
    func notAnObject() throws {
        #expect(throws: CustomClaims.Refusal.notAnObject) { try CustomClaims(parsing: Array(#"["admin"]"#.utf8)) }
        #expect(throws: CustomClaims.Refusal.notAnObject) { try CustomClaims(parsing: Array("null".utf8)) }
        #expect(throws: CustomClaims.Refusal.notJSON) { try CustomClaims(parsing: Array("{role: admin}".utf8)) }
        #expect(throws: CustomClaims.Refusal.notJSON) { try CustomClaims(parsing: Array("{\"a\":1,\"a\":2}".utf8)) }
        #expect(try CustomClaims(parsing: Array("{}".utf8)) == CustomClaims.empty)
    }

    @Test("nested values are kept as given")
    func nested() throws {
        let claims = try CustomClaims(
            parsing: Array(#"{"roles": ["admin", "editor"], "org": {"id": 7, "paid": true}}"#.utf8))
        #expect(claims.members["org"]?["id"] == .integer(7))
        #expect(claims.members["roles"]?.arrayValue?.count == 2)
    }
}
