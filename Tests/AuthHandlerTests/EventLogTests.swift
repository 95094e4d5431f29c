import Foundation
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols
@testable import auth_handler

struct EventLogTests {
    /// One logged value holding `text`, as the single line the sink received.
    static func line(logging text: String) -> [String] {
        let sink = CapturingLogSink()
        EventLog(sink: sink).log(.info, "signin.start", ["provider": text, "outcome": "redirect"])
        return sink.captured
    }

    @Test(arguments: [
        "a\nlevel=error event=forged", "a\rlevel=error", "a\u{0}b", "a\u{1B}[2Jb", "a\u{7F}b", "a\u{85}level=error",
        "a\u{9B}2Jb", "a\u{80}b", "a\u{9F}b", "a\u{2028}level=error", "a\u{2029}level=error", "a\u{202E}rorre=level",
        "a\u{2066}b\u{2069}",
    ])
    func lineBreakingCharactersCannotForgeALine(_ text: String) {
        let lines = Self.line(logging: text)
        #expect(lines.count == 1)
        let line = lines.first ?? ""
        #expect(line.unicodeScalars.allSatisfy { !EventLog.isLineBreaking($0) })
        #expect(line.split(separator: "\n", omittingEmptySubsequences: false).count == 1)
        #expect(line.hasSuffix(" outcome=redirect"))
        #expect(line.contains("provider=\""), "a value with a replaced character is quoted: \(line)")
    }

    @Test func c1AndSeparatorCharactersAreReplacedBySpaces() {
        #expect(EventLog.quoted("a\u{85}b\u{2028}c\u{2029}d\u{9B}e\u{7F}f") == "\"a b c d e f\"")
    }

    @Test func ordinaryValuesAreUnchanged() {
        #expect(EventLog.quoted("google.com") == "google.com")
        #expect(EventLog.quoted("Zoë") == "Zoë")
        #expect(EventLog.quoted("a b") == "\"a b\"")
        #expect(EventLog.quoted("say \"hi\"") == "\"say \\\"hi\\\"\"")
        #expect(EventLog.quoted("") == "\"\"")
    }

    @Test(arguments: Array(0x00...0x1F) + [0x7F] + Array(0x80...0x9F) + [0x2028, 0x2029])
    func everyControlIsLineBreaking(_ value: Int) throws {
        let scalar = try #require(Unicode.Scalar(UInt32(value)))
        #expect(EventLog.isLineBreaking(scalar))
    }

    // MARK: - logFormat json (docs/CONFIG.md, section `logFormat`)

    /// The one line logged with `log`, parsed as a JSON object.
    static func jsonObject(_ log: (EventLog) -> Void) throws -> [String: JSONValue] {
        let sink = CapturingLogSink()
        log(EventLog(sink: sink, format: .json))
        #expect(sink.captured.count == 1)
        let line = try #require(sink.captured.first)
        #expect(!line.contains("\n"))
        return try #require(JSONValue.parse(Data(line.utf8))?.objectValue, "not a JSON object: \(line)")
    }

    @Test func aJSONLineHoldsLevelEventAndEveryField() throws {
        let object = try Self.jsonObject {
            $0.log(
                .warning, "signin.callback",
                ["provider": "google.com", "outcome": "provider-error", "latency_ms": "42", "reason": "bad nonce"])
        }
        #expect(
            object == [
                "level": .string("warning"), "event": .string("signin.callback"), "provider": .string("google.com"),
                "outcome": .string("provider-error"), "latency_ms": .number(42), "reason": .string("bad nonce"),
            ])
    }

    @Test func aJSONLineKeepsTheOrderLevelEventRequestIDThenFields() {
        let sink = CapturingLogSink()
        EventLog.$requestID.withValue("0123abcd") {
            EventLog(sink: sink, format: .json).log(.info, "signin.start", ["provider": "x", "latency_ms": "3"])
        }
        #expect(
            sink.captured == [
                #"{"level":"info","event":"signin.start","request_id":"0123abcd","provider":"x","latency_ms":3}"#
            ])
    }

    @Test func quotesBackslashesAndSlashesAreJSONEscapedAndRoundTrip() throws {
        let value = #"say "hi" \ C:\path </script> {"level":"error"}"#
        let object = try Self.jsonObject { $0.log(.info, "signin.start", ["reason": value]) }
        #expect(object["reason"] == .string(value))
        #expect(object["level"] == .string("info"))
    }

    @Test(arguments: [
        "a\nlevel=error event=forged", "a\n{\"level\":\"error\"}", "a\rb", "a\u{0}b", "a\u{1B}[2Jb", "a\u{7F}b",
        "a\u{85}b", "a\u{9B}2Jb", "a\u{2028}b", "a\u{2029}b", "a\u{202E}b", "a\u{2066}b\u{2069}", "tab\there",
    ])
    func controlAndLineBreakingCharactersCannotForgeAJSONLine(_ text: String) throws {
        let sink = CapturingLogSink()
        EventLog(sink: sink, format: .json).log(.info, "signin.start", ["provider": text, "outcome": "redirect"])
        #expect(sink.captured.count == 1)
        let line = try #require(sink.captured.first)
        #expect(line.unicodeScalars.allSatisfy { !EventLog.isLineBreaking($0) }, "raw control in \(line)")
        let object = try #require(JSONValue.parse(Data(line.utf8))?.objectValue)
        #expect(Set(object.keys) == ["level", "event", "provider", "outcome"])
        #expect(object["level"] == .string("info"))
        #expect(object["provider"] == .string(EventLog.sanitized(text)))
        #expect(object["provider"]?.stringValue?.unicodeScalars.contains { EventLog.isLineBreaking($0) } == false)
    }

    @Test(arguments: [
        ("17", JSONValue.number(17)), ("007", .number(7)), ("+3", .number(3)), ("", .string("")),
        ("3.5", .string("3.5")),
    ])
    func latencyIsANumberOnlyWhenItIsAWholeNumber(_ value: String, _ expected: JSONValue) throws {
        let object = try Self.jsonObject { $0.log(.info, "signin.redeem", ["latency_ms": value]) }
        #expect(object["latency_ms"] == expected)
    }

    // MARK: - request_id

    @Test func aLineLoggedInARequestCarriesItsIDInLogfmtToo() {
        let sink = CapturingLogSink()
        let log = EventLog(sink: sink)
        log.log(.info, "listening")
        EventLog.$requestID.withValue("5e1f") { log.log(.info, "signin.start", ["provider": "github.com"]) }
        #expect(
            sink.captured == [
                "level=info event=listening", "level=info event=signin.start request_id=5e1f provider=github.com",
            ])
    }

    @Test func theRequestIDReachesChildTasks() async {
        let sink = CapturingLogSink()
        let log = EventLog(sink: sink, format: .json)
        await EventLog.$requestID.withValue("feed") {
            async let child: Void = log.log(.info, "child")
            await child
            await Task { log.log(.info, "unstructured") }.value
        }
        #expect(sink.captured.allSatisfy { $0.contains(#""request_id":"feed""#) })
        #expect(sink.captured.count == 2)
    }

    @Test func requestIDsAreShortRandomHex() {
        let ids = (0..<64).map { _ in AuthHandlerService.newRequestID() }
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.count == 16 && $0.allSatisfy(\.isHexDigit) })
    }

    // MARK: - journald priority prefix

    @Test(arguments: [
        (EventLog.Level.error, "<3>"), (.warning, "<4>"), (.info, "<6>"), (.debug, "<7>"),
    ])
    func underJournaldEachLineStartsWithItsSyslogPriority(_ level: EventLog.Level, _ prefix: String) throws {
        for format in LogFormat.allCases {
            let sink = CapturingLogSink()
            EventLog(sink: sink, format: format, syslogPrefix: true).log(level, "e", ["provider": "p"])
            let line = try #require(sink.captured.first)
            #expect(line.hasPrefix(prefix), "\(format): \(line)")
            let rest = String(line.dropFirst(prefix.count))
            if format == .json {
                #expect(JSONValue.parse(Data(rest.utf8))?["level"] == .string(level.rawValue))
            } else {
                #expect(rest == "level=\(level.rawValue) event=e provider=p")
            }
        }
    }

    @Test func withoutJournaldLinesHaveNoPrefix() {
        let sink = CapturingLogSink()
        EventLog(sink: sink, format: .logfmt).log(.error, "e")
        EventLog(sink: sink, format: .json).log(.error, "e")
        #expect(sink.captured == ["level=error event=e", #"{"level":"error","event":"e"}"#])
    }

    @Test func journaldIsRecognisedByJournalStreamMatchingStandardError() throws {
        // Stands in for stderr: a descriptor whose device and inode the test knows.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString)").path
        let descriptor = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        #expect(descriptor >= 0)
        defer {
            close(descriptor)
            unlink(path)
        }
        var status = stat()
        #expect(fstat(descriptor, &status) == 0)
        let stream = "\(status.st_dev):\(status.st_ino)"
        #expect(EventLog.writesToJournal(environment: ["JOURNAL_STREAM": stream], standardError: descriptor))
        // Inherited by a process whose stderr is elsewhere: no prefix.
        #expect(
            !EventLog.writesToJournal(
                environment: ["JOURNAL_STREAM": "\(status.st_dev):\(status.st_ino + 1)"], standardError: descriptor))
        #expect(!EventLog.writesToJournal(environment: ["JOURNAL_STREAM": "8:12345"], standardError: descriptor))
        #expect(!EventLog.writesToJournal(environment: [:], standardError: descriptor))
        #expect(!EventLog.writesToJournal(environment: ["JOURNAL_STREAM": ""], standardError: descriptor))
        #expect(!EventLog.writesToJournal(environment: ["JOURNAL_STREAM": "garbage"], standardError: descriptor))
    }

    @Test func setFormatAppliesToEveryCopyOfTheLog() {
        let sink = CapturingLogSink()
        let log = EventLog(sink: sink)
        let copy = log
        log.setFormat(.json)
        copy.log(.info, "e")
        #expect(sink.captured == [#"{"level":"info","event":"e"}"#])
    }

    /// Each skipped JWKS key is one warning with its kid and reason; past 16 in one set, one line counts the rest.
    @Test func skippedJWKSKeysAreLoggedAndBounded() {
        let sink = CapturingLogSink()
        let telemetry = SignInTelemetry(log: EventLog(sink: sink), metrics: Metrics())
        let reason = "P-256 coordinates must be 32 bytes each (RFC 7518 §6.2.1.2), got x 31 and y 32"
        telemetry.keysSkipped(
            jwksURI: "https://idp.example/jwks", [JSONWebKeySet.SkippedKey(index: 3, keyID: "k1", reason: reason)])
        #expect(
            sink.captured == [
                "level=warning event=oidc.jwks outcome=key-skipped jwks_uri=https://idp.example/jwks index=3 kid=k1 "
                    + "reason=\"\(reason)\""
            ])
        let many = (0..<20).map { JSONWebKeySet.SkippedKey(index: $0, keyID: nil, reason: "junk") }
        telemetry.keysSkipped(jwksURI: "https://idp.example/jwks", many)
        #expect(sink.captured.count == 1 + 16 + 1)
        #expect(
            sink.captured.last
                == "level=warning event=oidc.jwks outcome=keys-skipped-not-logged jwks_uri=https://idp.example/jwks "
                + "count=4")
    }
}
