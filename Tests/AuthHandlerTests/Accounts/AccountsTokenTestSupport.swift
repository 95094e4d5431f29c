import AuthHandlerCrypto
import AuthHandlerHTTP
import Foundation
import Testing

@testable import AuthHandlerAccounts

/// What the accounts token tests share: a fixed time, keys, settings and a user.
enum AccountsTokenFixture {
    /// 2027-01-15 08:00:00 UTC: every token test signs and verifies at a time it chooses.
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let settings = IDTokenSettings(publicURL: "https://auth.example.com", audience: "https://api.example.com")

    /// A user signed in with Google a minute before `now`, with a verified e-mail and a custom claim.
    static func subject() throws -> IDTokenSubject {
        IDTokenSubject(
            localID: try #require(LocalID("u8mPZx2QeCtT0jKq4EobQ3bXy1zA")),
            sessionID: "session-1", authTime: now.addingTimeInterval(-60), signInProvider: "google.com",
            email: "alice@example.com", emailVerified: true, displayName: "Alice", photoURL: nil,
            identities: [IDTokenSubject.Identity(providerID: "google.com", providerUserID: "1001")],
            customClaims: try CustomClaims(json: .object(["role": .string("admin")])))
    }

    /// A ring of one fresh key.
    static func ring() throws -> SigningKeyRing {
        try SigningKeyRing(current: try AccountSigningKey.generate())
    }

    /// A fresh, empty directory, removed after `body`.
    static func withDirectory<T>(_ body: (String) throws -> T) throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("accounts-keys-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try body(directory.path)
    }

    /// The claims object of a compact JWS, decoded without any check.
    static func claims(of token: String) throws -> [String: JSONValue] {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        let payload = try #require(Base64.urlDecode(String(parts[1])))
        return try #require(JSONValue.parse(payload)?.objectValue)
    }

    /// The header object of a compact JWS, decoded without any check.
    static func header(of token: String) throws -> [String: JSONValue] {
        let first = try #require(token.split(separator: ".").first)
        let bytes = try #require(Base64.urlDecode(String(first)))
        return try #require(JSONValue.parse(bytes)?.objectValue)
    }

    /// A compact JWS of `header` and `claims` with `signature` (any bytes): for tokens no key of ours signed.
    static func forged(header: JSONValue, claims: JSONValue, signature: [UInt8]) -> String {
        Base64.urlEncode(header.serialized(sortingKeys: true)) + "." + Base64.urlEncode(claims.serialized) + "."
            + Base64.urlEncode(signature)
    }

    /// A throwaway EC P-384 key, made for these tests with `openssl genpkey -algorithm EC -pkeyopt
    /// ec_paramgen_curve:P-384`: a curve the accounts must refuse.
    static let p384PEM = """
        -----BEGIN PRIVATE KEY-----
        MIG2AgEAMBAGByqGSM49AgEGBSuBBAAiBIGeMIGbAgEBBDDLd1TT5XAwXbZaABDE
        ahHcqYLvEwTAlUVDqPmiOo4xkj54p2TKL5e6khNKb5zNTnWhZANiAATZr5XRYCXg
        6f0r3nuscD+o3FhomjO4lYMw8VXynZ4zGy6d731MgMyQb8xI87xrtbU0Kmlmomxm
        RhUp1nGaudmAkiXz7RR6lTRWTofLnhrfRYauxwszwNHynomGCDiWJwU=
        -----END PRIVATE KEY-----

        """
}
