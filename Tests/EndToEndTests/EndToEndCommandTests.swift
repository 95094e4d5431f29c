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
}
