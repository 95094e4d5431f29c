import AuthHandlerCore
import AuthHandlerHTTP
import AuthHandlerProtocols
import Foundation

/// A compact JWS ID token: parsing, then the validator's header and claims checks against fixed expectations.
enum JWSTarget {
    private static let expectations = IDTokenExpectations(
        issuer: "https://idp.example.com", clientID: "client-1", nonce: "n-0S6_WzA2Mj",
        jwksURI: "https://idp.example.com/jwks", now: Date(timeIntervalSince1970: 1_800_000_000),
        allowedAlgorithms: [.rs256, .es256], allowsUnsigned: true, maxAge: 3600)

    static func run(_ input: [UInt8]) {
        guard let jws = try? CompactJWS(parsing: String(decoding: input, as: UTF8.self)) else { return }
        expect(jws.signingInput.count < input.count, "the signing input is not a proper prefix of the token")
        _ = try? IDTokenValidator.checkHeader(jws.header, expectations: expectations)
        guard let claims = JSONValue.parse(jws.payload), claims.objectValue != nil else { return }
        _ = try? IDTokenValidator.checkClaims(claims, expectations: expectations)
    }
}
