import AuthHandlerHTTP
import Foundation

/// Where a command writes: standard output and standard error, injectable for tests.
struct CommandOutput: Sendable {
    /// Writes text to standard output as is.
    var writeOutput: @Sendable (String) -> Void
    /// Writes text to standard error as is.
    var writeError: @Sendable (String) -> Void

    /// Creates an output from two writers.
    init(writeOutput: @escaping @Sendable (String) -> Void, writeError: @escaping @Sendable (String) -> Void) {
        self.writeOutput = writeOutput
        self.writeError = writeError
    }

    /// The process's standard output and standard error, unbuffered.
    static let standard = CommandOutput(
        writeOutput: { FileHandle.standardOutput.write(Data($0.utf8)) },
        writeError: { FileHandle.standardError.write(Data($0.utf8)) })

    /// Writes one line to standard output.
    func line(_ text: String) {
        writeOutput(text + "\n")
    }

    /// Writes `auth-handler: MESSAGE` as one line on standard error.
    func errorLine(_ message: String) {
        let singleLine = message.split(whereSeparator: \.isNewline).joined(separator: " ")
        writeError("auth-handler: \(singleLine)\n")
    }
}
