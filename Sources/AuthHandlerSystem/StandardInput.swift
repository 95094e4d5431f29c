#if canImport(Glibc)
    import Glibc
#endif

/// Standard input, for commands that take a secret or a document there rather than as an argument (which `ps`,
/// `/proc/PID/cmdline` and shell history show): one line, typed without echo at a terminal, or all of it.
package enum StandardInput {
    /// Why nothing usable was read; the message never repeats what was read.
    package enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The input ended before anything was read.
        case empty
        /// More than `limit` bytes.
        case tooLong(limit: Int)
        /// A read or a terminal call failed.
        case system(SystemCallError)

        package var description: String {
            switch self {
            case .empty: "standard input is empty"
            case .tooLong(let limit): "standard input holds more than \(limit) bytes"
            case .system(let error): "reading standard input: \(error)"
            }
        }
    }

    /// Whether standard input is a terminal (isatty(3)).
    package static var isTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// One line: the bytes before the first `\n` (a `\r` before it dropped too), or all of them when the input ends
    /// first. At a terminal echo is turned off first (termios(3): `ECHO` off, the rest as it was; `TCSAFLUSH` drops what
    /// was typed before), then `prompt` runs, so nothing typed after the prompt is ever echoed; the terminal is
    /// restored afterwards, also when SIGINT, SIGTERM or SIGHUP ends the process meanwhile.
    package static func readLine(maximumBytes: Int, prompt: () -> Void) throws(Failure) -> [UInt8] {
        guard isTerminal else { return try readLineBytes(maximumBytes: maximumBytes) }
        var saved = termios()
        do {
            try SystemCall.run("tcgetattr", subject: "standard input") { tcgetattr(STDIN_FILENO, &saved) }
        } catch {
            throw .system(error)
        }
        var hidden = saved
        hidden.c_lflag &= ~tcflag_t(ECHO)
        EchoRestoration.arm(saved)
        defer { EchoRestoration.disarm() }
        do {
            try SystemCall.run("tcsetattr", subject: "standard input") { tcsetattr(STDIN_FILENO, TCSAFLUSH, &hidden) }
        } catch {
            throw .system(error)
        }
        prompt()
        // The Enter that ended the line was not echoed either.
        defer {
            _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
            _ = try? FileDescriptor.borrowing(STDERR_FILENO, subject: "standard error") { error in
                try error.writeAll([UInt8(ascii: "\n")])
            }
        }
        return try readLineBytes(maximumBytes: maximumBytes)
    }

    /// Everything up to the end of the input, at most `maximumBytes`.
    package static func readAll(maximumBytes: Int) throws(Failure) -> [UInt8] {
        var bytes: [UInt8] = []
        do {
            try FileDescriptor.borrowing(STDIN_FILENO, subject: "standard input") { input throws(SystemCallError) in
                while true {
                    let chunk = try input.read(upTo: 4096)
                    if chunk.isEmpty { return }
                    bytes += chunk
                    if bytes.count > maximumBytes { return }
                }
            }
        } catch {
            throw .system(error)
        }
        if bytes.count > maximumBytes { throw .tooLong(limit: maximumBytes) }
        return bytes
    }

    /// Reads one byte at a time, so that nothing after the line is taken from the input.
    private static func readLineBytes(maximumBytes: Int) throws(Failure) -> [UInt8] {
        var line: [UInt8] = []
        var ended = false
        var sawAnything = false
        do {
            try FileDescriptor.borrowing(STDIN_FILENO, subject: "standard input") { input throws(SystemCallError) in
                while line.count <= maximumBytes {
                    let byte = try input.read(upTo: 1)
                    guard let first = byte.first else { return }
                    sawAnything = true
                    if first == UInt8(ascii: "\n") {
                        ended = true
                        return
                    }
                    line.append(first)
                }
            }
        } catch {
            throw .system(error)
        }
        guard sawAnything else { throw .empty }
        if !ended, line.count > maximumBytes { throw .tooLong(limit: maximumBytes) }
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        return line
    }
}

/// Puts the terminal's saved settings back when a signal ends the process while echo is off, then lets the signal
/// take its default course: the classic handler of getpass(3)'s callers, only async-signal-safe calls
/// (tcsetattr, signal, raise; signal-safety(7)).
private enum EchoRestoration {
    /// The settings to restore. `nonisolated(unsafe)`: written only by ``arm(_:)`` before the handlers are installed
    /// and read by them, on the one thread that reads the line or in a signal handler of that process.
    nonisolated(unsafe) static var saved = termios()
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    static func arm(_ settings: termios) {
        saved = settings
        for number in signals { signal(number, restoreAndRaise) }
    }

    static func disarm() {
        for number in signals { signal(number, SIG_DFL) }
    }
}

private func restoreAndRaise(_ number: Int32) {
    _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &EchoRestoration.saved)
    signal(number, SIG_DFL)
    raise(number)
}
