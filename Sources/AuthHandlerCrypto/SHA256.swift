import COpenSSL
import Foundation

/// SHA-256 (FIPS 180-4) on OpenSSL's EVP digest API.
package enum SHA256 {
    /// The 32-byte digest of `data`.
    package static func hash(_ data: some ContiguousBytes) throws(CryptoError) -> [UInt8] {
        guard let digest = FetchedAlgorithm.sha256?.pointer else {
            throw CryptoError.fromOpenSSL("EVP_MD_fetch(SHA256)")
        }
        var output = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok: Int32 = data.withUnsafeBytes { input in
            output.withUnsafeMutableBufferPointer { out in
                EVP_Digest(input.baseAddress, input.count, out.baseAddress, &length, digest, nil)
            }
        }
        guard ok == 1, length == 32 else { throw CryptoError.fromOpenSSL("EVP_Digest(SHA-256)") }
        return output
    }
}
