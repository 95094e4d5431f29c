import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The built `auth-handler` binary, for tests that run it as a real process.
package enum AuthHandlerBinary {
    /// The executable next to the test bundle in the build products directory; `$AUTH_HANDLER_BINARY` overrides.
    package static func location() throws -> URL {
        let environment = ProcessInfo.processInfo.environment
        if let override = environment["AUTH_HANDLER_BINARY"], !override.isEmpty {
            return URL(fileURLWithPath: override)
        }
        var directories: [URL] = [Bundle.main.bundleURL]
        if let executable = Bundle.main.executableURL { directories.append(executable.deletingLastPathComponent()) }
        if let first = CommandLine.arguments.first {
            directories.append(URL(fileURLWithPath: first).deletingLastPathComponent())
        }
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            directories.append(bundle.bundleURL.deletingLastPathComponent())
        }
        for directory in directories {
            var current = directory
            // On macOS the runner sits in X.xctest/Contents/MacOS, three levels below the products directory.
            for _ in 0..<4 {
                let candidate = current.appendingPathComponent("auth-handler")
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory),
                    !isDirectory.boolValue, FileManager.default.isExecutableFile(atPath: candidate.path)
                {
                    return candidate
                }
                current.deleteLastPathComponent()
            }
        }
        let searched = directories.map(\.path).joined(separator: ", ")
        throw TestProcessError("auth-handler binary not found near \(searched); run 'swift build' first")
    }
}

/// A process test could not go on.
package struct TestProcessError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// A program a test runs (the built `auth-handler`, `redis-server`, `nginx`, ...): stdout and stderr read as lines as
/// they arrive, the exit awaited, never polled.
///
/// `@unchecked Sendable`: the mutable state is behind `Mutex` or in `AsyncStream`s, and the `Process` is only
/// asked thread-safe things after `run()` (`processIdentifier`, `isRunning`, `terminate()`).
package final class TestProcess: @unchecked Sendable {
    private let process: Process
    private let outputLines: AsyncStream<String>
    private let errorLines: AsyncStream<String>
    private let exitStatus: AsyncStream<Int32>
    private let output = LockedText()
    private let errors = LockedText()
    private let outputClosed: AsyncStream<Void>
    /// One element whenever stdout grew (the newest only), for ``waitForOutput(containing:)``.
    private let outputGrew: AsyncStream<Void>
    /// The write end of stdin's pipe while the test may still write to it (`openInput`).
    private let input: Mutex<FileHandle?>
    private let errorClosed: AsyncStream<Void>
    private let watchdog: Task<Void, Never>

    /// Starts the built `auth-handler` with `arguments`. A `launcher` (a program and its arguments, e.g.
    /// `systemd-socket-activate -l ADDR`) is run instead, with the binary's path and `arguments` after it.
    package convenience init(
        authHandler arguments: [String], environment: [String: String] = [:], directory: URL? = nil,
        limit: Duration = .seconds(120), launcher: [String] = [], standardInput: [UInt8]? = nil
    ) throws {
        let binary = try AuthHandlerBinary.location().path
        let command = launcher.isEmpty ? [binary] + arguments : launcher + [binary] + arguments
        try self.init(
            command[0], Array(command.dropFirst()), environment: environment, directory: directory, limit: limit,
            standardInput: standardInput)
    }

    /// Starts `executable` with `arguments`, a minimal environment plus `environment`, and a watchdog that kills it
    /// after `limit` so a hung program fails the test instead of hanging the suite. When the executable is missing,
    /// the error names the Debian `package` that provides it (`scripts/install-deps.sh test` installs them all).
    /// Standard input is `/dev/null`, or a pipe that delivers `standardInput` and then ends, or with `openInput` a
    /// pipe the test writes to (``writeInput(_:)``) and closes (``closeInput()``) when it chooses.
    package init(
        _ executable: String, _ arguments: [String], package: String? = nil, environment: [String: String] = [:],
        directory: URL? = nil, limit: Duration = .seconds(120), standardInput: [UInt8]? = nil,
        openInput: Bool = false
    ) throws {
        if let package, !FileManager.default.isExecutableFile(atPath: executable) {
            throw TestProcessError(
                "\(executable) not found: run scripts/install-deps.sh test (apt-get install \(package))")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ["PATH": "/usr/bin:/bin"].merging(environment) { _, new in new }
        if let directory { process.currentDirectoryURL = directory }
        let inputPipe = standardInput != nil || openInput ? Pipe() : nil
        process.standardInput = inputPipe ?? FileHandle.nullDevice
        let outputPipe = Pipe()
        let errorPipe = Pipe()
        process.standardOutput = outputPipe
        process.standardError = errorPipe

        let statuses = try process.runReportingExit()
        if let inputPipe, let standardInput {
            // On a thread of its own, so that input larger than the pipe's buffer cannot block the test; closing the
            // write end is the end of input the program waits for.
            // A program that exits before reading all of it must be EPIPE here, not a SIGPIPE that ends the tests.
            signal(SIGPIPE, SIG_IGN)
            let writer = inputPipe.fileHandleForWriting
            Thread.detachNewThread {
                try? writer.write(contentsOf: Data(standardInput))
                try? writer.close()
            }
        }
        let output = self.output
        let (outputClosed, outputSink) = AsyncStream<Void>.makeStream()
        let (outputGrew, growthSink) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let lines = readLines(
            outputPipe.fileHandleForReading,
            collect: {
                output.append(Data($0))
                growthSink.yield()
            }
        ) {
            growthSink.finish()
            outputSink.finish()
        }
        let errors = self.errors
        let (errorClosed, errorSink) = AsyncStream<Void>.makeStream()
        let stderrLines = readLines(errorPipe.fileHandleForReading, collect: { errors.append(Data($0)) }) {
            errorSink.finish()
        }
        self.process = process
        outputLines = lines
        errorLines = stderrLines
        exitStatus = statuses
        self.outputClosed = outputClosed
        self.outputGrew = outputGrew
        input = Mutex(openInput ? inputPipe?.fileHandleForWriting : nil)
        if openInput { signal(SIGPIPE, SIG_IGN) }
        self.errorClosed = errorClosed
        let pid = process.processIdentifier
        watchdog = Task {
            try? await Task.sleep(for: limit)
            if !Task.isCancelled { Glibc.kill(pid, SIGKILL) }
        }
    }

    /// The next stdout line, or nil when stdout closed first.
    package func nextLine() async -> String? {
        for await line in outputLines { return line }
        return nil
    }

    /// Reads stdout until a line starts with `prefix` and returns the rest of it; nil when stdout closed first.
    package func waitForLine(startingWith prefix: String) async -> String? {
        for await line in outputLines where line.hasPrefix(prefix) {
            return String(line.dropFirst(prefix.count))
        }
        return nil
    }

    /// Reads stdout until a line contains `text`, in any case (true), or stdout closes first (false).
    package func waitForLine(containing text: String) async -> Bool {
        for await line in outputLines where line.localizedCaseInsensitiveContains(text) { return true }
        return false
    }

    /// Reads stderr until a line starts with `prefix` and returns the rest of it; nil when stderr closed first.
    package func waitForErrorLine(startingWith prefix: String) async -> String? {
        for await line in errorLines where line.hasPrefix(prefix) {
            return String(line.dropFirst(prefix.count))
        }
        return nil
    }

    /// Waits until stdout holds `text` anywhere, a line ended or not (a prompt); false when stdout closed first.
    package func waitForOutput(containing text: String) async -> Bool {
        if standardOutput.contains(text) { return true }
        for await _ in outputGrew where standardOutput.contains(text) { return true }
        return standardOutput.contains(text)
    }

    /// Writes `bytes` to the process's stdin (`openInput`).
    package func writeInput(_ bytes: [UInt8]) throws {
        try input.withLock { handle in try handle?.write(contentsOf: Data(bytes)) }
    }

    /// Ends the process's stdin (`openInput`).
    package func closeInput() {
        input.withLock { handle in
            try? handle?.close()
            handle = nil
        }
    }

    /// The process's id (for `/proc/PID/...`).
    package var processIdentifier: Int32 { process.processIdentifier }

    package var isRunning: Bool { process.isRunning }

    /// Sends `signal` while the process runs (never to a process id that may have been reused).
    package func send(_ signal: Int32) {
        if process.isRunning { Glibc.kill(process.processIdentifier, signal) }
    }

    /// Waits for the exit status and for stdout and stderr to close, so that `standardOutput` and `standardError`
    /// then hold everything the process wrote.
    package func exitCode() async -> Int32 {
        var status: Int32 = -1
        for await value in exitStatus { status = value }
        for await _ in outputClosed {}
        for await _ in errorClosed {}
        closeInput()
        watchdog.cancel()
        return status
    }

    /// What the process wrote on stdout and stderr so far.
    package var standardOutput: String { output.text }
    package var standardError: String { errors.text }

    /// SIGTERM, then waits for the exit; returns the status.
    @discardableResult
    package func stop() async -> Int32 {
        send(SIGTERM)
        return await exitCode()
    }

    /// SIGKILL, then waits for the exit. For servers the test owns (Redis, nginx): a child of the test runner inherits
    /// its blocked signal mask (SIGTERM included; Foundation's `Process` does not reset it), and nothing they hold
    /// needs saving. SIGKILL also ends a stopped (SIGSTOP) process.
    package func kill() async {
        send(SIGKILL)
        _ = await exitCode()
    }

    /// Kills the process if a test left it running.
    package func terminateIfRunning() {
        closeInput()
        if process.isRunning { process.terminate() }
        watchdog.cancel()
    }
}

/// Text appended from a pipe's handler thread and read from tests.
private final class LockedText: Sendable {
    private let storage = Mutex("")

    func append(_ chunk: Data) {
        storage.withLock { $0 += String(decoding: chunk, as: UTF8.self) }
    }

    var text: String { storage.withLock { $0 } }
}

/// The next bytes a pipe delivers (blocking until some arrive), or nil at end of file or on error.
///
/// `FileHandle.read(upToCount:)` waits for the full count or EOF, which would hold back a line from a
/// process that keeps running; read(2) returns what is there.
package func readSome(_ handle: FileHandle) -> [UInt8]? {
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
        if count > 0 { return Array(buffer[..<count]) }
        if count < 0, errno == EINTR { continue }
        return nil
    }
}

/// Reads `handle` on a thread of its own until end of file: every chunk goes to `collect`, each complete line to the
/// returned stream, and `closed` runs at the end.
///
/// Why a thread and not `readabilityHandler`: on Linux its dispatch source can outlive the pipe's descriptor and crash
/// libdispatch's event loop; a blocking read on a thread of our own cannot.
package func readLines(
    _ handle: FileHandle, collect: @escaping @Sendable ([UInt8]) -> Void,
    closed: @escaping @Sendable () -> Void = {}
) -> AsyncStream<String> {
    let (lines, lineSink) = AsyncStream<String>.makeStream()
    Thread.detachNewThread {
        var buffer: [UInt8] = []
        while let chunk = readSome(handle) {
            collect(chunk)
            buffer.append(contentsOf: chunk)
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                lineSink.yield(String(decoding: buffer[..<newline], as: UTF8.self))
                buffer.removeSubrange(...newline)
            }
        }
        lineSink.finish()
        closed()
    }
    return lines
}

extension Process {
    /// Runs the process; the stream yields its exit status once it has exited, then finishes (nothing polls).
    package func runReportingExit() throws -> AsyncStream<Int32> {
        let (statuses, statusSink) = AsyncStream<Int32>.makeStream()
        terminationHandler = { finished in
            statusSink.yield(finished.terminationStatus)
            statusSink.finish()
        }
        try run()
        return statuses
    }
}
