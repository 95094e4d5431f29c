import Testing

@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols
@testable import AuthHandlerSystem

/// The raw nonce and its hash (HTTP-API.md §3.1): the provider gets the lowercase hex SHA-256 of the raw nonce.
struct OIDCNonceTests {
    /// Computed independently: `printf %s n-0S6_WzA2Mj | sha256sum`.
    @Test func theHashIsTheLowercaseHexSHA256OfTheRawNonce() throws {
        #expect(
            try OIDCNonce.hashed("n-0S6_WzA2Mj") == "0823a09b54cb9381561068b00aaf4e539b3f54604631d3e6a820879b6b04cc19")
        // `printf %s 'Zx9-_aBc0123456789Zx9-_aBc0123456789Zx9-_aB' | sha256sum`, a raw nonce of the drawn form.
        #expect(
            try OIDCNonce.hashed("Zx9-_aBc0123456789Zx9-_aBc0123456789Zx9-_aB")
                == "da9981778ec97673f6a2a33b2438574336be98ace7937b2619f3cfbd64f99772")
    }

    @Test func rawNoncesAre43Base64URLCharactersAndFresh() throws {
        let first = try OIDCNonce.makeRaw()
        let second = try OIDCNonce.makeRaw()
        #expect(first.count == 43)
        #expect(
            first.utf8.allSatisfy { RFC3986.isUnreserved($0) && $0 != UInt8(ascii: ".") && $0 != UInt8(ascii: "~") })
        #expect(first != second)
        #expect(try OIDCNonce.hashed(first) != first)
    }
}
