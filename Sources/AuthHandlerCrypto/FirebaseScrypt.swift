import COpenSSL

/// Firebase Auth's modified scrypt, the password hash `firebase auth:export` writes (firebase/scrypt, a fork of
/// Tarsnap's scrypt; its README gives the algorithm and the test vector CryptoFirebaseScryptTests checks):
///
///     dk   = scrypt(password, salt ‖ saltSeparator, N = 2^memCost, r = rounds, p = 1, 64 bytes)   (RFC 7914)
///     hash = AES-256-CTR(key dk[0..<32], IV 0) over the project's signer key
///
/// Both primitives are OpenSSL's: `EVP_PBE_scrypt` (EVP_PBE_scrypt(3)) and AES-256-CTR through the EVP cipher API. The
/// cost is bounded before anything is derived, so that an imported row cannot make one sign-in cost more than
/// ``maximumMemoryBytes`` (docs/ACCOUNTS.md "Imported users").
package enum FirebaseScrypt {
    /// The project-wide parameters of `firebase auth:export` (its "hash config"): the signer key (secret), the salt
    /// separator, `rounds` (scrypt's r) and `memCost` (log2 of scrypt's N).
    package struct Parameters: Sendable, Equatable {
        package var signerKey: [UInt8]
        package var saltSeparator: [UInt8]
        package var rounds: Int
        package var memCost: Int

        package init(signerKey: [UInt8], saltSeparator: [UInt8], rounds: Int, memCost: Int) {
            (self.signerKey, self.saltSeparator, self.rounds, self.memCost) =
                (signerKey, saltSeparator, rounds, memCost)
        }
    }

    /// scrypt's working memory, 128·N·r bytes (RFC 7914 §2), may not pass 32 MiB.
    package static let maximumMemoryBytes = 32 << 20

    /// The `rounds` (scrypt's r) accepted anywhere: in `backend.importedHashes.firebase`, an import's flags and a
    /// `$firescrypt$` row (Firebase's console offers 1 to 8; docs/ACCOUNTS.md "Imported users").
    package static let roundsRange = 1...64
    /// The `memCost` (log2 of scrypt's N) accepted anywhere (Firebase's console offers 1 to 14).
    package static let memCostRange = 1...30

    /// Why `rounds` and `memCost` are refused, nil when they are within the bound: ``roundsRange``, ``memCostRange``
    /// and 128·2^memCost·r ≤ 32 MiB. The one check every path goes through (config, import, sign-in), and it cannot
    /// overflow: the ranges come first, then `r ≤ 32 MiB >> (7 + memCost)`, which is 128·2^memCost·r ≤ 32 MiB
    /// without a product (any `Int` may come in: a row written into the database by hand).
    package static func boundsViolation(rounds: Int, memCost: Int) -> String? {
        guard roundsRange.contains(rounds), memCostRange.contains(memCost) else {
            return "rounds must be 1 to \(roundsRange.upperBound) and memCost 1 to \(memCostRange.upperBound)"
        }
        guard rounds <= maximumMemoryBytes >> (7 + memCost) else {
            // Both are in their ranges here: 128 · 2^30 · 64 = 2^43 fits an Int.
            return "scrypt's memory 128·N·r = \((128 << memCost) * rounds) bytes (memCost \(memCost), rounds \(rounds))"
                + " passes the bound of \(maximumMemoryBytes) bytes (32 MiB)"
        }
        return nil
    }

    /// The hash of `password` under `salt` and `parameters`: as many bytes as the signer key has.
    package static func hash(_ password: [UInt8], salt: [UInt8], parameters: Parameters) throws(CryptoError)
        -> [UInt8]
    {
        if let violation = boundsViolation(rounds: parameters.rounds, memCost: parameters.memCost) {
            throw CryptoError(operation: "Firebase scrypt", detail: violation)
        }
        let derived = try Scrypt.derive(
            password, salt: salt + parameters.saltSeparator, n: UInt64(1) << UInt64(parameters.memCost),
            r: UInt64(parameters.rounds), p: 1, length: 64)
        return try AES256CTR.apply(
            key: Array(derived.prefix(32)), iv: [UInt8](repeating: 0, count: 16),
            to: parameters.signerKey)
    }

    /// Whether `password` hashes to `expected` (compared in constant time, ``ConstantTime``).
    package static func verify(_ password: [UInt8], salt: [UInt8], expected: [UInt8], parameters: Parameters)
        throws(CryptoError) -> Bool
    {
        ConstantTime.equals(try hash(password, salt: salt, parameters: parameters), expected)
    }
}

/// scrypt (RFC 7914) through OpenSSL's `EVP_PBE_scrypt`.
package enum Scrypt {
    /// OpenSSL's own memory ceiling for one derivation (`maxmem`, EVP_PBE_scrypt(3)): above the 32 MiB of the bound
    /// callers check, for the few KiB OpenSSL adds to 128·N·r.
    static let maximumMemory: UInt64 = 40 << 20

    package static func derive(_ password: [UInt8], salt: [UInt8], n: UInt64, r: UInt64, p: UInt64, length: Int)
        throws(CryptoError) -> [UInt8]
    {
        var key = [UInt8](repeating: 0, count: length)
        let code = password.withUnsafeBufferPointer { passwordBytes in
            salt.withUnsafeBufferPointer { saltBytes in
                key.withUnsafeMutableBufferPointer { out in
                    EVP_PBE_scrypt(
                        passwordBytes.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                        passwordBytes.count, saltBytes.baseAddress, saltBytes.count, n, r, p, maximumMemory,
                        out.baseAddress, out.count)
                }
            }
        }
        guard code == 1 else { throw CryptoError.fromOpenSSL("EVP_PBE_scrypt") }
        return key
    }
}

/// AES-256 in counter mode (NIST SP 800-38A §6.5) through OpenSSL's EVP cipher API: a keystream XORed over the input,
/// so encryption and decryption are the same operation. No integrity: only for formats that define it so (Firebase's
/// scrypt).
package enum AES256CTR {
    package static func apply(key: [UInt8], iv: [UInt8], to input: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard key.count == 32, iv.count == 16 else {
            throw CryptoError(operation: "AES-256-CTR", detail: "the key must have 32 bytes and the IV 16")
        }
        guard let context = EVP_CIPHER_CTX_new() else { throw CryptoError.fromOpenSSL("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_EncryptInit_ex(context, EVP_aes_256_ctr(), nil, key, iv) == 1 else {
            throw CryptoError.fromOpenSSL("EVP_EncryptInit_ex(AES-256-CTR)")
        }
        var output = [UInt8](repeating: 0, count: input.count + 16)
        var written: Int32 = 0
        let updated = output.withUnsafeMutableBufferPointer { out in
            EVP_EncryptUpdate(context, out.baseAddress, &written, input, Int32(clamping: input.count))
        }
        guard updated == 1 else { throw CryptoError.fromOpenSSL("EVP_EncryptUpdate(AES-256-CTR)") }
        // CTR is a stream mode: EVP_EncryptUpdate wrote every byte, and EVP_EncryptFinal_ex would add none.
        return Array(output.prefix(Int(written)))
    }
}
