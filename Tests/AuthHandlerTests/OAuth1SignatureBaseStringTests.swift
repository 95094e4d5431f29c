import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols

struct OAuth1SignatureBaseStringTests {
    @Test(
        arguments: [
            ("http://EXAMPLE.COM:80/r%20v/X?id=123", "http://example.com/r%20v/X"),
            ("https://www.example.net:8080/?q=1", "https://www.example.net:8080/"),
            ("HTTPS://Photos.Example.NET:443/Initiate", "https://photos.example.net/Initiate"),
            ("http://example.com:443/a", "http://example.com:443/a"),
            ("https://example.com:80/a", "https://example.com:80/a"),
            ("http://example.com", "http://example.com/"),
            ("http://example.com?x=1", "http://example.com/"),
            ("http://example.com/p#fragment", "http://example.com/p"),
            ("http://user:pass@example.com/p", "http://example.com/p"),
            ("http://[::1]:8080/__/auth/handler", "http://[::1]:8080/__/auth/handler"),
            ("http://[::1]:80/", "http://[::1]/"),
            ("http://127.0.0.1:0080/x", "http://127.0.0.1/x"),
            ("http://example.com:/x", "http://example.com/x"),
        ])
    func baseStringURIIsNormalised(_ url: String, _ expected: String) throws {
        #expect(try BaseStringURI(url).value == expected)
    }

    @Test func baseStringURIKeepsTheQueryApart() throws {
        let uri = try BaseStringURI("https://api.twitter.com/1.1/statuses/update.json?include_entities=true#top")
        #expect(uri.value == "https://api.twitter.com/1.1/statuses/update.json")
        #expect(uri.query == "include_entities=true")
        #expect(try BaseStringURI("https://example.com/").query == nil)
    }

    @Test(
        arguments: [
            "ftp://example.com/", "example.com/path", "/path", "http:/example.com", "http:///path",
            "http://example.com:99999/", "http://example.com:8a/", "http://exa mple.com/", "http://[::1/",
            "http://example.com:80:80/", "http://é.example/",
        ])
    func baseStringURIRefusesWhatCannotBeSigned(_ url: String) {
        #expect(throws: OAuth1Error.self) { try BaseStringURI(url) }
    }

    @Test func duplicateNamesAreKeptAndSortedByValue() {
        let parameters = [
            URLFormField(name: "a", value: "b"), URLFormField(name: "a", value: "c"),
            URLFormField(name: "a", value: "a"), URLFormField(name: "a", value: "%"),
        ]
        #expect(SignatureBaseString.normalizedParameters(parameters) == "a=%25&a=a&a=b&a=c")
    }

    @Test func namesSortBeforeValuesEvenWhenOneNameIsAPrefix() {
        let parameters = [URLFormField(name: "a1", value: "x"), URLFormField(name: "a", value: "y")]
        #expect(SignatureBaseString.normalizedParameters(parameters) == "a=y&a1=x")
    }

    @Test func sortingUsesEncodedBytes() {
        let parameters = [URLFormField(name: "z", value: ""), URLFormField(name: " ", value: "")]
        #expect(SignatureBaseString.normalizedParameters(parameters) == "%20=&z=")
        let mixedCase = [URLFormField(name: "b", value: ""), URLFormField(name: "B", value: "")]
        #expect(SignatureBaseString.normalizedParameters(mixedCase) == "B=&b=")
    }

    /// Short lists take an insertion sort and long ones the general sort; both give byte order.
    @Test(arguments: [3, 16, 17, 60])
    func anyNumberOfParametersSortsByNameThenValue(_ count: Int) {
        let names = (0..<count).map { "p\(($0 * 7) % count)" }
        let parameters = names.reversed().map { URLFormField(name: $0, value: "v \($0)") }
        let expected = names.sorted().map { "\($0)=v%20\($0)" }.joined(separator: "&")
        #expect(SignatureBaseString.normalizedParameters(parameters) == expected)
    }

    @Test func oauthSignatureIsLeftOutButRealmInTheQueryIsSigned() throws {
        let parameters = [
            URLFormField(name: "oauth_signature", value: "x"), URLFormField(name: "realm", value: "r"),
            URLFormField(name: "oauth_nonce", value: "n"),
        ]
        #expect(SignatureBaseString.normalizedParameters(parameters) == "oauth_nonce=n&realm=r")
    }

    @Test func methodIsUppercasedAndPartsAreEncodedAgain() throws {
        let baseString = SignatureBaseString(
            method: "post", uri: try BaseStringURI("https://example.com/a%20b"),
            parameters: [URLFormField(name: "q", value: "1 2")])
        #expect(baseString.string == "POST&https%3A%2F%2Fexample.com%2Fa%2520b&q%3D1%25202")
    }

    @Test func parameterListsAreMergedAsOne() throws {
        let uri = try BaseStringURI("http://example.com/")
        let query = [URLFormField(name: "b", value: "2")]
        let body = [URLFormField(name: "a", value: "1")]
        #expect(
            SignatureBaseString(method: "GET", uri: uri, parameters: query, body)
                == SignatureBaseString(method: "GET", uri: uri, parameters: body + query))
    }
}
