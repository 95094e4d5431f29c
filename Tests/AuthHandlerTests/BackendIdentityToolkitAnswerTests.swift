import Foundation
import TestSupport
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP
@testable import AuthHandlerSystem
@testable import auth_handler

/// How `accounts:signInWithIdp` answers map to HTTP-API.md §3.3, following the Firebase JS SDK's reading of them.
struct BackendIdentityToolkitAnswerTests {
    private func answer(
        _ request: BackendSignInRequest = BackendFixture.twitter(), status: Int, body: String
    ) async -> Result<JSONValue?, BackendError> {
        let fetcher = ScriptedHTTP(status: status, body: body)
        do {
            return .success(try await BackendFixture.identityToolkit(fetcher).signIn(request))
        } catch {
            BackendFixture.expectNoSecrets(in: error)
            return .failure(error)
        }
    }

    private func error(_ request: BackendSignInRequest = BackendFixture.twitter(), status: Int, body: String) async
        -> BackendError?
    {
        switch await answer(request, status: status, body: body) {
        case .success(let value):
            Issue.record("expected an error, got \(String(describing: value))")
            return nil
        case .failure(let error):
            return error
        }
    }

    private static func errorBody(_ message: String, code: Int = 400) -> String {
        #"{"error":{"code":\#(code),"message":"\#(message)","errors":[{"message":"\#(message)","domain":"global","reason":"invalid"}]}}"#
    }

    @Test func successKeepsTheSignInMembersOnly() async throws {
        let body = """
            {"kind":"identitytoolkit#VerifyAssertionResponse","federatedId":"http://twitter.com/783214",
             "providerId":"twitter.com","localId":"uid-1","idToken":"fb-id-token","refreshToken":"fb-refresh",
             "expiresIn":"3600","isNewUser":true,"oauthAccessToken":"\(BackendFixture.twitterToken)",
             "oauthTokenSecret":"\(BackendFixture.twitterSecret)","rawUserInfo":"{}","screenName":"twitterdev"}
            """
        let result = try await answer(status: 200, body: body).get()
        let signIn = try #require(result)
        #expect(signIn["idToken"] == .string("fb-id-token"))
        #expect(signIn["refreshToken"] == .string("fb-refresh"))
        #expect(signIn["localId"] == .string("uid-1"))
        #expect(signIn["isNewUser"] == .bool(true))
        #expect(signIn["expiresIn"] == .string("3600"))
        #expect(signIn["federatedId"] == .string("http://twitter.com/783214"))
        #expect(signIn["oauthAccessToken"] == nil)
        #expect(signIn["oauthTokenSecret"] == nil)
        #expect(signIn["rawUserInfo"] == nil)
    }

    @Test func absentIsNewUserIsFalse() async throws {
        let result = try await answer(status: 200, body: #"{"idToken":"t","localId":"u","refreshToken":"r"}"#).get()
        #expect(result?["isNewUser"] == .bool(false))
    }

    @Test func needConfirmationIsAccountExistsWithDifferentCredential() async throws {
        let body = """
            {"needConfirmation":true,"email":"conflict@example.com","providerId":"twitter.com",
             "verifiedProvider":["password","google.com"],"oauthAccessToken":"\(BackendFixture.twitterToken)"}
            """
        let error = await error(status: 200, body: body)
        #expect(
            error
                == .accountExistsWithDifferentCredential(
                    email: "conflict@example.com", providerId: "twitter.com",
                    verifiedProviders: ["password", "google.com"]))
        #expect(error?.httpStatus == 409)
        #expect(error?.code == .accountExistsWithDifferentCredential)
        #expect(error?.details["email"] == .string("conflict@example.com"))
        #expect(error?.description.contains("password, google.com") == true)
        #expect(error?.isTransient == false)
    }

    @Test func needConfirmationWithoutEmailFallsBackToTheProfile() async throws {
        let error = await error(BackendFixture.google(), status: 200, body: #"{"needConfirmation":true}"#)
        #expect(
            error
                == .accountExistsWithDifferentCredential(
                    email: "alice@example.com", providerId: "google.com", verifiedProviders: []))
    }

    @Test func mfaPendingCredentialIsSecondFactorRequired() async throws {
        let body = """
            {"localId":"uid-mfa","mfaPendingCredential":"pending-123",
             "mfaInfo":[{"mfaEnrollmentId":"e1","displayName":"Work phone","phoneInfo":"+*******1234"}]}
            """
        let error = await error(status: 200, body: body)
        let info: JSONValue = .array([
            .object([
                "mfaEnrollmentId": .string("e1"), "displayName": .string("Work phone"),
                "phoneInfo": .string("+*******1234"),
            ])
        ])
        #expect(error == .secondFactorRequired(mfaPendingCredential: "pending-123", mfaInfo: info))
        #expect(error?.httpStatus == 401)
        #expect(error?.code == .secondFactorRequired)
        #expect(error?.details["mfaPendingCredential"] == .string("pending-123"))
        #expect(error?.details["mfaInfo"] == info)
        #expect(error?.description.contains("pending-123") == false)
    }

    @Test(arguments: [
        (
            "FEDERATED_USER_ID_ALREADY_LINKED",
            BackendError.credentialAlreadyInUse(email: nil, providerId: "twitter.com")
        ),
        (
            "FEDERATED_USER_ID_ALREADY_LINKED : This credential is already associated with a different user account.",
            .credentialAlreadyInUse(email: nil, providerId: "twitter.com")
        ),
        ("EMAIL_EXISTS", .emailExists(email: nil)),
        ("EMAIL_EXISTS : The email address is already in use by another account.", .emailExists(email: nil)),
        ("USER_DISABLED", .userDisabled),
        ("USER_DISABLED : The user account has been disabled by an administrator.", .userDisabled),
        ("INVALID_ID_TOKEN", .invalidIDToken),
        ("TOKEN_EXPIRED : the idToken has expired", .invalidIDToken),
    ])
    func errorMessagesMapToTheirCases(message: String, expected: BackendError) async throws {
        let error = await error(status: 400, body: Self.errorBody(message))
        #expect(error == expected)
        #expect(error?.isTransient == false)
    }

    @Test func errorCasesCarryTheirDocumentedStatusAndCode() {
        #expect(BackendError.credentialAlreadyInUse(email: nil, providerId: "x").httpStatus == 409)
        #expect(BackendError.credentialAlreadyInUse(email: nil, providerId: "x").code == .credentialAlreadyInUse)
        #expect(BackendError.emailExists(email: nil).httpStatus == 409)
        #expect(BackendError.emailExists(email: nil).code == .emailAlreadyInUse)
        #expect(BackendError.userDisabled.httpStatus == 403)
        #expect(BackendError.userDisabled.code == .userDisabled)
        #expect(BackendError.invalidIDToken.httpStatus == 401)
        #expect(BackendError.invalidIDToken.code == .invalidIDToken)
        for error in [BackendError.transient(reason: "r"), .rejected(reason: "r")] {
            #expect(error.httpStatus == 502)
            #expect(error.code == .backendError)
            #expect(error.details.isEmpty)
        }
        #expect(BackendError.transient(reason: "r").isTransient)
        #expect(!BackendError.rejected(reason: "r").isTransient)
    }

    /// With `returnIdpCredential`, Identity Toolkit answers these two errors with a 200 and `errorMessage`.
    @Test func errorMessageInA200IsAnError() async throws {
        let linked = await error(
            status: 200,
            body:
                #"{"errorMessage":"FEDERATED_USER_ID_ALREADY_LINKED","email":"bob@example.com","providerId":"twitter.com"}"#
        )
        #expect(linked == .credentialAlreadyInUse(email: "bob@example.com", providerId: "twitter.com"))
        #expect(linked?.details["email"] == .string("bob@example.com"))
        let exists = await error(status: 200, body: #"{"errorMessage":"EMAIL_EXISTS","email":"bob@example.com"}"#)
        #expect(exists == .emailExists(email: "bob@example.com"))
    }

    @Test func otherErrorsAreRejectedWithTheirCode() async throws {
        let error = await error(
            status: 400, body: Self.errorBody("INVALID_IDP_RESPONSE : the access token was not issued by this IdP"))
        guard case .rejected(let reason) = error else {
            Issue.record("expected rejected, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("INVALID_IDP_RESPONSE"))
        #expect(reason.contains("HTTP 400"))
    }

    @Test func rateLimitMessageIsTransient() async throws {
        let error = await error(status: 400, body: Self.errorBody("TOO_MANY_ATTEMPTS_TRY_LATER : Try again later."))
        #expect(error?.isTransient == true)
    }

    @Test(arguments: [500, 502, 503, 504, 429, 408])
    func retryableStatusesAreTransient(status: Int) async throws {
        let error = await error(status: status, body: Self.errorBody("INTERNAL_ERROR", code: status))
        #expect(error?.isTransient == true)
        #expect(error?.httpStatus == 502)
        #expect(error?.description.contains("HTTP \(status)") == true)
    }

    @Test func transientEvenWithoutAJSONBody() async throws {
        let error = await error(status: 503, body: "<html>Service Unavailable</html>")
        #expect(error?.isTransient == true)
    }

    @Test func aNonJSONClientErrorPointsAtTheURL() async throws {
        let error = await error(status: 404, body: "<html>Not Found</html>")
        guard case .rejected(let reason) = error else {
            Issue.record("expected rejected, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("backend.url"))
    }

    @Test(arguments: ["not json", #"["array"]"#, #"{"localId":"u"}"#, #"{"idToken":"t"}"#])
    func unusableSuccessAnswersAreRejected(body: String) async throws {
        let error = await error(status: 200, body: body)
        #expect(error?.code == .backendError)
        #expect(error?.isTransient == false)
    }

    @Test func needConfirmationWinsOverEverythingElse() async throws {
        let error = await error(
            status: 200, body: #"{"needConfirmation":true,"mfaPendingCredential":"p","idToken":"t","localId":"u"}"#)
        #expect(error?.code == .accountExistsWithDifferentCredential)
    }

    @Test func echoedTokensAndKeyAreScrubbedFromMessages() async throws {
        let message =
            "INVALID_IDP_RESPONSE : token \(BackendFixture.twitterToken) secret "
            + "\(FormURLEncoding.percentEncode(BackendFixture.twitterSecret)) key \(BackendFixture.apiKey)"
        let error = await error(status: 400, body: Self.errorBody(message))
        #expect(error?.description.contains("<redacted>") == true)
        BackendFixture.expectNoSecrets(in: error)
    }
}
