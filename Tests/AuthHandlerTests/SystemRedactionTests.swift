import Testing

@testable import AuthHandlerSystem

struct SystemRedactionTests {
    @Test func targetKeepsSchemeHostPortAndPathOnly() {
        #expect(
            Redaction.target("https://user:pw@idp.example:8443/token?key=k#frag") == "https://idp.example:8443/token")
        #expect(Redaction.target("https://idp.example/a@b?x=1") == "https://idp.example/a@b")
        #expect(Redaction.target("not a url?secret") == "not a url")
    }

    @Test func textLosesEveryURLQuery() {
        let text = "GET https://h.example/v1?key=AIzaSecret failed (https://h.example/x?token=t0k3n)"
        #expect(
            Redaction.withoutURLSecrets(text)
                == "GET https://h.example/v1?<redacted> failed (https://h.example/x?<redacted>)")
    }

    /// A URL repeated in a foreign message may carry a password as user info.
    @Test func textLosesEveryURLUserInfo() {
        let text = "Failed to connect to https://hook:s3cr3t@backend.example/path port 443"
        let scrubbed = Redaction.withoutURLSecrets(text)
        #expect(!scrubbed.contains("s3cr3t"))
        #expect(scrubbed == "Failed to connect to https://<redacted>@backend.example/path port 443")
    }

    @Test func sensitiveValuesAreScrubbedRawAndPercentEncoded() {
        let values = SensitiveValues(["p:ss w/rd", nil, "abc"])
        #expect(values.scrub("a p:ss w/rd b p%3Ass%20w%2Frd c abc") == "a <redacted> b <redacted> c abc")
    }
}
