import AuthHandlerCore
import AuthHandlerCrypto
import Foundation
import TestSupport
import Testing

@testable import FakeIdP

/// Independence from our own signer: Python's oauthlib (Debian `python3-oauthlib`) signs the OAuth 1.0a
/// requests, and the fake IdP must accept them and refuse copies tampered with after signing (issue 3).
struct FakeOAuth1OAuthlibTests {
    /// Debian's interpreter, which has `python3-oauthlib`; not whatever `python3` is first on `PATH`.
    static let python = "/usr/bin/python3"
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("python/oauthlib_client.py").path

    @Test func oauthlibSignedFlowIsAcceptedAndTamperedCopiesAreRefused() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: Self.python),
            "\(Self.python) is missing; apt-get install python3 python3-oauthlib")
        try #require(FileManager.default.fileExists(atPath: Self.script), "\(Self.script) is missing")
        try await withFakeIdP { idp, _ in
            // -I: isolated mode, so PYTHONPATH and user site-packages cannot swap in another oauthlib.
            let result = try await Self.run(Self.python, arguments: ["-I", Self.script, idp.baseURL])
            #expect(result.status == 0, "oauthlib_client.py exited \(result.status):\n\(result.output)")
            #expect(result.output.contains("HMAC-SHA1:"))
            #expect(result.output.contains("HMAC-SHA256:"))
            #expect(result.output.contains("PLAINTEXT:"))
            let requests = await idp.requests()
            #expect(requests.contains { $0.path == "/oauth1/account/verify_credentials.json" })
        }
    }

    /// Runs `executable` to completion without blocking a concurrency thread; its stdout then its stderr, with the
    /// exit status.
    static func run(_ executable: String, arguments: [String]) async throws -> (status: Int32, output: String) {
        let process = try TestProcess(
            executable, arguments, package: "python3-oauthlib", environment: ["LC_ALL": "C.UTF-8"])
        let status = await process.exitCode()
        return (status, process.standardOutput + process.standardError)
    }
}
