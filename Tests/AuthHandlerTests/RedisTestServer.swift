import Foundation
import TestSupport
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerCrypto
@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols
@testable import AuthHandlerStore
@testable import AuthHandlerSystem
@testable import auth_handler

#if canImport(Glibc)
    import Glibc
#endif

/// A `redis-server` of the test's own, in a temporary directory: no persistence, stopped when the test ends.
///
/// By default it listens on a Unix socket only (`--port 0` turns TCP off), so no port can be taken by someone else
/// between choosing it and binding it. A missing `redis-server` fails the test: `scripts/install-deps.sh test`
/// installs it.
final class RedisTestServer: @unchecked Sendable {
    // @unchecked Sendable: `process` is changed only by start() and stop(), which the owning test calls in turn.
    let directory: URL
    let password: String?
    let port: Int?
    private var process: Process?

    static let executable = "/usr/bin/redis-server"

    init(directory: URL, password: String?, port: Int?) {
        self.directory = directory
        self.password = password
        self.port = port
    }

    var socketPath: String { directory.appendingPathComponent("redis.sock").path }

    /// Where the store connects: the TCP port when the server has one, else the socket.
    var address: RedisAddress {
        if let port { return RedisAddress(endpoint: .tcp(host: "127.0.0.1", port: port)) }
        return RedisAddress(endpoint: .unix(path: socketPath))
    }

    /// Starts the server and returns once it answers.
    func start() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable) else {
            throw TestRedisError(
                "\(Self.executable) not found: the Redis store tests need it; run scripts/install-deps.sh test "
                    + "(apt-get install redis-server)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.executable)
        var arguments = [
            "--port", String(port ?? 0), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
            "--dir", directory.path, "--logfile", directory.appendingPathComponent("redis.log").path,
            "--daemonize", "no",
        ]
        if port == nil { arguments += ["--unixsocket", socketPath, "--unixsocketperm", "700"] }
        if let password { arguments += ["--requirepass", password] }
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        // Bounded: a connection attempt every 10 ms for at most 10 s, until the server answers PING.
        for _ in 0..<1000 {
            guard process.isRunning else { break }
            if let reply = try? command(["PING"]), reply == .status("PONG") { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        let log = (try? String(contentsOf: directory.appendingPathComponent("redis.log"), encoding: .utf8)) ?? ""
        stop()
        throw TestRedisError("redis-server did not answer PING within 10 s; its log:\n\(log)")
    }

    /// Kills the server and waits for it to exit. SIGKILL, because a child of the test runner inherits its blocked
    /// signal mask (SIGTERM included: Foundation's `Process` does not reset it), and nothing here needs saving.
    func stop() {
        guard let process else { return }
        self.process = nil
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Stops (SIGSTOP) or resumes (SIGCONT) the server, to make it hang.
    func signal(_ number: Int32) {
        if let process { kill(process.processIdentifier, number) }
    }

    /// Runs one command on a connection of its own (authenticated), for tests that look at what the store wrote.
    func command(_ arguments: [String]) throws -> RedisReply {
        let connection = try RedisConnection.open(
            address, connectTimeout: .seconds(1), commandTimeout: .seconds(2))
        if let password {
            let reply = try connection.command([Array("AUTH".utf8), Array(password.utf8)], operation: "test AUTH")
            guard reply == .status("OK") else { throw TestRedisError("test AUTH failed: \(reply)") }
        }
        return try connection.command(arguments.map { Array($0.utf8) }, operation: "test \(arguments[0])")
    }
}

/// A Redis test could not go on.
struct TestRedisError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs `body` with a started `redis-server` (Unix socket, or TCP on a free loopback port), stopped and removed after.
func withRedisServer<T>(
    password: String? = nil, tcp: Bool = false, _ body: (RedisTestServer) async throws -> T
) async throws -> T {
    try await withStoreTemporaryDirectory { directory in
        // A free TCP port may be taken by another test between choosing and binding it: then choose again.
        var attempt = 1
        while true {
            let server = RedisTestServer(
                directory: directory, password: password, port: tcp ? try freeLoopbackPort() : nil)
            defer { server.stop() }
            do {
                try await server.start()
            } catch {
                guard tcp, attempt < 3 else { throw error }
                attempt += 1
                continue
            }
            return try await body(server)
        }
    }
}
