import COpenSSL

/// A failed OpenSSL operation, carrying the library's own error text.
package struct CryptoError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The operation that failed, e.g. `"HMAC"` or `"EVP_DigestVerifyInit"`.
    package let operation: String
    /// OpenSSL's error queue text, or a plain explanation when OpenSSL reported nothing.
    package let detail: String

    package init(operation: String, detail: String) {
        self.operation = operation
        self.detail = detail
    }

    /// Builds an error from OpenSSL's error queue, draining it so later calls start clean.
    static func fromOpenSSL(_ operation: String) -> CryptoError {
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return CryptoError(
            operation: operation,
            detail: messages.isEmpty ? "OpenSSL reported no error" : messages.joined(separator: "; "))
    }

    package var description: String { "\(operation) failed: \(detail)" }
}
