/// A NUL-terminated C string that lives for the whole process, for names OpenSSL keeps a pointer to.
///
/// `OSSL_PARAM_BLD_push_*` stores the parameter key (and a UTF-8 value) by pointer, not by copy
/// (`OSSL_PARAM_BLD_DEF` in OpenSSL's crypto/param_build.c), and `EVP_PKEY_CTX_new_from_name` keeps
/// its name the same way (`ret->keytype = keytype` in crypto/evp/pmeth_lib.c). A Swift `String`
/// passed to a `const char *` is a temporary that dies when the call returns; with one, 3.0.19's
/// `EVP_PKEY_fromdata` failed ("invalid field" for EC, no error at all for RSA). So the names are
/// copied once into storage that is never freed.
///
/// `@unchecked Sendable`: the storage is written once in `init` and only read afterwards.
struct OpenSSLName: @unchecked Sendable {
    let cString: UnsafePointer<CChar>

    private init(_ name: String) {
        let bytes = Array(name.utf8CString)
        let storage = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
        storage.initialize(from: bytes, count: bytes.count)
        cString = UnsafePointer(storage)
    }

    static let rsa = OpenSSLName("RSA")
    static let ec = OpenSSLName("EC")
    /// `OSSL_PKEY_PARAM_RSA_N`.
    static let rsaModulus = OpenSSLName("n")
    /// `OSSL_PKEY_PARAM_RSA_E`.
    static let rsaExponent = OpenSSLName("e")
    /// `OSSL_PKEY_PARAM_GROUP_NAME`.
    static let groupName = OpenSSLName("group")
    /// `OSSL_PKEY_PARAM_PUB_KEY`.
    static let publicKey = OpenSSLName("pub")
    /// OpenSSL's name for NIST P-256.
    static let prime256v1 = OpenSSLName("prime256v1")
}
