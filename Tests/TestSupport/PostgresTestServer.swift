import AuthHandlerCrypto
import AuthHandlerStore
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A PostgreSQL server of the test process's own (Debian's `postgresql`): a cluster made with `initdb` in a temporary
/// directory, listening on a free port of 127.0.0.1 only, with password authentication (SCRAM) for the user
/// `postgres`. PostgreSQL refuses to run as root, so as root (CI) `initdb` and `postgres` run as `nobody` through
/// `setpriv`, which executes the program itself (no child left behind when the server is stopped).
///
/// ``shared()`` is one server for every test of the process, started at its first use; each test takes a fresh
/// database of it (``makeDatabase()``). A test that stops the server (a fault test) makes its own with
/// ``start(in:)``. The server runs under a shell that kills it when its stdin ends, which happens when the test
/// process exits however it exits, so no server outlives the tests. A missing PostgreSQL fails the test:
/// `scripts/install-deps.sh test` installs it.
package final class PostgresTestServer: Sendable {
    package static let binaries = "/usr/lib/postgresql/15/bin"
    package static let user = "postgres"

    package let directory: URL
    package let port: Int
    package let password: String
    private let server = Mutex<TestProcess?>(nil)

    private init(directory: URL, port: Int, password: String) {
        self.directory = directory
        self.port = port
        self.password = password
    }

    /// The process's shared server, started at the first call.
    package static func shared() async throws -> PostgresTestServer {
        try await SharedPostgres.instance.server()
    }

    /// Makes a cluster in a new directory under `parent` and starts it.
    package static func start(in parent: URL = FileManager.default.temporaryDirectory) async throws
        -> PostgresTestServer
    {
        let initdb = "\(binaries)/initdb"
        guard FileManager.default.isExecutableFile(atPath: initdb) else {
            throw TestProcessError("\(initdb) not found: run scripts/install-deps.sh test (apt-get install postgresql)")
        }
        let directory = parent.appendingPathComponent("auth-handler-postgres-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let password = UUID().uuidString
        let passwordFile = directory.appendingPathComponent("password")
        try Data(password.utf8).write(to: passwordFile)
        if getuid() == 0 {
            // The cluster's owner must be able to write the directory and read the password file.
            for path in [directory.path, passwordFile.path] { chown(path, 65534, 65534) }
        }
        let initialise = try TestProcess(
            "/bin/sh",
            [
                "-c",
                "exec \(asOwner) \(initdb) -D data -U \(user) --pwfile=password -A scram-sha-256 -E UTF8 --no-sync "
                    + "--no-instructions >initdb.log 2>&1",
            ], directory: directory)
        guard await initialise.exitCode() == 0 else {
            let log = (try? String(contentsOf: directory.appendingPathComponent("initdb.log"), encoding: .utf8)) ?? ""
            throw TestProcessError("initdb failed:\n\(log)")
        }
        var attempt = 1
        while true {
            let server = PostgresTestServer(directory: directory, port: try freeLoopbackPort(), password: password)
            do {
                try await server.start()
                return server
            } catch {
                // A free port may be taken by another test between choosing and binding it: then choose again.
                guard attempt < 3 else { throw error }
                attempt += 1
            }
        }
    }

    /// `setpriv` to `nobody` as root, nothing otherwise.
    private static var asOwner: String {
        getuid() == 0 ? "/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups --" : ""
    }

    /// Starts (or starts again, after ``stop()``) the server on its port and data, returning once it accepts
    /// connections (its log line "ready to accept connections").
    package func start() async throws {
        // No fsync (the tests' clusters are thrown away, and what the server wrote survives its own death in the page
        // cache), but synchronous commits, so a commit answered is in the WAL when a test kills the server. The shell
        // kills the server when stdin ends.
        let script = """
            \(Self.asOwner) \(Self.binaries)/postgres -D data -k "$PWD" -p \(port) -c listen_addresses=127.0.0.1 \
            -c fsync=off -c full_page_writes=off -c max_connections=400 \
            -c log_min_messages=warning 2>&1 &
            server=$!
            cat >/dev/null
            kill -QUIT $server
            wait $server
            """
        let process = try TestProcess(
            "/bin/sh", ["-c", script], directory: directory, limit: .seconds(3600), openInput: true)
        server.withLock { $0 = process }
        guard await process.waitForLine(containing: "ready to accept connections") else {
            await stop()
            throw TestProcessError("postgres did not start:\n\(process.standardOutput)\(process.standardError)")
        }
    }

    /// Stops the server at once (SIGQUIT: immediate shutdown, as a crash would leave it) and waits for it.
    package func stop() async {
        let process = server.withLock { server in
            let running = server
            server = nil
            return running
        }
        process?.closeInput()
        _ = await process?.exitCode()
    }

    /// `postgresql://postgres@127.0.0.1:PORT/DATABASE`: the URL a config names (the password goes apart).
    package func url(database: String) -> String {
        "postgresql://\(Self.user)@127.0.0.1:\(port)/\(database)"
    }

    package func settings(database: String, statementTimeout: Duration = .seconds(5), poolSize: Int = 4)
        -> PostgresSettings
    {
        PostgresSettings(
            url: url(database: database), password: Secret(password), poolSize: poolSize,
            statementTimeout: statementTimeout)
    }

    /// Creates a new, empty database and answers its name.
    package func makeDatabase() throws -> String {
        let name = "test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let deadline = ContinuousClock.now + .seconds(30)
        let connection = try PostgresConnection(
            parameters: settings(database: "postgres").parameters, deadline: deadline)
        // An identifier cannot be a parameter; the name is ours, [a-z0-9_] only.
        try connection.execute("CREATE DATABASE \(name)", operation: "create a test database", deadline: deadline)
        return name
    }
}

/// The one shared server, started by whichever test asks first.
private actor SharedPostgres {
    static let instance = SharedPostgres()
    private var started: Task<PostgresTestServer, any Error>?

    func server() async throws -> PostgresTestServer {
        if let started { return try await started.value }
        let task = Task { try await PostgresTestServer.start() }
        started = task
        return try await task.value
    }
}
