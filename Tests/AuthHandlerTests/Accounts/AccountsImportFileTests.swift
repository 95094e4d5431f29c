import Foundation
import Testing

@testable import AuthHandlerAccounts
@testable import AuthHandlerHTTP

/// The import files read into users (docs/ACCOUNTS.md "Imported users"): what a `firebase auth:export` row becomes,
/// what a bcrypt CSV line becomes, and each refusal naming its place and field; and the export's shape.
struct AccountsImportFileTests {
    static let at = Date(timeIntervalSince1970: 1_800_000_000)
    static let cost = FirebaseExport.HashCost(memCost: 14, rounds: 8)
    static let bcrypt = "$2b$04$" + String(repeating: "a", count: 53)

    private func parse(_ users: String) throws(ImportRowError) -> [AccountImport] {
        try FirebaseExport.parse(Array(#"{"users": [\#(users)]}"#.utf8), cost: Self.cost, at: Self.at)
    }

    private func refusal(_ users: String) -> String {
        do {
            _ = try parse(users)
            return ""
        } catch {
            return error.description
        }
    }

    @Test func aFirebaseRowBecomesAUserWithItsIdentitiesAndClaims() throws {
        let rows = try parse(
            #"""
            {"localId": "uid-1", "email": "Alice@Example.COM", "emailVerified": true, "passwordHash": "aGFzaA==",
             "salt": "c2FsdA==", "displayName": "Alice", "photoUrl": "https://p/a.png", "disabled": true,
             "createdAt": "1486324027000", "lastSignedInAt": "1486324028500",
             "providerUserInfo": [{"providerId": "password", "rawId": "Alice@Example.COM"},
                                  {"providerId": "google.com", "rawId": "g1", "email": "a@gmail.com",
                                   "displayName": "A"}],
             "customAttributes": "{\"role\": \"admin\"}", "phoneNumber": "+15555550100"},
            {"localId": "uid-2", "passwordHash": ""}
            """#)
        #expect(rows.count == 2)
        let alice = rows[0].user
        #expect(alice.localID.value == "uid-1")
        #expect(alice.email == "Alice@Example.COM")
        #expect(alice.normalizedEmail == "alice@example.com")
        #expect(alice.emailVerified && alice.disabled)
        #expect(alice.passwordHash == nil)
        #expect(alice.legacyPasswordHash == "$firescrypt$ln=14,r=8,p=1$c2FsdA==$aGFzaA==")
        #expect(alice.customClaims == #"{"role":"admin"}"#)
        #expect(alice.createdAt == Date(timeIntervalSince1970: 1_486_324_027))
        #expect(alice.lastSignInAt == Date(timeIntervalSince1970: 1_486_324_028.5))
        #expect(alice.validSince == Self.at)
        #expect(
            rows[0].identities == [
                AccountIdentity(
                    providerID: "google.com", providerUserID: "g1", localID: alice.localID, email: "a@gmail.com",
                    displayName: "A", createdAt: Self.at)
            ])
        // No password, no provider: a reset-only user.
        #expect(!rows[1].user.hasPassword)
        #expect(rows[1].identities.isEmpty)
        #expect(rows[1].user.createdAt == Self.at)
    }

    @Test func badRowsNameTheirPlaceAndField() {
        #expect(
            refusal(#"{"email": "a@example.com"}"#)
                == "users[0], localId: required: 1 to 128 letters, digits, '-' or '_'")
        #expect(refusal(#"{"localId": "a"}, {"localId": "b", "email": "nope"}"#).hasPrefix("users[1], email:"))
        #expect(refusal(#"{"localId": "a", "passwordHash": "aGFzaA=="}"#).hasPrefix("users[0], salt:"))
        #expect(refusal(#"{"localId": "a", "passwordHash": "!!"}"#).hasPrefix("users[0], passwordHash:"))
        #expect(
            refusal(#"{"localId": "a", "customAttributes": "{\"sub\": \"x\"}"}"#).hasPrefix(
                "users[0], customAttributes: refused as custom claims"))
        #expect(refusal(#"{"localId": "a", "createdAt": "yesterday"}"#).hasPrefix("users[0], createdAt:"))
        #expect(
            refusal(#"{"localId": "a", "providerUserInfo": [{"providerId": "google.com"}]}"#)
                .hasPrefix("users[0], providerUserInfo[0]:"))
        #expect(
            refusal(#"{"localId": "a", "passwordHash": "$firescrypt$ln=17,r=8,p=1$AA==$AA=="}"#).contains("32 MiB"))
        #expect(throws: ImportRowError.self) {
            try FirebaseExport.parse(Array(#"{"people": []}"#.utf8), cost: nil, at: Self.at)
        }
        // A crafted cost is refused by name, never computed with (it trapped: 128 · 2^30 · r overflowed).
        #expect(
            refusal(#"{"localId": "a", "passwordHash": "$firescrypt$ln=30,r=99999999999,p=1$AAAA$AAAA"}"#)
                .hasPrefix("users[0], passwordHash: the $firescrypt$ parameters are not ln=…,r=…,p=1"))
        #expect(
            refusal(#"{"localId": "a", "passwordHash": "$2b$+9$\#(String(repeating: "a", count: 53))"}"#)
                .hasPrefix("users[0], passwordHash: not a bcrypt hash"))
        // A $firescrypt$ row of another cost than the project's is refused, as a base64 row takes the project's.
        #expect(
            refusal(#"{"localId": "a", "passwordHash": "$firescrypt$ln=13,r=8,p=1$AA==$AA=="}"#)
                .contains("ln=13,r=8 differs from the project's memCost 14, rounds 8"))
        // Without the project's cost, a Firebase hash cannot be kept.
        #expect(throws: ImportRowError.self) {
            try FirebaseExport.parse(
                Array(#"{"users": [{"localId": "a", "passwordHash": "aGFzaA==", "salt": "c2FsdA=="}]}"#.utf8),
                cost: nil, at: Self.at)
        }
    }

    @Test func bcryptLinesAndTheirRefusals() throws {
        let hash = "$2b$10$" + String(repeating: "a", count: 53)
        let rows = try BcryptCSV.parse(
            Array("email,bcrypt_hash,localId\r\na@example.com,\(hash),id-a\n\nb@example.com,\(hash)\n".utf8))
        #expect(rows.map(\.line) == [2, 4])
        #expect(rows.map(\.localID?.value) == ["id-a", nil])
        #expect(rows[1].email.normalized == "b@example.com")
        // A spreadsheet's byte order mark before the header line.
        let marked = try BcryptCSV.parse([0xEF, 0xBB, 0xBF] + Array("email,bcrypt_hash\na@example.com,\(hash)\n".utf8))
        #expect(marked.map(\.line) == [2])
        #expect(throws: ImportRowError("line 1", field: "bcrypt_hash", "bcrypt cost 15 passes the bound of 14")) {
            try BcryptCSV.parse(Array("a@example.com,$2b$15$\(String(repeating: "a", count: 53))".utf8))
        }
        #expect(throws: ImportRowError("line 2", field: "", "expected email,bcrypt_hash[,localId], got 1 fields")) {
            try BcryptCSV.parse(Array("a@example.com,\(hash)\njust-one-field\n".utf8))
        }
    }

    @Test func theExportWritesFirebasesShapeWithPHCStrings() throws {
        var user = AccountUser(
            localID: try #require(LocalID("uid-1")), email: "a@example.com", normalizedEmail: "a@example.com",
            createdAt: Date(timeIntervalSince1970: 1_486_324_027), validSince: Self.at,
            legacyPasswordHash: Self.bcrypt)
        user.customClaims = #"{"role":"admin"}"#
        let json = AccountExport.json(
            user,
            identities: [
                AccountIdentity(
                    providerID: "google.com", providerUserID: "g1", localID: user.localID,
                    createdAt: Self.at)
            ])
        #expect(json["passwordHash"]?.stringValue == Self.bcrypt)
        #expect(json["createdAt"]?.stringValue == "1486324027000")
        #expect(json["salt"] == nil)
        // Read back by the importer: the same user.
        let text = String(
            decoding: JSONValue.object(["users": .array([json])]).serialized(sortingKeys: true), as: UTF8.self)
        let back = try FirebaseExport.parse(Array(text.utf8), cost: nil, at: Self.at)
        #expect(back.first?.user.localID == user.localID)
        #expect(back.first?.user.customClaims == user.customClaims)
        #expect(back.first?.identities.map(\.providerUserID) == ["g1"])
    }
}
