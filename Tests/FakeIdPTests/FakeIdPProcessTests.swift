import AuthHandlerCore
import AuthHandlerHTTP
import AuthHandlerProtocols
import Foundation
import TestSupport
import Testing

/// `auth-handler fake-idp` as a real process: the ready line, serving, clean exits, one-line failures.
@Suite(.serialized)
struct FakeIdPProcessTests {
    /// Starts `fake-idp` with `arguments`, reads its ready line, runs `body` against its URL, then stops it.
    private func withRunningFakeIdP(
        _ arguments: [String] = [], stopWith signal: Int32 = SIGTERM, _ body: (String, HTTPClient) async throws -> Void
    ) async throws {
        let running = try TestProcess(authHandler: ["fake-idp"] + arguments)
        defer { running.terminateIfRunning() }
        let line = await running.nextLine()
        let baseURL = try #require(
            listeningURL(line), "unexpected first line \(line ?? "nil"): \(running.standardError)")
        try await body(baseURL, try HTTPClient())
        running.send(signal)
        #expect(await running.exitCode() == 0)
        #expect(running.standardError == "")
    }

    @Test func printsItsURLServesAndExitsCleanlyOnSIGTERM() async throws {
        try await withRunningFakeIdP(["--listen", "127.0.0.1:0"]) { baseURL, client in
            #expect(baseURL.hasPrefix("http://127.0.0.1:"))
            #expect(baseURL != "http://127.0.0.1:0")
            let index = try await client.get(baseURL + "/")
            #expect(index.status == 200)
            #expect(index.text.contains("accounts:signInWithIdp"))
            let backend = try await client.postJSON(
                baseURL + "/identitytoolkit/v1/accounts:signInWithIdp", #"{"requestUri": "http://localhost"}"#)
            #expect(backend.identityToolkitMessage == "API key not valid. Please pass a valid API key.")
            let requests = try await client.get(baseURL + "/__fake/requests")
            let list = try JSONDecoder().decode([FakeRecordedRequestPath].self, from: Data(requests.body))
            #expect(list.map(\.path) == ["/", "/identitytoolkit/v1/accounts:signInWithIdp"])
        }
    }

    @Test func exitsCleanlyOnSIGINT() async throws {
        try await withRunningFakeIdP(stopWith: SIGINT) { baseURL, client in
            #expect(baseURL.hasPrefix("http://127.0.0.1:"), "127.0.0.1:0 is the default")
            let index = try await client.get(baseURL + "/")
            #expect(index.status == 200)
        }
    }

    @Test func usesTheConfigFile() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fake-idp-\(UUID().uuidString).json")
        try Data(#"{"backendAPIKey": "only-this-key"}"#.utf8).write(to: path)
        defer { try? FileManager.default.removeItem(at: path) }
        try await withRunningFakeIdP(["--config", path.path]) { baseURL, client in
            let url = baseURL + "/identitytoolkit/v1/accounts:signInWithIdp?key=another-key"
            let refused = try await client.postJSON(url, #"{"requestUri": "http://localhost"}"#)
            #expect(refused.identityToolkitMessage == "API key not valid. Please pass a valid API key.")
        }
    }

    @Test func listensOnIPv6Loopback() async throws {
        try await withRunningFakeIdP(["--listen", "[::1]:0"]) { baseURL, client in
            #expect(baseURL.hasPrefix("http://[::1]:"))
            let index = try await client.get(baseURL + "/")
            #expect(index.status == 200)
        }
    }

    @Test func aBadConfigExits78WithOneLine() async throws {
        let directory = FileManager.default.temporaryDirectory
        let unknownKey = directory.appendingPathComponent("fake-idp-\(UUID().uuidString).json")
        try Data(#"{"userz": []}"#.utf8).write(to: unknownKey)
        defer { try? FileManager.default.removeItem(at: unknownKey) }
        for path in [unknownKey.path, directory.appendingPathComponent("no-such-\(UUID().uuidString).json").path] {
            let running = try TestProcess(authHandler: ["fake-idp", "--config", path])
            defer { running.terminateIfRunning() }
            #expect(await running.nextLine() == nil, "nothing on stdout")
            #expect(await running.exitCode() == 78)
            let lines = running.standardError.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.count == 2 && lines[1].isEmpty, "one line: \(running.standardError)")
            #expect(running.standardError.hasPrefix("auth-handler: "))
            #expect(running.standardError.contains(path))
        }
    }

    @Test func aBadListenAddressExitsNonZeroWithOneLine() async throws {
        for address in ["garbage", "127.0.0.1:99999", "example.com:80", "192.0.2.1:0"] {
            let running = try TestProcess(authHandler: ["fake-idp", "--listen", address])
            defer { running.terminateIfRunning() }
            #expect(await running.nextLine() == nil, "nothing on stdout for \(address)")
            let status = await running.exitCode()
            #expect(status != 0, "\(address)")
            let lines = running.standardError.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.count == 2 && lines[1].isEmpty, "one line for \(address): \(running.standardError)")
            #expect(running.standardError.contains("listen"), "\(running.standardError)")
        }
    }
}

/// The one member of a recorded request these tests look at.
private struct FakeRecordedRequestPath: Decodable {
    var path: String
}
