import Foundation
import Synchronization

/// Where log lines go: stderr (journald) in the daemon, a buffer in tests.
public protocol LogSink: Sendable {
    func write(_ line: String)
}

/// Writes each line to standard error.
public struct StandardErrorLogSink: LogSink {
    public init() {}

    public func write(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

/// Keeps lines in memory, for tests that assert what was (and was not) logged.
public final class CapturingLogSink: LogSink {
    private let lines = Mutex<[String]>([])

    public init() {}

    public func write(_ line: String) {
        lines.withLock { $0.append(line) }
    }

    public var captured: [String] { lines.withLock { $0 } }
}

/// One logfmt line per sign-in step: `level=info event=signin.start provider=google.com outcome=redirect latency_ms=3`.
///
/// Fields are named, closed values chosen by the caller — provider ids, outcomes, error codes, latencies — never
/// request parameters, so a token, secret, code or state value has no way in.
public struct EventLog: Sendable {
    public enum Level: String, Sendable {
        case info, warning, error
    }

    private let sink: any LogSink

    public init(sink: any LogSink = StandardErrorLogSink()) {
        self.sink = sink
    }

    public func log(_ level: Level, _ event: String, _ fields: KeyValuePairs<String, String> = [:]) {
        var line = "level=\(level.rawValue) event=\(Self.quoted(event))"
        for (key, value) in fields {
            line += " \(key)=\(Self.quoted(value))"
        }
        sink.write(line)
    }

    /// Quotes a value when it holds a space, quote, `=` or control character; control characters are replaced.
    static func quoted(_ value: String) -> String {
        let needsQuotes = value.isEmpty || value.contains { $0 == " " || $0 == "\"" || $0 == "=" || $0.isNewline }
        var cleaned = ""
        for scalar in value.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7f {
                cleaned += " "
            } else if scalar == "\"" || scalar == "\\" {
                cleaned += "\\" + String(scalar)
            } else {
                cleaned.unicodeScalars.append(scalar)
            }
        }
        return needsQuotes ? "\"\(cleaned)\"" : cleaned
    }
}
