import AuthHandlerCore
import AuthHandlerHTTP
import Foundation
import TestSupport
import Testing

/// `opsListen` and `logFormat` through the real `auth-handler serve` (docs/CONFIG.md, sections `opsListen` and `logFormat`).
@Suite(.timeLimit(.minutes(3)))
struct EndToEndOpsTests {
    static let operationsPaths = ["/metrics", "/healthz", "/readyz"]

    @Test("opsListen: /metrics, /healthz and /readyz only on the ops port; sign-ins only on the main one")
    func operationsListener() async throws {
        try await withEndToEnd(settings: ["opsListen": #"["127.0.0.1:0"]"#]) { e2e in
            // The harness read `auth-handler listening on ...`; the ops line is the very next one.
            let line = try #require(await e2e.daemon.nextLine())
            let prefix = "auth-handler ops listening on "
            #expect(line.hasPrefix(prefix), "stdout: \(e2e.daemon.standardOutput)")
            let opsURL = String(line.dropFirst(prefix.count))
            #expect(opsURL.hasPrefix("http://127.0.0.1:") && opsURL != e2e.daemonURL)

            let start = try await e2e.get(e2e.startURL("google.com"))
            #expect(start.status == 302)
            #expect(start.headers["Location"]?.hasPrefix(e2e.idpURL) == true)

            for path in Self.operationsPaths {
                let ops = try await e2e.get(opsURL + path, freshBrowser: true)
                #expect(ops.status == 200, "\(path) on the ops port: \(ops.text)")
                #expect(ops.headers["Cache-Control"] == "no-store")
                let main = try await e2e.get(e2e.daemonURL + path, accept: "application/json", freshBrowser: true)
                #expect(main.status == 404, "\(path) on the main port")
                #expect(main.errorCode == "not-found")
                let html = try await e2e.get(e2e.daemonURL + path, freshBrowser: true)
                #expect(html.status == 404)
                #expect(html.headers["Content-Type"]?.hasPrefix("text/html") == true)
            }
            // The ops listener shares the service's metrics: the start on the main port is counted there.
            let metrics = try await e2e.get(opsURL + "/metrics", freshBrowser: true)
            #expect(metrics.text.contains(#"auth_handler_signins_started_total{provider="google.com"} 1"#))

            let opsStart = try await e2e.get(
                opsURL + "/__/auth/handler?" + (e2e.startURL("google.com").split(separator: "?").last ?? ""),
                accept: "application/json", freshBrowser: true)
            #expect(opsStart.status == 404)
            #expect(opsStart.errorCode == "not-found")
            #expect(opsStart.headers["Set-Cookie"] == nil)
            let opsResult = try await e2e.postForm(
                opsURL + "/__/auth/result", [URLFormField(name: "code", value: "x")], freshBrowser: true)
            #expect(opsResult.status == 404)

            // It stops with the service.
            #expect(await e2e.daemon.stop() == 0)
            await #expect(throws: (any Error).self) { _ = try await e2e.get(opsURL + "/healthz", freshBrowser: true) }
        }
    }

    @Test("without opsListen the operations endpoints stay on the main listener and no ops line is printed")
    func noOperationsListener() async throws {
        try await withEndToEnd { e2e in
            for path in Self.operationsPaths {
                let response = try await e2e.get(e2e.daemonURL + path, freshBrowser: true)
                #expect(response.status == 200, "\(path)")
            }
            await e2e.daemon.stop()
            #expect(!e2e.daemon.standardOutput.contains("ops listening"))
        }
    }

    /// Every stderr line of a stopped daemon, each parsed as a JSON object (after `prefix`, when given).
    static func jsonLines(_ e2e: EndToEnd, prefixes: [String] = []) throws -> [[String: JSONValue]] {
        let lines = e2e.daemon.standardError.split(separator: "\n").map(String.init)
        #expect(!lines.isEmpty)
        return try lines.map { line in
            var text = Substring(line)
            if !prefixes.isEmpty {
                let prefix = prefixes.first { line.hasPrefix($0) }
                #expect(prefix != nil, "no priority prefix: \(line)")
                text = text.dropFirst(prefix?.count ?? 0)
            }
            let object = try #require(JSONValue.parse(Data(text.utf8))?.objectValue, "not a JSON object: \(line)")
            #expect(object["level"]?.stringValue != nil && object["event"]?.stringValue != nil, "\(line)")
            return object
        }
    }

    @Test("logFormat json: every stderr line is a JSON object; each request's lines carry its own request_id")
    func jsonLogs() async throws {
        try await withEndToEnd(settings: ["logFormat": #""json""#]) { e2e in
            let walk = try await e2e.signIn("google.com")
            let code = try #require(walk.appQuery.first(named: "code"))
            #expect(try await e2e.redeem(code: code).status == 200)
            #expect(await e2e.daemon.stop() == 0)

            let lines = try Self.jsonLines(e2e)
            let steps = lines.filter { $0["event"]?.stringValue?.hasPrefix("signin.") == true }
            #expect(
                steps.compactMap { $0["event"]?.stringValue } == ["signin.start", "signin.callback", "signin.redeem"])
            for step in steps {
                #expect(step["provider"] == .string("google.com"))
                #expect(step["outcome"] == .string(step["event"] == .string("signin.start") ? "redirect" : "success"))
                #expect(step["latency_ms"]?.numberValue != nil, "\(step)")
            }
            let ids = steps.compactMap { $0["request_id"]?.stringValue }
            #expect(ids.count == 3 && Set(ids).count == 3, "one id per request: \(ids)")
            #expect(ids.allSatisfy { $0.count == 16 && $0.allSatisfy(\.isHexDigit) })
            // Lines outside any request (listening, shutdown) carry none.
            let outside = lines.filter { ["listening", "shutdown"].contains($0["event"]?.stringValue ?? "") }
            #expect(outside.count == 2)
            #expect(outside.allSatisfy { $0["request_id"] == nil })
            // Never a secret: the redeemed code and the IdP's client secret appear on no line.
            #expect(!e2e.daemon.standardError.contains(code))
            #expect(!e2e.daemon.standardError.contains("fake-client-secret"))
        }
    }

    @Test("JOURNAL_STREAM: each line starts with its syslog priority, in both formats", arguments: LogFormat.allCases)
    func journaldPriorities(_ format: LogFormat) async throws {
        // As systemd does: JOURNAL_STREAM names the device and inode of the daemon's stderr (here the test's pipe).
        let journald = ["/bin/sh", "-c", #"JOURNAL_STREAM=$(stat -L -c %d:%i /proc/self/fd/2) exec "$0" "$@""#]
        try await withEndToEnd(settings: ["logFormat": "\"\(format.rawValue)\""], launcher: journald) { e2e in
            // A callback from a browser without the sign-in's cookie: a warning line.
            let refused = try await e2e.get(e2e.daemonURL + "/__/auth/handler?state=forged&code=x", freshBrowser: true)
            #expect(refused.status == 400)
            #expect(await e2e.daemon.stop() == 0)

            let lines = e2e.daemon.standardError.split(separator: "\n").map(String.init)
            let body = format == .json ? #"{"level":"info","event":"listening""# : "level=info event=listening"
            #expect(lines.contains { $0.hasPrefix("<6>" + body) }, "\(lines)")
            let warning = format == .json ? #"<4>{"level":"warning","event":"signin.callback""# : "<4>level=warning"
            #expect(lines.contains { $0.hasPrefix(warning) }, "\(lines)")
            #expect(lines.allSatisfy { $0.hasPrefix("<6>") || $0.hasPrefix("<4>") }, "\(lines)")
            if format == .json { _ = try Self.jsonLines(e2e, prefixes: ["<6>", "<4>"]) }
        }
    }
}
