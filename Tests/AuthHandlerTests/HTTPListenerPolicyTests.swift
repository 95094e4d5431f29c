import Testing

@testable import AuthHandlerHTTP

/// The listener's decisions without a connection (`HTTPListenerPolicy`): which heads are refused, and how, and the
/// request built from what arrived. The wire behaviour is `HTTPFramingTests`'.
struct HTTPListenerPolicyTests {
    let policy = HTTPListenerPolicy(configuration: HTTPServerConfiguration(maxHeaderBytes: 1024, maxBodyBytes: 100))

    private func refusal(
        method: String = "GET", target: String? = "/", _ headers: HTTPHeaders, isHTTP10: Bool = false
    ) -> HTTPListenerPolicy.HeadRefusal? {
        policy.headRefusal(method: method, rawURI: target, headers: headers, isHTTP10: isHTTP10)
    }

    @Test func aPlainHeadIsReadOn() {
        #expect(refusal(["Host": "example.com", "Accept": "*/*"]) == nil)
        #expect(refusal(["Accept": "*/*"], isHTTP10: true) == nil)
    }

    @Test func framingAndHostFaultsAreAnsweredAtOnceWithTheRefusalHeaders() throws {
        for (headers, target) in [
            (["Accept": "*/*"] as HTTPHeaders, "/"),
            (["Host": "a.example", "Content-Length": "3", "Transfer-Encoding": "chunked"], "/"),
            (["Host": "a.example"], "/a b"),
        ] {
            guard case .answerNow(let response)? = refusal(target: target, headers) else {
                Issue.record("\(headers) \(target) was not answered at once")
                continue
            }
            #expect(response.status == 400)
            #expect(response.headers["X-Frame-Options"] == "DENY")
        }
    }

    @Test func sizesAreRefusedAfterTheBodyWithTheirStatus() {
        let big = String(repeating: "a", count: 1024)
        guard case .refuse(let tooLarge)? = refusal(["Host": "a.example", "Cookie": big]) else {
            Issue.record("a head over maxHeaderBytes was not refused")
            return
        }
        #expect(tooLarge.status == 431)
        guard case .refuse(let bodyTooLarge)? = refusal(method: "POST", ["Host": "a.example", "Content-Length": "101"])
        else {
            Issue.record("a body over maxBodyBytes was not refused")
            return
        }
        #expect(bodyTooLarge.status == 413)
        #expect(refusal(method: "POST", ["Host": "a.example", "Content-Length": "100"]) == nil)
    }

    @Test func theRequestIsSplitAndDecoded() {
        let parsed = policy.request(
            method: "POST", rawURI: "/__/auth/handler?state=a%20b&x",
            headers: ["Host": "a.example", "Content-Type": "application/x-www-form-urlencoded"],
            body: Array("code=c%2B1".utf8), remoteAddress: "192.0.2.1")
        guard case .request(let request) = parsed else {
            Issue.record("a good request was refused")
            return
        }
        #expect(request.path == "/__/auth/handler")
        #expect(request.rawQuery == "state=a%20b&x")
        #expect(request.queryItems.map(\.value) == ["a b", ""])
        #expect(request.formFields.map(\.value) == ["c+1"])
        #expect(request.remoteAddress == "192.0.2.1")
        guard
            case .refused(let refused) = policy.request(
                method: "GET", rawURI: nil, headers: [:], body: [], remoteAddress: nil)
        else {
            Issue.record("a target that is not UTF-8 was accepted")
            return
        }
        #expect(refused.status == 400)
    }
}
