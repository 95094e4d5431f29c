import CArgon2

/// Password hashing with Argon2id (RFC 9106) through libargon2, the reference implementation Debian packages: the hash
/// is written and read as a PHC string, `$argon2id$v=19$m=19456,t=2,p=1$SALT$HASH` (base64 without padding), so
/// that the cost it was made with travels with it and a stored hash made with weaker settings can be recognised and
/// made again at the next sign-in.
package enum Argon2id {
    /// The cost of one hash: memory in KiB (`m`), passes (`t`) and lanes (`p`), RFC 9106 §3.1.
    package struct Parameters: Sendable, Hashable, CustomStringConvertible {
        package var memoryKiB: UInt32
        package var iterations: UInt32
        package var parallelism: UInt32

        package init(memoryKiB: UInt32, iterations: UInt32, parallelism: UInt32) {
            (self.memoryKiB, self.iterations, self.parallelism) = (memoryKiB, iterations, parallelism)
        }

        /// The parameters a PHC string was made with; nil when it is not an Argon2id string of version 19.
        package init?(encoded: String) {
            let fields = encoded.split(separator: "$", omittingEmptySubsequences: false)
            // "", "argon2id", "v=19", "m=…,t=…,p=…", salt, hash
            guard fields.count == 6, fields[0].isEmpty, fields[1] == "argon2id", fields[2] == "v=19" else { return nil }
            var values: [Substring: UInt32] = [:]
            for pair in fields[3].split(separator: ",") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, let value = UInt32(parts[1]), values[parts[0]] == nil else { return nil }
                values[parts[0]] = value
            }
            guard values.count == 3, let m = values["m"], let t = values["t"], let p = values["p"] else { return nil }
            self.init(memoryKiB: m, iterations: t, parallelism: p)
        }

        package var description: String { "m=\(memoryKiB),t=\(iterations),p=\(parallelism)" }
    }

    /// Bytes of random salt per hash (RFC 9106 §3.1 recommends 16).
    package static let saltBytes = 16
    /// Bytes of output (RFC 9106 §4 recommends a 256-bit tag).
    package static let hashBytes = 32

    /// `password` hashed under a fresh random salt, as a PHC string.
    package static func hash(_ password: [UInt8], parameters: Parameters) throws(CryptoError) -> String {
        try hash(password, salt: try SecureRandom.bytes(saltBytes), parameters: parameters)
    }

    /// `password` hashed under `salt`, as a PHC string (known-answer tests give the salt; everything else draws it).
    package static func hash(_ password: [UInt8], salt: [UInt8], parameters: Parameters) throws(CryptoError)
        -> String
    {
        let length = argon2_encodedlen(
            parameters.iterations, parameters.memoryKiB, parameters.parallelism, UInt32(salt.count),
            UInt32(hashBytes), Argon2_id)
        var encoded = [CChar](repeating: 0, count: length)
        let code = password.withUnsafeBytes { passwordBytes in
            salt.withUnsafeBytes { saltBytes in
                argon2id_hash_encoded(
                    parameters.iterations, parameters.memoryKiB, parameters.parallelism, passwordBytes.baseAddress,
                    passwordBytes.count, saltBytes.baseAddress, saltBytes.count, hashBytes, &encoded, length)
            }
        }
        guard code == ARGON2_OK.rawValue else { throw failure("argon2id_hash_encoded", code) }
        return String(decoding: encoded.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `password` is the one `encoded` was made from. The tags are compared in constant time by libargon2
    /// (argon2.h, `argon2_verify`); a string that is not a valid Argon2id PHC string is an error, never a match.
    package static func verify(_ password: [UInt8], encoded: String) throws(CryptoError) -> Bool {
        guard Parameters(encoded: encoded) != nil else {
            throw CryptoError(operation: "argon2id_verify", detail: "the stored hash is not an Argon2id PHC string")
        }
        let code = password.withUnsafeBytes { passwordBytes in
            argon2id_verify(encoded, passwordBytes.baseAddress, passwordBytes.count)
        }
        switch code {
        case ARGON2_OK.rawValue: return true
        case ARGON2_VERIFY_MISMATCH.rawValue: return false
        default: throw failure("argon2id_verify", code)
        }
    }

    /// libargon2's own text for `code` (argon2_error_message(3)); it never holds the password or the hash.
    private static func failure(_ operation: String, _ code: Int32) -> CryptoError {
        CryptoError(operation: operation, detail: String(cString: argon2_error_message(code)))
    }
}
