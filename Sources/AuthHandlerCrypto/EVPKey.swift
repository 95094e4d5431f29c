import COpenSSL
import Synchronization

/// Owns one OpenSSL `EVP_PKEY` and frees it when the last reference goes away.
///
/// `@unchecked Sendable`: nothing mutates the key after construction, and OpenSSL 3 lets any number
/// of threads use a fully set-up `EVP_PKEY` at once for signing, verifying and reading parameters
/// (https://www.openssl.org/docs/man3.0/man7/openssl-threads.html). The pointer never leaves this
/// class, so every use happens while `self` is alive.
final class EVPKey: @unchecked Sendable {
    private let pointer: OpaquePointer
    /// A signing context set up for this key, copied for each EC signature (``signDigestEC(_:)``); nil until then.
    private let signTemplate = Mutex<SigningTemplate?>(nil)
    /// The same for EC verifications (``verifyDigestEC(signature:digest:)``).
    private let verifyTemplate = Mutex<SigningTemplate?>(nil)

    /// A set-up `EVP_PKEY_CTX`, only ever copied once made (so it may cross threads).
    private struct SigningTemplate: @unchecked Sendable {
        let context: OpaquePointer
    }

    /// Takes ownership of `pointer`; it is freed in `deinit`.
    private init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        signTemplate.withLock { if let template = $0 { EVP_PKEY_CTX_free(template.context) } }
        verifyTemplate.withLock { if let template = $0 { EVP_PKEY_CTX_free(template.context) } }
        EVP_PKEY_free(pointer)
    }

    // MARK: - Construction

    /// An RSA public key from its big-endian modulus and exponent.
    static func rsaPublicKey(modulus: [UInt8], exponent: [UInt8]) throws(CryptoError) -> EVPKey {
        let n = try OpenSSLBigNumber(modulus)
        let e = try OpenSSLBigNumber(exponent)
        // The builder holds the BIGNUM pointers until `fromData` materialises the parameters.
        defer { withExtendedLifetime((n, e)) {} }
        return try fromData(type: .rsa) { builder in
            OSSL_PARAM_BLD_push_BN(builder, OpenSSLName.rsaModulus.cString, n.pointer) == 1
                && OSSL_PARAM_BLD_push_BN(builder, OpenSSLName.rsaExponent.cString, e.pointer) == 1
        }
    }

    /// An EC P-256 public key from its uncompressed SEC 1 point `04 || x || y`.
    static func p256PublicKey(uncompressedPoint: [UInt8]) throws(CryptoError) -> EVPKey {
        // The builder holds the point pointer until `fromData` materialises the parameters, so the
        // whole call runs inside `withUnsafeBytes`.
        let result: Result<EVPKey, CryptoError> = uncompressedPoint.withUnsafeBytes { point in
            Result { () throws(CryptoError) in
                try fromData(type: .ec) { builder in
                    OSSL_PARAM_BLD_push_utf8_string(
                        builder, OpenSSLName.groupName.cString, OpenSSLName.prime256v1.cString, 0) == 1
                        && OSSL_PARAM_BLD_push_octet_string(
                            builder, OpenSSLName.publicKey.cString, point.baseAddress, point.count) == 1
                }
            }
        }
        return try result.get()
    }

    /// Builds a public key with `EVP_PKEY_fromdata` from the parameters `push` adds to a builder.
    ///
    /// `push` runs before the parameters are materialised, and everything it pushes must stay valid
    /// until this function returns.
    private static func fromData(type: OpenSSLName, push: (OpaquePointer) -> Bool) throws(CryptoError) -> EVPKey {
        guard let builder = OSSL_PARAM_BLD_new() else { throw CryptoError.fromOpenSSL("OSSL_PARAM_BLD_new") }
        defer { OSSL_PARAM_BLD_free(builder) }
        guard push(builder) else { throw CryptoError.fromOpenSSL("OSSL_PARAM_BLD_push") }
        guard let params = OSSL_PARAM_BLD_to_param(builder) else {
            throw CryptoError.fromOpenSSL("OSSL_PARAM_BLD_to_param")
        }
        defer { OSSL_PARAM_free(params) }
        let typeName = String(cString: type.cString)
        guard let context = EVP_PKEY_CTX_new_from_name(nil, type.cString, nil) else {
            throw CryptoError.fromOpenSSL("EVP_PKEY_CTX_new_from_name(\(typeName))")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_fromdata_init(context) == 1 else { throw CryptoError.fromOpenSSL("EVP_PKEY_fromdata_init") }
        var key: OpaquePointer?
        guard EVP_PKEY_fromdata(context, &key, publicKeySelection, params) == 1, let key else {
            throw CryptoError.fromOpenSSL("EVP_PKEY_fromdata(\(typeName))")
        }
        return EVPKey(taking: key)
    }

    /// `EVP_PKEY_PUBLIC_KEY`: a macro built from other macros, which Swift does not import.
    private static let publicKeySelection = Int32(OSSL_KEYMGMT_SELECT_ALL_PARAMETERS | OSSL_KEYMGMT_SELECT_PUBLIC_KEY)

    /// A private key read from PEM: PKCS#8 `PRIVATE KEY`, `RSA PRIVATE KEY` or `EC PRIVATE KEY`.
    static func privateKey(pem: [UInt8]) throws(CryptoError) -> EVPKey {
        guard pem.count < Int(Int32.max) else { throw CryptoError(operation: "PEM", detail: "input too large") }
        let key: OpaquePointer? = pem.withUnsafeBytes { bytes in
            guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else { return nil }
            defer { _ = BIO_free(bio) }
            // Without a callback OpenSSL asks for a passphrase on the controlling terminal when the key
            // is encrypted; a daemon must fail instead (PEM_read_bio_PrivateKey(3), "password callback").
            return PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in -1 }, nil)
        }
        guard let key else { throw CryptoError.fromOpenSSL("PEM_read_bio_PrivateKey") }
        return EVPKey(taking: key)
    }

    /// A fresh key pair of `type` (`.rsa` or `.ec`), with `configure` setting size or curve.
    static func generate(type: OpenSSLName, configure: (OpaquePointer) -> Int32) throws(CryptoError) -> EVPKey {
        // The context keeps the type name pointer, hence an `OpenSSLName` rather than a `String`.
        let typeName = String(cString: type.cString)
        guard let context = EVP_PKEY_CTX_new_from_name(nil, type.cString, nil) else {
            throw CryptoError.fromOpenSSL("EVP_PKEY_CTX_new_from_name(\(typeName))")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1 else { throw CryptoError.fromOpenSSL("EVP_PKEY_keygen_init") }
        guard configure(context) == 1 else { throw CryptoError.fromOpenSSL("EVP_PKEY_CTX_set keygen parameters") }
        var key: OpaquePointer?
        guard EVP_PKEY_generate(context, &key) == 1, let key else {
            throw CryptoError.fromOpenSSL("EVP_PKEY_generate(\(typeName))")
        }
        return EVPKey(taking: key)
    }

    // MARK: - Inspection

    /// True when the key is of OpenSSL key type `name` (`"RSA"` is false for an RSA-PSS key).
    func isA(_ name: String) -> Bool {
        EVP_PKEY_is_a(pointer, name) == 1
    }

    /// Size of the key in bits (the modulus for RSA, the group order for EC).
    var bits: Int {
        Int(EVP_PKEY_get_bits(pointer))
    }

    /// The EC group name, e.g. `"prime256v1"`; nil for a key without one.
    var groupName: String? {
        let capacity = 64
        var buffer = [CChar](repeating: 0, count: capacity)
        var length = 0
        guard EVP_PKEY_get_utf8_string_param(pointer, OSSL_PKEY_PARAM_GROUP_NAME, &buffer, capacity, &length) == 1
        else {
            ERR_clear_error()
            return nil
        }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Runs OpenSSL's full public-key check; for EC this includes "the point is on the curve".
    func checkPublicKey() throws(CryptoError) {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, pointer, nil) else {
            throw CryptoError.fromOpenSSL("EVP_PKEY_CTX_new_from_pkey")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_public_check(context) == 1 else { throw CryptoError.fromOpenSSL("EVP_PKEY_public_check") }
    }

    /// An integer parameter (`OSSL_PKEY_PARAM_RSA_N`, `..._EC_PUB_X`, ...) as big-endian bytes,
    /// left-padded with zeros to `width` when given.
    func integerParameter(_ name: String, width: Int? = nil) throws(CryptoError) -> [UInt8] {
        var value: OpaquePointer?
        guard EVP_PKEY_get_bn_param(pointer, name, &value) == 1, let value else {
            throw CryptoError.fromOpenSSL("EVP_PKEY_get_bn_param(\(name))")
        }
        defer { BN_free(value) }
        let natural = (Int(BN_num_bits(value)) + 7) / 8
        var output = [UInt8](repeating: 0, count: width ?? natural)
        let written = output.withUnsafeMutableBufferPointer { BN_bn2binpad(value, $0.baseAddress, Int32($0.count)) }
        guard written == output.count else { throw CryptoError.fromOpenSSL("BN_bn2binpad(\(name))") }
        return output
    }

    /// The private key as PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), unencrypted.
    func pkcs8PEM() throws(CryptoError) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw CryptoError.fromOpenSSL("BIO_new") }
        defer { _ = BIO_free(bio) }
        // PEM_write_bio_PrivateKey writes PKCS#8; the "traditional" per-algorithm forms have their own call.
        guard PEM_write_bio_PrivateKey(bio, pointer, nil, nil, 0, nil, nil) == 1 else {
            throw CryptoError.fromOpenSSL("PEM_write_bio_PrivateKey")
        }
        let pending = Int(BIO_ctrl_pending(bio))
        var output = [UInt8](repeating: 0, count: pending)
        let read = output.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32($0.count)) }
        defer { output.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }
        guard pending > 0, read == pending else { throw CryptoError.fromOpenSSL("BIO_read") }
        return String(decoding: output, as: UTF8.self)
    }

    // MARK: - Signatures

    /// Signs `message` with SHA-256 (`EVP_DigestSign`); RSA uses PKCS #1 v1.5 padding, EC returns DER.
    func signSHA256(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw CryptoError.fromOpenSSL("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        var keyContext: OpaquePointer?
        guard EVP_DigestSignInit(context, &keyContext, Self.sha256, nil, pointer) == 1 else {
            throw CryptoError.fromOpenSSL("EVP_DigestSignInit")
        }
        try requirePKCS1Padding(keyContext)
        // OpenSSL wants a non-NULL pointer even for an empty message; an empty array may have none.
        let input = message.isEmpty ? [0] : message
        var length = 0
        let sized = input.withUnsafeBufferPointer {
            EVP_DigestSign(context, nil, &length, $0.baseAddress, message.count)
        }
        guard sized == 1 else { throw CryptoError.fromOpenSSL("EVP_DigestSign(size)") }
        var signature = [UInt8](repeating: 0, count: length)
        let signed = input.withUnsafeBufferPointer { inputBuffer in
            signature.withUnsafeMutableBufferPointer {
                EVP_DigestSign(context, $0.baseAddress, &length, inputBuffer.baseAddress, message.count)
            }
        }
        guard signed == 1, length <= signature.count else { throw CryptoError.fromOpenSSL("EVP_DigestSign") }
        signature.removeSubrange(length...)
        return signature
    }

    /// Signs a SHA-256 `digest` with this EC key (`EVP_PKEY_sign`), DER-encoded: the digest is made by the caller, and
    /// the signing context is set up once (`EVP_PKEY_sign_init`, which fetches the algorithm from the provider) and
    /// copied for each signature (`EVP_PKEY_CTX_dup`: a context is used by one thread at a time). OpenSSL's own
    /// `speed ecdsap256` signs the same way (evp_pkey_sign(3)).
    func signDigestEC(_ digest: [UInt8]) throws(CryptoError) -> [UInt8] {
        let template = try template(verifying: false)
        guard let context = EVP_PKEY_CTX_dup(template.context) else {
            throw CryptoError.fromOpenSSL("EVP_PKEY_CTX_dup")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var signature = [UInt8](repeating: 0, count: 80)
        var length = signature.count
        let signed = digest.withUnsafeBufferPointer { digestBuffer in
            signature.withUnsafeMutableBufferPointer {
                EVP_PKEY_sign(context, $0.baseAddress, &length, digestBuffer.baseAddress, digestBuffer.count)
            }
        }
        guard signed == 1, length <= signature.count else { throw CryptoError.fromOpenSSL("EVP_PKEY_sign") }
        signature.removeSubrange(length...)
        return signature
    }

    /// Whether DER `signature` is this EC key's signature of the SHA-256 `digest` (`EVP_PKEY_verify` on a copy of a
    /// context set up once, as ``signDigestEC(_:)`` signs). Any failure is "not valid", the error queue cleared.
    func verifyDigestEC(signature: [UInt8], digest: [UInt8]) -> Bool {
        defer { ERR_clear_error() }
        guard !signature.isEmpty, let template = try? template(verifying: true),
            let context = EVP_PKEY_CTX_dup(template.context)
        else { return false }
        defer { EVP_PKEY_CTX_free(context) }
        let result = signature.withUnsafeBufferPointer { signatureBuffer in
            digest.withUnsafeBufferPointer {
                EVP_PKEY_verify(context, signatureBuffer.baseAddress, signatureBuffer.count, $0.baseAddress, $0.count)
            }
        }
        return result == 1
    }

    /// The context `signDigestEC` (or, `verifying`, `verifyDigestEC`) copies, made at its first use.
    private func template(verifying: Bool) throws(CryptoError) -> SigningTemplate {
        let key = pointer
        if verifying {
            return try verifyTemplate.withLock { template throws(CryptoError) -> SigningTemplate in
                if let template { return template }
                let made = try Self.makeTemplate(key, verifying: true)
                template = made
                return made
            }
        }
        return try signTemplate.withLock { template throws(CryptoError) -> SigningTemplate in
            if let template { return template }
            let made = try Self.makeTemplate(key, verifying: false)
            template = made
            return made
        }
    }

    private static func makeTemplate(_ key: OpaquePointer, verifying: Bool) throws(CryptoError) -> SigningTemplate {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else {
            throw CryptoError.fromOpenSSL("EVP_PKEY_CTX_new_from_pkey")
        }
        guard (verifying ? EVP_PKEY_verify_init(context) : EVP_PKEY_sign_init(context)) == 1 else {
            EVP_PKEY_CTX_free(context)
            throw CryptoError.fromOpenSSL(verifying ? "EVP_PKEY_verify_init" : "EVP_PKEY_sign_init")
        }
        return SigningTemplate(context: context)
    }

    /// True when `signature` is a valid SHA-256 signature of `message` (`EVP_DigestVerify`).
    ///
    /// Any failure, including an OpenSSL error, is "not valid"; the error queue is cleared so a bad
    /// signature leaves nothing behind for the next caller on this thread.
    func verifySHA256(signature: [UInt8], message: [UInt8]) -> Bool {
        defer { ERR_clear_error() }
        guard !signature.isEmpty, let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        var keyContext: OpaquePointer?
        guard EVP_DigestVerifyInit(context, &keyContext, Self.sha256, nil, pointer) == 1 else { return false }
        guard (try? requirePKCS1Padding(keyContext)) != nil else { return false }
        let input = message.isEmpty ? [0] : message
        let result = signature.withUnsafeBufferPointer { signatureBuffer in
            input.withUnsafeBufferPointer { inputBuffer in
                EVP_DigestVerify(
                    context, signatureBuffer.baseAddress, signatureBuffer.count, inputBuffer.baseAddress, message.count)
            }
        }
        return result == 1
    }

    /// SHA-256 fetched once (`FetchedAlgorithm`): `EVP_sha256()` makes OpenSSL 3 look the digest up in its providers
    /// on every signature and verification (crypto(7), "Performance"); the legacy handle only if the fetch failed.
    private static var sha256: OpaquePointer? { FetchedAlgorithm.sha256?.pointer ?? EVP_sha256() }

    /// Pins RSA keys to PKCS #1 v1.5 padding (RS256) rather than trusting OpenSSL's default.
    private func requirePKCS1Padding(_ keyContext: OpaquePointer?) throws(CryptoError) {
        guard isA("RSA") else { return }
        guard let keyContext, EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_PKCS1_PADDING) == 1 else {
            throw CryptoError.fromOpenSSL("EVP_PKEY_CTX_set_rsa_padding")
        }
    }
}

/// Owns one OpenSSL `BIGNUM` built from big-endian bytes.
final class OpenSSLBigNumber {
    let pointer: OpaquePointer

    init(_ bytes: [UInt8]) throws(CryptoError) {
        guard bytes.count < Int(Int32.max),
            let value = bytes.withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress, Int32($0.count), nil) })
        else { throw CryptoError.fromOpenSSL("BN_bin2bn") }
        pointer = value
    }

    deinit {
        BN_free(pointer)
    }
}
