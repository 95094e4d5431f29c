import AuthHandlerStore
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A `redis-server` of the test's own, in a directory the test owns: no persistence, killed when the test ends.
///
/// By default it listens on a Unix socket only (`--port 0` turns TCP off), so no port can be taken by someone else
/// between choosing it and binding it. `start()` returns once the server says it accepts connections; after `stop()`,
/// `start()` again serves the same address, empty. A missing `redis-server` fails the test:
/// `scripts/install-deps.sh test` installs it.
package final class RedisTestServer: Sendable {
    package static let executable = "/usr/bin/redis-server"
    package static let client = "/usr/bin/redis-cli"

    package let directory: URL
    package let password: String?
    package let port: Int?
    private let server = Mutex<TestProcess?>(nil)

    package init(directory: URL, password: String? = nil, port: Int? = nil) {
        self.directory = directory
        self.password = password
        self.port = port
    }

    package var socketPath: String { directory.appendingPathComponent("redis.sock").path }

    /// Where a store connects: the TCP port when the server has one, else the socket.
    package var address: RedisAddress {
        if let port { return RedisAddress(endpoint: .tcp(host: "127.0.0.1", port: port)) }
        return RedisAddress(endpoint: .unix(path: socketPath))
    }

    /// Starts the server and returns once it says it accepts connections (its log goes to stdout: `--logfile ""`).
    package func start() async throws {
        var arguments = [
            "--port", String(port ?? 0), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
            "--dir", directory.path, "--logfile", "", "--daemonize", "no",
        ]
        if port == nil { arguments += ["--unixsocket", socketPath, "--unixsocketperm", "700"] }
        if let password { arguments += ["--requirepass", password] }
        let process = try TestProcess(Self.executable, arguments, package: "redis-server")
        server.withLock { $0 = process }
        guard await process.waitForLine(containing: "ready to accept connections") else {
            await stop()
            throw TestProcessError(
                "redis-server did not start:\n\(process.standardOutput)\(process.standardError)")
        }
    }

    /// Kills the server (SIGKILL, which ends a stopped process too; SIGCONT first all the same) and waits for it to
    /// exit.
    package func stop() async {
        let process = server.withLock { server in
            let running = server
            server = nil
            return running
        }
        process?.send(SIGCONT)
        await process?.kill()
    }

    /// Stops (SIGSTOP) or resumes (SIGCONT) the server, to make it hang.
    package func signal(_ number: Int32) {
        server.withLock { $0 }?.send(number)
    }

    /// Every key and its value (GET), read with `redis-cli --raw` over the socket: one run for the keys, one for the
    /// values (a value may hold any byte, so they are read as bytes, not split).
    package func dump() throws -> (keys: [String], values: Data) {
        let keys = String(decoding: try cli(["--raw", "KEYS", "*"], input: nil), as: UTF8.self)
            .split(separator: "\n").map(String.init).filter { !$0.isEmpty }
        guard !keys.isEmpty else { return ([], Data()) }
        let values = try cli(["--raw"], input: keys.map { "GET \($0)\n" }.joined())
        return (keys, values)
    }

    private func cli(_ arguments: [String], input: String?) throws -> Data {
        guard FileManager.default.isExecutableFile(atPath: Self.client) else {
            throw TestProcessError("\(Self.client) not found: run scripts/install-deps.sh test (redis-tools)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.client)
        let target = port.map { ["-h", "127.0.0.1", "-p", String($0)] } ?? ["-s", socketPath]
        process.arguments = target + arguments
        if let password { process.environment = ["REDISCLI_AUTH": password] }
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        if let input {
            try stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
            try stdin.fileHandleForWriting.close()
        }
        let data = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestProcessError("redis-cli \(arguments) exited \(process.terminationStatus)")
        }
        return data
    }
}

/// Runs `body` with a started `redis-server` (Unix socket, or TCP on a free loopback port) in a temporary directory,
/// killed and removed after.
package func withRedisServer<T>(
    password: String? = nil, tcp: Bool = false, _ body: (RedisTestServer) async throws -> T
) async throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("auth-handler-redis-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
    defer { try? FileManager.default.removeItem(at: directory) }
    // A free TCP port may be taken by another test between choosing and binding it: then choose again.
    var attempt = 1
    while true {
        let server = RedisTestServer(directory: directory, password: password, port: tcp ? try freeLoopbackPort() : nil)
        do {
            try await server.start()
        } catch {
            guard tcp, attempt < 3 else { throw error }
            attempt += 1
            continue
        }
        return try await withCleanup({ await server.stop() }) { try await body(server) }
    }
}
