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

    /// Quotes a value when it holds a space, quote or `=`, or is empty; characters that could end or
    /// disguise a line are replaced by a space first (see ``isLineBreaking(_:)``), so one call is one line.
    static func quoted(_ value: String) -> String {
        var cleaned = ""
        var needsQuotes = value.isEmpty
        for scalar in value.unicodeScalars {
            if isLineBreaking(scalar) {
                cleaned += " "
                needsQuotes = true
            } else if scalar == "\"" || scalar == "\\" {
                cleaned += "\\" + String(scalar)
                needsQuotes = needsQuotes || scalar == "\""
            } else {
                if scalar == " " || scalar == "=" { needsQuotes = true }
                cleaned.unicodeScalars.append(scalar)
            }
        }
        return needsQuotes ? "\"\(cleaned)\"" : cleaned
    }

    /// Characters a log viewer may treat as a line break or use to reorder text: the C0 controls and
    /// DEL, the C1 controls U+0080–U+009F (U+0085 is NEL, a line break in Unicode and some terminals;
    /// others are 8-bit terminal escapes such as CSI), LINE SEPARATOR U+2028 and PARAGRAPH SEPARATOR
    /// U+2029 (line breaks in Unicode, UAX #14), and the bidirectional embeddings, overrides and isolates
    /// (U+202A–U+202E, U+2066–U+2069; Unicode UAX #9), which can make a value look like other fields.
    static func isLineBreaking(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
