import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols

struct OAuth1AuthorizationHeaderTests {
    @Test func buildThenParseGivesTheSameHeader() throws {
        let header = OAuth1AuthorizationHeader(
            realm: #"Say "hi" \ there"#,
            parameters: [
                URLFormField(name: "oauth_consumer_key", value: "key with spaces"),
                URLFormField(name: "oauth_callback", value: "http://127.0.0.1:8080/__/auth/handler?a=1&b=2"),
                URLFormField(name: "oauth_nonce", value: "é☃😀\"\\,="),
                URLFormField(name: "oauth_verifier", value: ""),
            ])
        #expect(try OAuth1AuthorizationHeader(parsing: header.value) == header)
    }

    @Test func builtHeaderEncodesValuesAndQuotesThem() {
        let header = OAuth1AuthorizationHeader(
            realm: "Photos",
            parameters: [
                URLFormField(name: "oauth_consumer_key", value: "dpf43f3p2l4k3l03"),
                URLFormField(name: "oauth_callback", value: "http://printer.example.com/ready"),
            ])
        #expect(
            header.value
                == #"OAuth realm="Photos", oauth_consumer_key="dpf43f3p2l4k3l03", "#
                + #"oauth_callback="http%3A%2F%2Fprinter.example.com%2Fready""#)
        #expect(OAuth1AuthorizationHeader(parameters: []).value == "OAuth ")
    }

    @Test func parsingIsLenientAboutSchemeCaseWhitespaceAndTokens() throws {
        let header = try OAuth1AuthorizationHeader(
            parsing: "  oauth\toauth_consumer_key = \"k\" ,,\t oauth_timestamp=137131200 ,REALM=\"R\",")
        #expect(header.realm == "R")
        #expect(
            header.parameters == [
                URLFormField(name: "oauth_consumer_key", value: "k"),
                URLFormField(name: "oauth_timestamp", value: "137131200"),
            ])
        #expect(header.timestamp == 137_131_200)
        #expect(try OAuth1AuthorizationHeader(parsing: "OAuth").parameters.isEmpty)
    }

    @Test func realmIsNotASignedParameter() throws {
        let header = try OAuth1AuthorizationHeader(parsing: #"OAuth realm="Example", oauth_nonce="n""#)
        #expect(header.parameter("realm") == nil)
        #expect(header.parameters.count == 1)
    }

    @Test func timestampMustBeAPositiveInteger() throws {
        for text in ["0", "-1", "1.5", "", "12a", "9999999999999999999"] {
            let header = OAuth1AuthorizationHeader(parameters: [URLFormField(name: "oauth_timestamp", value: text)])
            #expect(header.timestamp == nil, "\(text)")
        }
    }

    @Test(
        arguments: [
            ("Bearer abc", OAuth1Error.notOAuthScheme),
            ("", .notOAuthScheme),
            (#"OAuthoauth_nonce="n""#, .notOAuthScheme),
            (#"Basic realm="x""#, .notOAuthScheme),
            (#"OAuth oauth_nonce"#, .malformedAuthorizationHeader("oauth_nonce has no =")),
            (#"OAuth oauth_nonce="n"#, .malformedAuthorizationHeader("the value of oauth_nonce has no closing quote")),
            (#"OAuth oauth_nonce="#, .malformedAuthorizationHeader("oauth_nonce has no value")),
            (
                #"OAuth oauth_nonce="n" oauth_token="t""#,
                .malformedAuthorizationHeader("expected a comma after the value of oauth_nonce")
            ),
            (#"OAuth ="n""#, .malformedAuthorizationHeader("expected a parameter name at byte 6")),
            (
                "OAuth oauth_nonce=\"a\nb\"",
                .malformedAuthorizationHeader("the value of oauth_nonce contains a control character")
            ),
            (#"OAuth oauth_nonce="%ZZ""#, .invalidPercentEncoding(parameter: "oauth_nonce")),
            (#"OAuth oauth_nonce="a", oauth_nonce="b""#, .duplicateProtocolParameter("oauth_nonce")),
            (#"OAuth realm="a", Realm="b""#, .duplicateProtocolParameter("realm")),
            (#"OAuth oauth_nonce="a", oauth%5Fnonce="b""#, .duplicateProtocolParameter("oauth_nonce")),
        ])
    func parsingRefusesMalformedHeaders(_ value: String, _ expected: OAuth1Error) {
        #expect(throws: expected) { try OAuth1AuthorizationHeader(parsing: value) }
    }

    @Test func parsingRefusesAbsurdlyManyParameters() {
        let value = "OAuth " + (0...64).map { "p\($0)=\"v\"" }.joined(separator: ",")
        #expect(throws: OAuth1Error.malformedAuthorizationHeader("more than 64 parameters")) {
            try OAuth1AuthorizationHeader(parsing: value)
        }
    }

    @Test func errorMessagesSayWhatToDo() {
        let message = OAuth1Error.duplicateProtocolParameter("oauth_nonce").description
        #expect(message.contains("oauth_nonce"))
        #expect(message.contains("send each oauth_* parameter once"))
    }
}
