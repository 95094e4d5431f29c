import AuthHandlerCrypto
import AuthHandlerHTTP
import Foundation

/// What `firebase auth:export --format=json` writes, read into users to import (docs/ACCOUNTS.md "Imported users"):
/// `{"users": [{"localId", "email", "emailVerified", "passwordHash", "salt", "displayName", "photoUrl", "disabled",
/// "createdAt", "lastSignedInAt", "providerUserInfo": [{"providerId", "rawId", "email", "displayName"}],
/// "customAttributes"}]}`. Other members (`phoneNumber`, `mfaInfo`, …) are not read.
///
/// A `passwordHash` is base64 with its `salt`, Firebase's modified scrypt at the project's `memCost` and `rounds`; or a
/// PHC string as `auth-handler accounts export` writes it (`$argon2id$…`, `$firescrypt$…`, `$2b$…`), so that one
/// auth-handler's export imports into another.
package enum FirebaseExport {
    /// Firebase's project-wide cost, which every base64 hash of the file was made with.
    package struct HashCost: Sendable, Equatable {
        package var memCost: Int
        package var rounds: Int

        package init(memCost: Int, rounds: Int) {
            (self.memCost, self.rounds) = (memCost, rounds)
        }
    }

    /// The users of the export `bytes`, made at `at` (`validSince`, and `createdAt` when the file has none).
    /// `cost` nil: a row with a base64 hash is refused (the caller has no project parameters).
    package static func parse(_ bytes: [UInt8], cost: HashCost?, at: Date) throws(ImportRowError) -> [AccountImport] {
        let root: JSONValue
        switch JSONSyntax.parse(bytes) {
        case .success(let value): root = value
        case .failure(let failure): throw ImportRowError("file", field: "", "\(failure)")
        }
        guard case .object(let members) = root, case .array(let users)? = members["users"] else {
            throw ImportRowError("file", field: "users", "expected an object with a \"users\" array")
        }
        var batch: [AccountImport] = []
        batch.reserveCapacity(users.count)
        for (index, value) in users.enumerated() {
            batch.append(try user(value, row: Row(location: "users[\(index)]"), cost: cost, at: at))
        }
        return batch
    }

    /// The reads of one row, each refusal naming the row and the field.
    struct Row {
        let location: String

        func fail(_ field: String, _ reason: String) -> ImportRowError {
            ImportRowError(location, field: field, reason)
        }

        func string(_ fields: [String: JSONValue], _ key: String) throws(ImportRowError) -> String? {
            switch fields[key] {
            case nil, .null: return nil
            case .string(let text): return text
            case let other?: throw fail(key, "expected a string, got \(other.typeName)")
            }
        }

        func bool(_ fields: [String: JSONValue], _ key: String) throws(ImportRowError) -> Bool {
            switch fields[key] {
            case nil, .null: return false
            case .bool(let value): return value
            case let other?: throw fail(key, "expected true or false, got \(other.typeName)")
            }
        }

        /// Milliseconds since 1970, as a string of digits (Firebase's form) or a number.
        func date(_ fields: [String: JSONValue], _ key: String) throws(ImportRowError) -> Date? {
            let milliseconds: Int64?
            switch fields[key] {
            case nil, .null: return nil
            case .string(let text): milliseconds = text.allSatisfy(\.isASCII) ? Int64(text) : nil
            case .integer(let value): milliseconds = value
            default: milliseconds = nil
            }
            guard let milliseconds, milliseconds >= 0, milliseconds < 32_503_680_000_000 else {
                throw fail(key, "expected milliseconds since 1970 (e.g. \"1486324027000\")")
            }
            return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        }
    }

    private static func user(_ value: JSONValue, row: Row, cost: HashCost?, at: Date) throws(ImportRowError)
        -> AccountImport
    {
        guard case .object(let fields) = value else { throw row.fail("", "expected an object") }
        guard let text = try row.string(fields, "localId"), let localID = LocalID(text) else {
            throw row.fail("localId", "required: 1 to 128 letters, digits, '-' or '_'")
        }
        var user = AccountUser(
            localID: localID, emailVerified: try row.bool(fields, "emailVerified"),
            displayName: try row.string(fields, "displayName"), photoURL: try row.string(fields, "photoUrl"),
            disabled: try row.bool(fields, "disabled"), createdAt: try row.date(fields, "createdAt") ?? at,
            lastSignInAt: try row.date(fields, "lastSignedInAt"), validSince: at)
        if let text = try row.string(fields, "email") {
            let email: EmailAddress
            do {
                email = try EmailAddress(parsing: text)
            } catch {
                throw row.fail("email", "not a valid address: \(error)")
            }
            (user.email, user.normalizedEmail) = (email.given, email.normalized)
        }
        try password(fields, row: row, cost: cost, into: &user)
        if let text = try row.string(fields, "customAttributes"), !text.isEmpty {
            do {
                let claims = try CustomClaims(parsing: Array(text.utf8))
                if !claims.members.isEmpty {
                    user.customClaims = String(decoding: claims.json.serialized(sortingKeys: true), as: UTF8.self)
                }
            } catch {
                throw row.fail("customAttributes", "refused as custom claims: \(error)")
            }
        }
        return AccountImport(user: user, identities: try identities(fields, row: row, of: localID, at: at))
    }

    /// `passwordHash` and `salt` into the user: none, an argon2id hash, or an imported one within the bounds.
    private static func password(
        _ fields: [String: JSONValue], row: Row, cost: HashCost?, into user: inout AccountUser
    ) throws(ImportRowError) {
        guard let hash = try row.string(fields, "passwordHash"), !hash.isEmpty else { return }
        user.passwordVersion = 1
        if hash.hasPrefix("$argon2id$") {
            guard Argon2id.Parameters(encoded: hash) != nil else {
                throw row.fail("passwordHash", "not an argon2id PHC string ($argon2id$v=19$m=…,t=…,p=…$salt$hash)")
            }
            user.passwordHash = hash
            return
        }
        if hash.hasPrefix("$") {
            let legacy: LegacyPasswordHash
            do {
                legacy = try LegacyPasswordHash(encoded: hash)
            } catch {
                throw row.fail("passwordHash", error.description)
            }
            // The daemon checks a `$firescrypt$` row with the project's secrets: one made with another cost is not
            // the project's, and is refused like flags unlike the config (docs/ACCOUNTS.md "Imported users").
            if case .firebaseScrypt(let memCost, let rounds, _, _) = legacy, let cost,
                cost != HashCost(memCost: memCost, rounds: rounds)
            {
                throw row.fail(
                    "passwordHash",
                    "$firescrypt$ ln=\(memCost),r=\(rounds) differs from the project's memCost \(cost.memCost), "
                        + "rounds \(cost.rounds) (backend.importedHashes.firebase); the file is from another project")
            }
            user.legacyPasswordHash = legacy.encoded
            return
        }
        guard let bytes = Base64.decode(hash), !bytes.isEmpty else {
            throw row.fail("passwordHash", "not base64 (nor a PHC string)")
        }
        guard let saltText = try row.string(fields, "salt"), let salt = Base64.decode(saltText) else {
            throw row.fail("salt", "required with a passwordHash, in base64")
        }
        guard let cost else {
            throw row.fail(
                "passwordHash",
                "a Firebase scrypt hash needs the project's hash parameters (--hash-key, "
                    + "--salt-separator, --rounds, --mem-cost, or backend.importedHashes.firebase)")
        }
        do {
            user.legacyPasswordHash =
                try LegacyPasswordHash(firebaseMemCost: cost.memCost, rounds: cost.rounds, salt: salt, hash: bytes)
                .encoded
        } catch {
            throw row.fail("passwordHash", error.description)
        }
    }

    /// `providerUserInfo` as identities, but `password` and `phone` (not identities of a provider here).
    private static func identities(_ fields: [String: JSONValue], row: Row, of localID: LocalID, at: Date)
        throws(ImportRowError) -> [AccountIdentity]
    {
        guard let value = fields["providerUserInfo"], value != .null else { return [] }
        guard case .array(let entries) = value else {
            throw row.fail("providerUserInfo", "expected an array, got \(value.typeName)")
        }
        var identities: [AccountIdentity] = []
        for (index, entry) in entries.enumerated() {
            let field = "providerUserInfo[\(index)]"
            guard case .object(let info) = entry else { throw row.fail(field, "expected an object") }
            let providerID = try row.string(info, "providerId")
            let rawID = try row.string(info, "rawId")
            guard let providerID, !providerID.isEmpty, let rawID, !rawID.isEmpty else {
                throw row.fail(field, "needs a providerId and a rawId")
            }
            if providerID == "password" || providerID == "phone" { continue }
            identities.append(
                AccountIdentity(
                    providerID: providerID, providerUserID: rawID, localID: localID,
                    email: try row.string(info, "email"), displayName: try row.string(info, "displayName"),
                    createdAt: at))
        }
        return identities
    }
}
