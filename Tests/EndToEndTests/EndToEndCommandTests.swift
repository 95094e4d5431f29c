import AuthHandlerCore
import AuthHandlerHTTP
import AuthHandlerProtocols
import Foundation
import TestSupport
import Testing

/// `demo` and `serve` as a user runs them.
@Suite(.timeLimit(.minutes(3)))
struct EndToEndCommandTests {
    @Test("demo --headless signs in twice against the in-process fake IdP, walks the accounts backend, and exits 0")
    func demo() async throws {
        let process = try TestProcess(authHandler: ["demo", "--headless"])
        let status = await process.exitCode()
        #expect(status == 0, "\(process.standardError)")
        let output = process.standardOutput
        #expect(output.contains("signed in:    google.com user 1001"))
        #expect(output.contains("signed in:    twitter.com user 1001"))
        #expect(output.contains("demo: two real sign-ins completed against the fake IdP"))
        // The accounts backend's walk (DemoAccounts): each step says what the daemon answered.
        for line in [
            "accounts:     verified the address through the link mailed to the outbox",
            "accounts:     Google sign-in of the same address: 409 account-exists-with-different-credential (password)",
            "accounts:     signed in with the password and linked Google to the same account",
            "identities email, google.com",
            "accounts:     signed out: the session's refresh token is refused (invalid_grant)",
        ] {
            #expect(output.contains(line), "missing: \(line)")
        }
        #expect(!output.contains("correct horse battery staple"), "the demo printed its password")
        #expect(!output.contains("eyJ"), "the demo printed a token")
    }

    @Test("serve with an invalid config exits 78 with one line naming the problem")
    func serveRefusesABadConfig() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("config.json")
        try Data(#"{"listen": ["127.0.0.1:0"], "sessionTTLSeconds": -5, "providers": {}}"#.utf8).write(to: config)
        let process = try TestProcess(authHandler: ["serve", "--config", config.path])
        #expect(await process.exitCode() == 78)
        let lines = process.standardError.split(separator: "\n")
        #expect(lines.count == 1, "\(process.standardError)")
        #expect(process.standardError.contains("sessionTTLSeconds"))
        #expect(process.standardError.contains("check-config"))

        let missing = try TestProcess(authHandler: [
            "serve", "--config", directory.appendingPathComponent("nope.json").path,
        ])
        #expect(await missing.exitCode() == 78)
        #expect(missing.standardError.split(separator: "\n").count == 1)
    }

    @Test("check-config and serve agree on listen: localhost:0 passes and binds, a host name is refused by both")
    func checkConfigAndServeAgreeOnListenHosts() async throws {
        try await withEndToEnd(settings: ["listen": #"["localhost:0"]"#]) { e2e in
            #expect(e2e.daemonURL.hasPrefix("http://127.0.0.1:"), "localhost binds 127.0.0.1")
            #expect(!e2e.daemonURL.hasSuffix(":0"))
            #expect(try await e2e.get("\(e2e.daemonURL)/healthz").status == 200)
            let accepted = try TestProcess(authHandler: [
                "check-config", "--config", e2e.directory.appendingPathComponent("config.json").path,
            ])
            #expect(await accepted.exitCode() == 0, "\(accepted.standardOutput)\(accepted.standardError)")

            // The same config but for a host name: both commands refuse it, naming the same path.
            let named = e2e.directory.appendingPathComponent("named.json")
            try Data(
                try EndToEnd.config(
                    idp: e2e.idpURL, directory: e2e.directory, backend: .none,
                    settings: ["listen": #"["myhost:8080"]"#]
                ).utf8
            ).write(to: named)
            let checked = try TestProcess(authHandler: ["check-config", "--config", named.path])
            #expect(await checked.exitCode() == 78)
            // The harness config's warnings (oauth1.trusted's trustEmail) are not the point here.
            let problems = checked.standardOutput.split(separator: "\n").filter { !$0.hasPrefix("warning: ") }
            #expect(problems.count == 1, "\(checked.standardOutput)")
            #expect(problems.first?.hasPrefix("listen[0]: ") == true, "\(checked.standardOutput)")
            #expect(checked.standardOutput.contains("use an IP address"))
            let served = try TestProcess(authHandler: ["serve", "--config", named.path])
            #expect(await served.exitCode() == 78)
            #expect(served.standardError.split(separator: "\n").count == 1, "\(served.standardError)")
            #expect(served.standardError.contains("listen[0]"), "\(served.standardError)")
            #expect(served.standardError.contains("use an IP address"), "\(served.standardError)")
        }
    }

    @Test("serve listens on IPv4 and IPv6 at once and logs both bound addresses")
    func servesIPv4AndIPv6() async throws {
        try await withEndToEnd(settings: ["listen": #"["127.0.0.1:0", "[::1]:0"]"#]) { e2e in
            let logged = try #require(
                await e2e.daemon.waitForErrorLine(startingWith: "level=info event=listening addresses="))
            let addresses = logged.split(separator: " ")[0].split(separator: ",").map(String.init)
            #expect(addresses.count == 2)
            let ipv6 = try #require(addresses.first { $0.hasPrefix("[::1]:") })
            #expect(!ipv6.hasSuffix(":0"), "the real port is logged")
            #expect(try await e2e.get("http://\(ipv6)/healthz").status == 200)
            let start = try await e2e.get(
                e2e.startURL("google.com").replacingOccurrences(of: e2e.daemonURL, with: "http://\(ipv6)"))
            #expect(start.status == 302)
        }
    }
}
