import AuthHandlerCrypto

/// A password hash imported from another system (``AccountUser/legacyPasswordHash``, docs/ACCOUNTS.md "Imported
/// users"), checked at the user's first sign-in and then replaced with argon2id.
///
/// Its text is PHC-like, the form `auth-handler accounts export` writes too:
/// - Firebase's modified scrypt as Ory Kratos names it, without the project's secret parts:
///   `$firescrypt$ln=<memCost>,r=<rounds>,p=1$<salt>$<passwordHash>` (salt and hash in standard base64, as
///   `firebase auth:export` writes them). The signer key and salt separator come from the configuration
///   (`backend.importedHashes.firebase`), never from the row.
/// - bcrypt in its own modular-crypt form, `$2a$`/`$2b$`/`$2y$` (crypt(5)).
package enum LegacyPasswordHash: Sendable, Equatable {
    case firebaseScrypt(memCost: Int, rounds: Int, salt: [UInt8], hash: [UInt8])
    case bcrypt(String)

    /// What is wrong with an imported hash: the text names the field, never the value.
    package struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        package let description: String
    }

    /// `encoded` read back, or why it is refused (not one of the forms, or past the bounds).
    package init(encoded: String) throws(Refusal) {
        if encoded.hasPrefix("$2") {
            if let refusal = Bcrypt.refusal(of: encoded) { throw Refusal(description: refusal) }
            self = .bcrypt(encoded)
            return
        }
        let fields = encoded.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count == 5, fields[0].isEmpty, fields[1] == "firescrypt" else {
            throw Refusal(description: "not an imported hash this server knows ($firescrypt$… or $2b$…)")
        }
        guard let (memCost, rounds) = Self.firebaseCost(fields[2]) else {
            throw Refusal(
                description: "the $firescrypt$ parameters are not ln=…,r=…,p=1 (ln 1 to "
                    + "\(FirebaseScrypt.memCostRange.upperBound), r 1 to \(FirebaseScrypt.roundsRange.upperBound))")
        }
        guard let salt = Base64.decode(String(fields[3])), let hash = Base64.decode(String(fields[4])), !hash.isEmpty
        else { throw Refusal(description: "the $firescrypt$ salt or hash is not base64") }
        try self.init(firebaseMemCost: memCost, rounds: rounds, salt: salt, hash: hash)
    }

    /// `ln=…,r=…,p=1` (in any order, each once) read into small numbers: `ln` and `r` one or two ASCII digits (no
    /// sign, no spaces), `p` exactly `1`; nil otherwise. No `Int` of the text's choosing gets past here, so the bound
    /// (``FirebaseScrypt/boundsViolation(rounds:memCost:)``) only ever sees numbers below 100.
    private static func firebaseCost(_ text: Substring) -> (memCost: Int, rounds: Int)? {
        var values: [Substring: Int] = [:]
        for pair in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, values[parts[0]] == nil, (1...2).contains(parts[1].utf8.count),
                parts[0] != "p" || parts[1] == "1",
                parts[1].utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
            else { return nil }
            values[parts[0]] = parts[1].utf8.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        }
        guard values.count == 3, let memCost = values["ln"], let rounds = values["r"], values["p"] == 1 else {
            return nil
        }
        return (memCost, rounds)
    }

    /// A Firebase hash from its parts, refused past scrypt's bound (``FirebaseScrypt/boundsViolation(rounds:memCost:)``).
    package init(firebaseMemCost memCost: Int, rounds: Int, salt: [UInt8], hash: [UInt8]) throws(Refusal) {
        if let violation = FirebaseScrypt.boundsViolation(rounds: rounds, memCost: memCost) {
            throw Refusal(description: violation)
        }
        self = .firebaseScrypt(memCost: memCost, rounds: rounds, salt: salt, hash: hash)
    }

    /// The text stored and exported.
    package var encoded: String {
        switch self {
        case .firebaseScrypt(let memCost, let rounds, let salt, let hash):
            "$firescrypt$ln=\(memCost),r=\(rounds),p=1$\(Base64.encode(salt))$\(Base64.encode(hash))"
        case .bcrypt(let hash): hash
        }
    }

    /// Whether `password` (the bytes as typed: the old system did not normalise) is the one this hash was made from.
    /// A Firebase hash without `firebase` parameters (no `backend.importedHashes.firebase`) never matches.
    package func verify(_ password: [UInt8], firebase: FirebaseScrypt.Parameters?) throws(CryptoError) -> Bool {
        switch self {
        case .bcrypt(let hash):
            return try Bcrypt.verify(password, hash: hash)
        case .firebaseScrypt(let memCost, let rounds, let salt, let hash):
            guard var parameters = firebase else { return false }
            // The row's cost, the configuration's secrets. The import refuses a row whose cost differs from the
            // configuration's (a base64 row takes the configuration's, a `$firescrypt$` row with other ln or r is
            // refused, FirebaseExport), so they agree; a row written otherwise is still held to the bound, and past
            // it matches nothing (``PasswordHasher/verify(_:typed:of:client:)``).
            guard FirebaseScrypt.boundsViolation(rounds: rounds, memCost: memCost) == nil else { return false }
            (parameters.memCost, parameters.rounds) = (memCost, rounds)
            return try FirebaseScrypt.verify(password, salt: salt, expected: hash, parameters: parameters)
        }
    }
}
