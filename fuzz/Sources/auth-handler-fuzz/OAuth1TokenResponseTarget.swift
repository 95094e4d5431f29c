import AuthHandlerCore
import AuthHandlerHTTP
import AuthHandlerProtocols

/// The OAuth 1.0a token endpoints' answers (RFC 5849 §2.1, §2.3), as a 200 and as a refusal.
enum OAuth1TokenResponseTarget {
    static func run(_ input: [UInt8]) {
        let answer = OutboundResponse(status: 200, body: input)
        if let temporary = try? OAuth1Client.temporaryCredentials(from: answer) {
            expect(!temporary.token.isEmpty, "temporary credentials with an empty token")
        }
        if let token = try? OAuth1Client.tokenCredentials(from: answer) {
            expect(!token.token.isEmpty, "token credentials with an empty token")
            expect(
                !token.extraFields.contains { $0.name == "oauth_token" || $0.name == "oauth_token_secret" },
                "a token field kept among the extra fields")
            _ = (token.userID, token.screenName)
        }
        if let code = OAuth1Client.providerCode(input) {
            expect(!code.isEmpty && code.utf8.count <= 64, "a provider code outside 1...64 bytes")
        }
    }
}
