import AuthHandlerCore
import AuthHandlerHTTP
import Foundation
import TestSupport
import Testing

@testable import FakeIdP

/// The control API under `/__fake/`, driven over HTTP as a test in another language would drive it.
struct FakeControlTests {
    /// POSTs one failure for the sign-in backend to `/__fake/failures`; `fields` are JSON members.
    private func queue(_ idp: FakeIdP, _ client: HTTPClient, _ fields: String) async throws {
        let body = #"{"endpoint": "identitytoolkit/v1/accounts:signInWithIdp", "count": 2, "# + fields + "}"
        let response = try await client.postJSON(idp.baseURL + "/__fake/failures", body)
        #expect(response.status == 200, "\(response.text)")
    }

    private func pendingCount(_ idp: FakeIdP, _ client: HTTPClient) async throws -> Int {
        let response = try await client.get(idp.baseURL + "/__fake/failures")
        let list = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]])
        return list.reduce(0) { $0 + ($1["count"] as? Int ?? 0) }
    }

    @Test func httpStatusHitsExactlyTheNextTwoCalls() async throws {
        try await withFakeIdP { idp, client in
            try await queue(idp, client, #""kind": "http-status", "status": 503"#)
            #expect(try await pendingCount(idp, client) == 2)
            for _ in 0..<2 {
                let failed = try await SignInWithIdp.call(
                    idp, client, postBody: try await SignInWithIdp.twitter(idp))
                #expect(failed.status == 503)
            }
            let normal = try await SignInWithIdp.call(idp, client, postBody: try await SignInWithIdp.twitter(idp))
            #expect(normal.status == 200, "\(normal.text)")
            #expect(try await pendingCount(idp, client) == 0)
        }
    }

    @Test func delayHitsExactlyTheNextTwoCalls() async throws {
        try await withFakeIdP { idp, client in
            let delay = Duration.milliseconds(1500)
            try await queue(idp, client, #""kind": "delay", "delayMs": 1500"#)
            let clock = ContinuousClock()
            for remaining in [1, 0] {
                let started = clock.now
                let delayed = try await SignInWithIdp.call(
                    idp, client, postBody: try await SignInWithIdp.twitter(idp))
                #expect(clock.now - started >= delay)
                #expect(delayed.status == 200, "a delayed call still answers normally: \(delayed.text)")
                #expect(try await pendingCount(idp, client) == remaining)
            }
            let started = clock.now
            let normal = try await SignInWithIdp.call(idp, client, postBody: try await SignInWithIdp.twitter(idp))
            #expect(clock.now - started < delay)
            #expect(normal.status == 200)
        }
    }

    @Test func oauthErrorHitsExactlyTheNextTwoCalls() async throws {
        try await withFakeIdP { idp, client in
            try await queue(idp, client, #""kind": "oauth-error", "error": "USER_DISABLED""#)
            for _ in 0..<2 {
                let failed = try await SignInWithIdp.call(
                    idp, client, postBody: try await SignInWithIdp.twitter(idp))
                #expect(failed.status == 400)
                #expect(failed.identityToolkitMessage == "USER_DISABLED")
            }
            let normal = try await SignInWithIdp.call(idp, client, postBody: try await SignInWithIdp.twitter(idp))
            #expect(normal.status == 200, "\(normal.text)")
        }
    }

    @Test func badControlRequestsAreRefusedWithAMessage() async throws {
        try await withFakeIdP { idp, client in
            let bodies = [
                "not json",
                #"{"kind": "http-status", "status": 500}"#,
                #"{"endpoint": "nowhere", "kind": "http-status", "status": 500}"#,
                #"{"endpoint": "oidc/token", "kind": "explode"}"#,
                #"{"endpoint": "oidc/token", "kind": "http-status", "status": 700}"#,
                #"{"endpoint": "oidc/token", "kind": "http-status", "status": 500, "count": 0}"#,
                #"{"endpoint": "oidc/token", "kind": "delay"}"#,
            ]
            for body in bodies {
                let response = try await client.postJSON(idp.baseURL + "/__fake/failures", body)
                #expect(response.status == 400, "\(body)")
                #expect(response.text.hasPrefix("fake-idp: cannot queue failure: "), "\(response.text)")
            }
            #expect(try await pendingCount(idp, client) == 0)
            for body in ["{}", #"{"advanceSeconds": -5}"#, "later"] {
                let response = try await client.postJSON(idp.baseURL + "/__fake/clock", body)
                #expect(response.status == 400, "\(body)")
                #expect(response.text.contains("advanceSeconds"))
            }
        }
    }

    @Test func requestsListsWhatWasReceivedButNotControlCalls() async throws {
        try await withFakeIdP { idp, client in
            let signIn = try await SignInWithIdp.call(idp, client, postBody: try await SignInWithIdp.twitter(idp))
            #expect(signIn.status == 200)
            let index = try await client.get(idp.baseURL + "/?probe=1")
            #expect(index.status == 200)
            let response = try await client.get(idp.baseURL + "/__fake/requests")
            #expect(response.status == 200)
            let list = try JSONDecoder().decode([FakeRecordedRequest].self, from: Data(response.body))
            #expect(list.map(\.path) == ["/identitytoolkit/v1/accounts:signInWithIdp", "/"])
            #expect(list[0].method == "POST")
            #expect(list[0].query == "key=\(SignInWithIdp.apiKey)")
            #expect(list[0].body.contains(#""requestUri""#) && list[0].body.contains(#""postBody""#))
            #expect(list[0].headers.contains { $0.key.lowercased() == "content-type" })
            #expect(list[1].query == "probe=1")
        }
    }

    @Test func clockAdvanceExpiresTokens() async throws {
        try await withFakeIdP { idp, client in
            let postBody = try await SignInWithIdp.oauth2(idp)
            let before = Date().timeIntervalSince1970
            let response = try await client.postJSON(idp.baseURL + "/__fake/clock", #"{"advanceSeconds": 7200}"#)
            #expect(response.status == 200)
            let now = try #require((response.jsonObject?["now"] as? NSNumber)?.doubleValue)
            #expect(now >= before + 7200)
            #expect(now < Date().timeIntervalSince1970 + 7200 + 60)
            let expired = try await SignInWithIdp.call(idp, client, postBody: postBody)
            #expect(expired.status == 400)
            #expect(expired.identityToolkitMessage?.hasPrefix("INVALID_IDP_RESPONSE") == true)
        }
    }

    @Test func resetThroughTheSwiftAPIClearsFailuresAndRequests() async throws {
        try await withFakeIdP { idp, client in
            try await queue(idp, client, #""kind": "http-status", "status": 500"#)
            _ = try await client.get(idp.baseURL + "/")
            await idp.reset()
            #expect(try await pendingCount(idp, client) == 0)
            #expect(try await client.get(idp.baseURL + "/__fake/requests").text == "[]")
            let normal = try await SignInWithIdp.call(idp, client, postBody: try await SignInWithIdp.twitter(idp))
            #expect(normal.status == 200, "the queued 500 is gone")
        }
    }

    /// The test that would have caught the control API's reset recursing forever (fixed in FakeControlEndpoints).
    @Test
    func resetClearsFailuresAndRequests() async throws {
        try await withFakeIdP { idp, client in
            try await queue(idp, client, #""kind": "http-status", "status": 500"#)
            _ = try await client.get(idp.baseURL + "/")
            let reset = try await client.postJSON(idp.baseURL + "/__fake/reset", "")
            #expect(reset.status == 200)
            #expect(try await pendingCount(idp, client) == 0)
            let requests = try await client.get(idp.baseURL + "/__fake/requests")
            #expect(requests.text == "[]")
            let normal = try await SignInWithIdp.call(idp, client, postBody: try await SignInWithIdp.twitter(idp))
            #expect(normal.status == 200, "the queued 500 is gone")

            _ = try await client.get(idp.baseURL + "/")
            let cleared = try await client.send(
                OutboundRequest(method: "DELETE", url: idp.baseURL + "/__fake/requests"))
            #expect(cleared.status == 200)
            #expect(try await client.get(idp.baseURL + "/__fake/requests").text == "[]")
        }
    }
}
