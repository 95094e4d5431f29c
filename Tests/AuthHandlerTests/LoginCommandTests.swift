import Foundation
import TestSupport
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols
@testable import auth_handler

/// `login` against a scripted server (HTTP-API.md §1.7): what it sends, how it polls, its exit codes, and the QR code
/// it draws for a terminal.
struct LoginCommandTests {
    /// Answers the device request with `issue`, then each poll with the next of `polls`; records every request.
    static func server(issue: OutboundResponse, polls: [OutboundResponse]) -> ScriptedHTTP {
        let server = ScriptedHTTP(polls.map(ScriptedHTTP.Answer.response))
        server.serve("https://a.example/__/auth/device", issue)
        return server
    }

    static let issued = OutboundResponse.json(
        200,
        #"{"device_code":"dc","user_code":"BCDF-GHJK","verification_uri":"https://a.example/__/auth/device","#
            + #""verification_uri_complete":"https://a.example/__/auth/device?user_code=BCDF-GHJK","#
            + #""expires_in":600,"interval":1}"#)

    static func error(_ code: String, interval: Int? = nil) -> OutboundResponse {
        .json(400, #"{"error":"\#(code)","error_description":"d"\#(interval.map { ",\"interval\":\($0)" } ?? "")}"#)
    }

    func run(_ server: ScriptedHTTP, qr: Bool = false) async -> (AuthHandlerExitCode, CLICapturedOutput) {
        let captured = CLICapturedOutput()
        let code = await LoginCommand.run(
            LoginOptions(server: "https://a.example/", providerID: "github.com", scopes: ["repo"]),
            context: CommandContext(environment: [:], output: captured.output), http: server, showQRCode: qr)
        return (code, captured)
    }

    @Test func signsInAfterPendingAndWritesTheResult() async throws {
        let server = Self.server(
            issue: Self.issued,
            polls: [Self.error("authorization_pending"), .json(200, #"{"providerId":"github.com"}"#)])
        let (code, output) = await run(server)
        #expect(code == .success)
        #expect(output.standardOutput == #"{"providerId":"github.com"}"# + "\n")
        #expect(output.standardError.contains("    BCDF-GHJK\n"))
        #expect(!output.standardError.contains("\u{1B}["))
        let requests = server.requests
        #expect(
            requests.map(\.url) == ["https://a.example/__/auth/device"]
                + Array(repeating: "https://a.example/__/auth/device/token", count: 2))
        let asked = try FormURLEncoding.decode(String(decoding: requests[0].body, as: UTF8.self))
        #expect(asked.first(named: "providerId") == "github.com")
        #expect(asked.first(named: "scopes") == "repo")
        let challenge = try #require(asked.first(named: "resultChallenge"))
        let poll = try FormURLEncoding.decode(String(decoding: requests[1].body, as: UTF8.self))
        #expect(poll.first(named: "grant_type") == "urn:ietf:params:oauth:grant-type:device_code")
        #expect(poll.first(named: "device_code") == "dc")
        #expect(PKCE.verify(verifier: try #require(poll.first(named: "verifier")), matchesChallenge: challenge))
    }

    @Test(arguments: [
        ("access_denied", AuthHandlerExitCode.cancelled), ("expired_token", .timedOut),
        ("invalid_grant", .providerError),
    ])
    func endsWithTheExitCodeOfTheError(error: String, expected: AuthHandlerExitCode) async {
        let (code, _) = await run(Self.server(issue: Self.issued, polls: [Self.error(error)]))
        #expect(code == expected)
    }

    @Test func givesUpWhenTheCodeHasExpiredThoughTheServerNeverSaysSo() async {
        let shortLived = OutboundResponse.json(
            200,
            #"{"device_code":"dc","user_code":"BCDF-GHJK","verification_uri":"https://a.example/__/auth/device","#
                + #""expires_in":1,"interval":1}"#)
        let pending = Array(repeating: Self.error("authorization_pending"), count: 10)
        let (code, output) = await run(Self.server(issue: shortLived, polls: pending))
        #expect(code == .timedOut)
        #expect(output.standardError.contains("expired"))
    }

    @Test func slowDownRaisesTheWaitToTheNamedInterval() async {
        let server = Self.server(
            issue: Self.issued, polls: [Self.error("slow_down", interval: 2), Self.error("access_denied")])
        let began = ContinuousClock.now
        let (code, _) = await run(server)
        #expect(code == .cancelled)
        // 1 s before the first poll, 2 s before the second.
        #expect(ContinuousClock.now - began >= .seconds(3))
    }

    @Test func drawsTheQRCodeForATerminal() async {
        let (code, output) = await run(
            Self.server(issue: Self.issued, polls: [Self.error("access_denied")]), qr: true)
        #expect(code == .cancelled)
        let expected = TerminalQRCode("https://a.example/__/auth/device?user_code=BCDF-GHJK")?.rendered()
        #expect(expected != nil && output.standardError.contains(expected ?? "-"))
    }

    @Test func theQRCodeHasItsFinderPatterns() throws {
        let code = try #require(TerminalQRCode("https://auth.example.com/__/auth/device?user_code=BCDF-GHJK"))
        // 59 bytes at level L need version 4: 17 + 4 × 4 modules a side.
        #expect(code.width == 33)
        let finder: [[Bool]] = [
            [true, true, true, true, true, true, true], [true, false, false, false, false, false, true],
            [true, false, true, true, true, false, true], [true, false, true, true, true, false, true],
            [true, false, true, true, true, false, true], [true, false, false, false, false, false, true],
            [true, true, true, true, true, true, true],
        ]
        for (top, left) in [(0, 0), (0, code.width - 7), (code.width - 7, 0)] {
            #expect((0..<7).map { Array(code.modules[top + $0][left..<(left + 7)]) } == finder)
        }
        let lines = code.rendered().split(separator: "\n")
        #expect(lines.count == (code.width + 2 * TerminalQRCode.quietZone + 1) / 2)
        #expect(TerminalQRCode(String(repeating: "x", count: 4000)) == nil)
    }
}
