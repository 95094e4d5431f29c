import Testing

@testable import AuthHandler

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
}
