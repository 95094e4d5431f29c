import AuthHandler
import Foundation
import TestSupport
import Testing

/// `demo` and `serve` as a user runs them.
@Suite(.timeLimit(.minutes(3)))
struct EndToEndCommandTests {
    @Test("demo --headless signs in twice against the in-process fake IdP and exits 0")
    func demo() async throws {
        let process = try RunningAuthHandler(["demo", "--headless"])
        let status = await process.exitCode()
        #expect(status == 0, "\(process.standardError)")
        let output = process.standardOutput
        #expect(output.contains("signed in:    google.com user 1001"))
        #expect(output.contains("signed in:    twitter.com user 1001"))
        #expect(output.contains("demo: two real sign-ins completed against the fake IdP"))
    }

    @Test("serve with an invalid config exits 78 with one line naming the problem")
    func serveRefusesABadConfig() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("config.json")
        try Data(#"{"listen": ["127.0.0.1:0"], "sessionTTLSeconds": -5, "providers": {}}"#.utf8).write(to: config)
        let process = try RunningAuthHandler(["serve", "--config", config.path])
        #expect(await process.exitCode() == 78)
        let lines = process.standardError.split(separator: "\n")
        #expect(lines.count == 1, "\(process.standardError)")
        #expect(process.standardError.contains("sessionTTLSeconds"))
        #expect(process.standardError.contains("check-config"))

        let missing = try RunningAuthHandler(["serve", "--config", directory.appendingPathComponent("nope.json").path])
        #expect(await missing.exitCode() == 78)
        #expect(missing.standardError.split(separator: "\n").count == 1)
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
