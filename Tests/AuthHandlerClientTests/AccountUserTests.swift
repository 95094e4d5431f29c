import AuthHandlerClient
import Foundation
import Testing

/// `AccountUser`: an ID token's claims read without verifying (docs/CLIENTS.md "Accounts in Swift").
struct AccountUserTests {
    static func token(_ payload: String) -> String {
        let encoded = Data(payload.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return "eyJhbGciOiJFUzI1NiJ9.\(encoded).c2lnbmF0dXJl"
    }

    @Test("the claims of the daemon's ID token become the user")
    func claims() throws {
        let user = try #require(
            AccountUser(
                idToken: Self.token(
                    #"{"sub":"u1","exp":1700003600,"auth_time":1700000000,"email":"a@example.com","#
                        + #""email_verified":true,"name":"Alice","picture":"https://example.com/a.png","#
                        + #""firebase":{"sign_in_provider":"password"},"role":"admin"}"#)))
        #expect(user.uid == "u1")
        #expect(user.email == "a@example.com" && user.emailVerified)
        #expect(user.displayName == "Alice")
        #expect(user.photoURL == URL(string: "https://example.com/a.png"))
        #expect(user.signInProvider == "password")
        #expect(user.expiresAt == Date(timeIntervalSince1970: 1_700_003_600))
        #expect(user.authTime == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(user.claims["role"]?.stringValue == "admin")
    }

    @Test("a token that is not a JWT with sub and exp is no user", arguments: ["", "a.b", "a.%%%.c", "a.e30.c"])
    func notAToken(text: String) {
        #expect(AccountUser(idToken: text) == nil)
    }

    @Test("a payload whose base64url needs the characters - and _ is read")
    func base64URL() throws {
        // "?>" encodes to "Pz4", "~~" to "fn4": a name chosen so the payload's encoding holds - or _.
        let user = try #require(AccountUser(idToken: Self.token(#"{"sub":"u?>~~","exp":1,"name":"ÿÿ>>"}"#)))
        #expect(user.uid == "u?>~~" && user.displayName == "ÿÿ>>")
    }

    @Test("a signed-out client has no user and no ID token")
    func signedOut() async throws {
        let client = AuthHandlerClient(baseURL: try #require(URL(string: "http://127.0.0.1:9")))
        #expect(await client.currentUser == nil)
        await #expect(throws: AuthHandlerClientError.signedOut(message: "no user is signed in: sign in first")) {
            try await client.idToken()
        }
        var changes = client.authStateChanges.makeAsyncIterator()
        #expect(await changes.next() == .some(nil))
    }
}
