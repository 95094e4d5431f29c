import Foundation
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP

/// `opsListen` and `logFormat` (docs/CONFIG.md, sections `opsListen` and `logFormat`).
struct ConfigOperationsTests {
    @Test func bothKeysAreAbsentByDefault() throws {
        let report = try ConfigFixture.report(overriding: "{}")
        let config = try #require(report.config)
        #expect(config.opsListen == nil)
        #expect(config.logFormat == .logfmt)
    }

    @Test func opsListenAndLogFormatAreReadIntoTypedProperties() throws {
        let report = try ConfigFixture.report(
            overriding: #"{"opsListen": ["127.0.0.1:9090", "[::1]:9090"], "logFormat": "json"}"#)
        #expect(report.problems == [])
        let config = try #require(report.config)
        #expect(
            config.opsListen == [ListenAddress(host: "127.0.0.1", port: 9090), ListenAddress(host: "::1", port: 9090)])
        #expect(config.logFormat == .json)
    }

    @Test func portZeroMayAppearInBothListenAndOpsListen() throws {
        let report = try ConfigFixture.report(
            overriding: #"{"listen": ["127.0.0.1:0"], "opsListen": ["127.0.0.1:0"]}"#)
        #expect(report.problems == [])
    }

    @Test(arguments: [
        ConfigRuleCase(overrides: #"{"opsListen": "127.0.0.1:9090"}"#, path: "opsListen", expects: "array"),
        ConfigRuleCase(overrides: #"{"opsListen": []}"#, path: "opsListen", expects: "at least one"),
        ConfigRuleCase(overrides: #"{"opsListen": ["127.0.0.1"]}"#, path: "opsListen[0]", expects: "HOST:PORT"),
        ConfigRuleCase(
            overrides: #"{"opsListen": ["127.0.0.1:9090", "::1:9090"]}"#, path: "opsListen[1]", expects: "[V6]:PORT"),
        ConfigRuleCase(
            overrides: #"{"opsListen": ["127.0.0.1:9090", "127.0.0.1:8080"]}"#, path: "opsListen[1]",
            expects: "also in listen"),
        ConfigRuleCase(overrides: #"{"opsListn": ["127.0.0.1:9090"]}"#, path: "opsListn", expects: "opsListen"),
        ConfigRuleCase(
            overrides: #"{"logFormat": "syslog"}"#, path: "logFormat",
            expects: #"unknown value "syslog"; expected one of "logfmt", "json""#),
        ConfigRuleCase(
            overrides: #"{"logFormat": 1}"#, path: "logFormat", expects: #"expected one of "logfmt", "json""#),
    ])
    func aBadValueIsAnErrorAtItsPath(_ rule: ConfigRuleCase) throws {
        let report = try ConfigFixture.report(overriding: rule.overrides)
        #expect(report.config == nil, "\(rule.overrides) must not validate")
        let problem = report.errors.first { $0.path.description == rule.path }
        #expect(problem?.message.contains(rule.expects) == true, "\(report.problems)")
    }
}
