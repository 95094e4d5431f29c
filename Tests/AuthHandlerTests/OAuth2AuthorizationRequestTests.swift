import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols

struct OAuth2AuthorizationRequestTests {
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

    static func request(
        endpoint: String = "https://accounts.google.com/o/oauth2/v2/auth", nonce: String? = "n-0S6_WzA2Mj",
        formPost: Bool = false, custom: [URLFormField] = []
    ) -> AuthorizationRequest {
        AuthorizationRequest(
            endpoint: endpoint, clientID: "s6BhdRkqt3", redirectURI: "https://auth.example.com/__/auth/handler",
            scopes: ["openid", "email", "profile"], state: "af0ifjsldkj", codeChallenge: challenge, nonce: nonce,
            usesFormPost: formPost, customParameters: custom)
    }

    @Test func parametersComeInTheDocumentedOrderAndEncoding() throws {
        let url = try Self.request().url()
        #expect(
            url == "https://accounts.google.com/o/oauth2/v2/auth?response_type=code&client_id=s6BhdRkqt3"
                + "&redirect_uri=https%3A%2F%2Fauth.example.com%2F__%2Fauth%2Fhandler&scope=openid%20email%20profile"
                + "&state=af0ifjsldkj&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
                + "&code_challenge_method=S256&nonce=n-0S6_WzA2Mj")
    }

    @Test func customParametersFollowInOrderAndFormPostComesBeforeThem() throws {
        let url = try Self.request(
            endpoint: "https://appleid.apple.com/auth/authorize", formPost: true,
            custom: [URLFormField(name: "prompt", value: "select_account"), URLFormField(name: "hd", value: "a+b é")]
        ).url()
        #expect(
            url.hasSuffix(
                "&code_challenge_method=S256&nonce=n-0S6_WzA2Mj&response_mode=form_post&prompt=select_account"
                    + "&hd=a%2Bb%20%C3%A9"))
    }

    @Test func plainOAuth2HasNoNonceAndEmptyScopesAreOmitted() throws {
        var request = Self.request(nonce: nil)
        request.scopes = []
        let names = try FormURLEncoding.decode(String(try request.url().split(separator: "?")[1])).map(\.name)
        #expect(
            names == ["response_type", "client_id", "redirect_uri", "state", "code_challenge", "code_challenge_method"])
    }

    @Test func anEndpointQueryIsKept() throws {
        let url = try Self.request(endpoint: "http://127.0.0.1:4000/authorize?tenant=a%20b", nonce: nil).url()
        #expect(url.hasPrefix("http://127.0.0.1:4000/authorize?tenant=a%20b&response_type=code&client_id="))
    }

    @Test func anEndpointWithAFragmentIsRefused() {
        #expect(throws: AuthorizationRequest.Failure.invalidEndpoint("it has a fragment")) {
            try Self.request(endpoint: "https://idp.example/auth#x").url()
        }
    }
}
