import COpenSSL

/// An OpenSSL 3 algorithm implementation fetched once by name (`EVP_MD_fetch`, `EVP_KDF_fetch`) and kept for the
/// process.
///
/// Why: given a legacy handle such as `EVP_sha256()`, or fetching by name per call, OpenSSL 3 looks the
/// implementation up in its providers on every use (EVP_MD_fetch(3), "Explicit fetching"; crypto(7), "Performance");
/// that lookup was most of the cost of hashing a store key or deriving a result's key. A fetched one is used as is.
///
/// `@unchecked Sendable`: a fetched implementation is immutable and may be used from several threads at once.
final class FetchedAlgorithm: @unchecked Sendable {
    let pointer: OpaquePointer
    private let free: (OpaquePointer) -> Void

    static let sha1 = FetchedAlgorithm(EVP_MD_fetch(nil, "SHA1", nil), free: EVP_MD_free)
    static let sha256 = FetchedAlgorithm(EVP_MD_fetch(nil, "SHA256", nil), free: EVP_MD_free)
    static let hkdf = FetchedAlgorithm(EVP_KDF_fetch(nil, "HKDF", nil), free: EVP_KDF_free)

    private init?(_ fetched: OpaquePointer?, free: @escaping (OpaquePointer) -> Void) {
        guard let fetched else { return nil }
        self.pointer = fetched
        self.free = free
    }

    deinit { free(pointer) }
}
