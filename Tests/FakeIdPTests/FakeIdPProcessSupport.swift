import Foundation
import Synchronization
import Testing

/// The built `auth-handler` binary, run as a real process.
enum FakeIdPBinary {
    /// The executable next to the test bundle in the build products directory; `$AUTH_HANDLER_BINARY` overrides.
    static func location() throws -> URL {
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
        throw FakeIdPProcessError(description: "auth-handler binary not found near \(searched); run 'swift build'")
    }
}

/// A process test could not go on.
struct FakeIdPProcessError: Error, CustomStringConvertible {
    let description: String
}

/// A running `auth-handler` whose output is read as it arrives and whose exit is awaited, never polled.
///
/// `@unchecked Sendable`: the only mutable state is behind `Mutex` or in `AsyncStream`s, and the `Process`
/// is only asked thread-safe things after `run()` (`processIdentifier`, `isRunning`, `terminate()`).
final class RunningAuthHandler: @unchecked Sendable {
    private let process: Process
    private let outputLines: AsyncStream<String>
    private let exitStatus: AsyncStream<Int32>
    private let errorText: LockedText
    private let errorClosed: AsyncStream<Void>
    /// A safety net: a hung process is killed after this long, so a broken build fails instead of hanging.
    private static let limit = Duration.seconds(60)
    private let watchdog: Task<Void, Never>

    init(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = try FakeIdPBinary.location()
        process.arguments = arguments
        process.environment = ["PATH": "/usr/bin:/bin"]
        process.standardInput = FileHandle.nullDevice
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error

        let (statuses, statusSink) = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { finished in
            statusSink.yield(finished.terminationStatus)
            statusSink.finish()
        }
        try process.run()
        // Why threads and not `readabilityHandler`: on Linux its dispatch source can outlive the pipe's
        // descriptor and crash libdispatch's event loop; a blocking read on a thread of our own cannot.
        let (lines, lineSink) = AsyncStream<String>.makeStream()
        let outputHandle = output.fileHandleForReading
        Thread.detachNewThread {
            var buffer: [UInt8] = []
            while let chunk = readSome(outputHandle) {
                buffer.append(contentsOf: chunk)
                while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    lineSink.yield(String(decoding: buffer[..<newline], as: UTF8.self))
                    buffer.removeSubrange(...newline)
                }
            }
            lineSink.finish()
        }
        let errorText = LockedText()
        let (errorClosed, errorSink) = AsyncStream<Void>.makeStream()
        let errorHandle = error.fileHandleForReading
        Thread.detachNewThread {
            while let chunk = readSome(errorHandle) {
                errorText.text.withLock { $0 += String(decoding: chunk, as: UTF8.self) }
            }
            errorSink.finish()
        }
        self.process = process
        outputLines = lines
        exitStatus = statuses
        self.errorClosed = errorClosed
        self.errorText = errorText
        let pid = process.processIdentifier
        watchdog = Task {
            try? await Task.sleep(for: Self.limit)
            if !Task.isCancelled { kill(pid, SIGKILL) }
        }
    }

    /// The first stdout line, or nil when stdout closed without one.
    func firstLine() async -> String? {
        for await line in outputLines { return line }
        return nil
    }

    /// Sends `signal` to the process.
    func send(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits for the exit status and for stderr to close.
    func exitCode() async -> Int32 {
        var status: Int32 = -1
        for await value in exitStatus { status = value }
        for await _ in errorClosed {}
        watchdog.cancel()
        return status
    }

    /// What the process wrote on stderr so far.
    var standardError: String { errorText.text.withLock { $0 } }

    /// Kills the process if a test left it running.
    func terminateIfRunning() {
        if process.isRunning { process.terminate() }
        watchdog.cancel()
    }
}

/// `fake-idp listening on http://HOST:PORT` → `http://HOST:PORT`.
func listeningURL(_ line: String?) -> String? {
    let prefix = "fake-idp listening on "
    guard let line, line.hasPrefix(prefix) else { return nil }
    return String(line.dropFirst(prefix.count))
}

/// Text shared between a pipe's reader and the test.
private final class LockedText: Sendable {
    let text = Mutex("")
}

/// The next bytes a pipe delivers (blocking until some arrive), or nil at end of file or on error.
///
/// `FileHandle.read(upToCount:)` waits for the full count or EOF, which would hold back a line
/// from a process that keeps running; read(2) returns what is there.
private func readSome(_ handle: FileHandle) -> [UInt8]? {
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
        if count > 0 { return Array(buffer[..<count]) }
        if count < 0, errno == EINTR { continue }
        return nil
    }
}
