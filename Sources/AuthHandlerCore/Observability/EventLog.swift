import AuthHandlerHTTP
import AuthHandlerProtocols
import AuthHandlerSystem
import Foundation
import Synchronization

/// Where log lines go: stderr (journald) in the daemon, a buffer in tests.
package protocol LogSink: Sendable {
    func write(_ line: String)
}

/// Writes each line to standard error.
package struct StandardErrorLogSink: LogSink {
    package init() {}

    package func write(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

/// Keeps lines in memory, for tests that assert what was (and was not) logged.
package final class CapturingLogSink: LogSink {
    private let lines = Mutex<[String]>([])

    package init() {}

    package func write(_ line: String) {
        lines.withLock { $0.append(line) }
    }

    package var captured: [String] { lines.withLock { $0 } }
}

/// One line per sign-in step, as logfmt (`level=info event=signin.start provider=google.com outcome=redirect
/// latency_ms=3`) or as one JSON object (docs/CONFIG.md, section `logFormat`).
///
/// Fields are named, closed values chosen by the caller — provider ids, outcomes, error codes, latencies — never
/// request parameters, so a token, secret, code or state value has no way in. A line logged while an HTTP request is
/// handled carries that request's ``requestID``.
package struct EventLog: Sendable {
    package enum Level: String, Sendable {
        case debug, info, warning, error

        /// The syslog priority a journald stream line starts with, `<N>` (sd-daemon(3); RFC 5424 §6.2.1 severities).
        package var syslogPriority: Int {
            switch self {
            case .error: 3
            case .warning: 4
            case .info: 6
            case .debug: 7
            }
        }
    }

    /// The id of the HTTP request whose task is logging; set by ``AuthHandlerService`` around each request.
    @TaskLocal package static var requestID: String?

    /// The format, shared by every copy of this log so that the one read from the config applies everywhere.
    private final class Formatting: Sendable {
        let format: Mutex<LogFormat>
        init(_ format: LogFormat) { self.format = Mutex(format) }
    }

    private let sink: any LogSink
    private let formatting: Formatting
    private let syslogPrefix: Bool

    /// A log writing `format` lines to `sink`; `syslogPrefix` starts each with its `<N>` priority (for journald, see
    /// ``writesToJournal(environment:)``).
    package init(sink: any LogSink = StandardErrorLogSink(), format: LogFormat = .logfmt, syslogPrefix: Bool = false) {
        self.sink = sink
        self.formatting = Formatting(format)
        self.syslogPrefix = syslogPrefix
    }

    /// Whether stderr is a journald stream: systemd sets `JOURNAL_STREAM=DEVICE:INODE` for a service whose stderr is
    /// connected to the journal, and a process checks it against its stderr, since the variable is inherited by
    /// children whose stderr is elsewhere (systemd.exec(5)). The journal then reads a leading `<N>` as the line's
    /// priority (sd-daemon(3)).
    package static func writesToJournal(environment: [String: String], standardError: Int32 = 2) -> Bool {
        let parts = (environment["JOURNAL_STREAM"] ?? "").split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        guard let status = FileDescriptor.borrowing(standardError, subject: "stderr", { try? $0.status() }) else {
            return false
        }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }

    /// Switches every copy of this log to `format` (the config's `logFormat`, once it is read).
    package func setFormat(_ format: LogFormat) {
        formatting.format.withLock { $0 = format }
    }

    package func log(_ level: Level, _ event: String, _ fields: KeyValuePairs<String, String> = [:]) {
        log(level, event, fields: fields.map { ($0.key, $0.value) })
    }

    /// One line with `fields` in the order given, for a caller that leaves some of them out.
    package func log(_ level: Level, _ event: String, fields: [(String, String)]) {
        var members: [(String, String)] = [("level", level.rawValue), ("event", event)]
        if let requestID = Self.requestID { members.append(("request_id", requestID)) }
        members.append(contentsOf: fields)
        let line: String
        switch formatting.format.withLock({ $0 }) {
        case .logfmt: line = members.map { "\($0.0)=\(Self.quoted($0.1))" }.joined(separator: " ")
        case .json: line = Self.jsonObject(members)
        }
        sink.write(syslogPrefix ? "<\(level.syslogPriority)>" + line : line)
    }

    /// Fields whose values are written as JSON numbers when they are whole numbers.
    static let numericFields: Set<String> = ["latency_ms"]

    /// One JSON object, members in order; names and values pass the same replacement as logfmt's
    /// (``sanitized(_:)``) and are then escaped as JSON strings (`JSONValue.write(string:to:)`, RFC 8259 §7).
    static func jsonObject(_ members: [(String, String)]) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        for (index, (key, value)) in members.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONValue.write(string: sanitized(key), to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            // Re-rendered, so that "+3" or "007" cannot put an invalid JSON number on the line.
            if numericFields.contains(key), let number = Int(value) {
                bytes.append(contentsOf: String(number).utf8)
            } else {
                JSONValue.write(string: sanitized(value), to: &bytes)
            }
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `value` with every character that could end or disguise a line (``isLineBreaking(_:)``) replaced by a space.
    static func sanitized(_ value: String) -> String {
        var cleaned = ""
        for scalar in value.unicodeScalars {
            cleaned.unicodeScalars.append(isLineBreaking(scalar) ? " " : scalar)
        }
        return cleaned
    }

    /// Quotes a value when it holds a space, quote or `=`, or is empty; characters that could end or
    /// disguise a line are replaced by a space first (see ``isLineBreaking(_:)``), so one call is one line.
    static func quoted(_ value: String) -> String {
        // The common case, a plain value (an id, an outcome, a number), is written as it is: printable ASCII other
        // than space, quote, backslash and `=` needs neither quotes nor replacement.
        if !value.isEmpty, value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C && $0 != 0x3D }) {
            return value
        }
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
