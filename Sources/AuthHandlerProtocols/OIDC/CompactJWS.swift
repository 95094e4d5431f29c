import AuthHandlerCrypto
import AuthHandlerHTTP
import Foundation

/// A JWS in compact serialization (RFC 7515 §7.1): `BASE64URL(header).BASE64URL(payload).BASE64URL(signature)`.
///
/// Parsing only splits and decodes; it verifies nothing. `IDTokenValidator` decides what to trust.
package struct CompactJWS: Sendable {
    package let header: JOSEHeader
    /// The decoded payload bytes (a JSON claims set for a JWT).
    package let payload: [UInt8]
    package let signature: [UInt8]
    /// The ASCII bytes the signature covers: the first two segments and the dot between them.
    package let signingInput: [UInt8]

    /// Why a string is not a compact JWS.
    package struct ParseError: Error, Equatable, CustomStringConvertible {
        package let reason: String
        package var description: String { "not a compact JWS: \(reason)" }
    }

    /// Longest token accepted, so that a hostile IdP cannot make us decode megabytes.
    package static let maximumLength = 16 * 1024

    package init(parsing token: String) throws(ParseError) {
        let utf8 = Array(token.utf8)
        guard utf8.count <= Self.maximumLength else { throw ParseError(reason: "longer than 16 KiB") }
        let parts = utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw ParseError(reason: "expected three dot-separated segments") }
        guard let headerBytes = Base64.urlDecode(String(decoding: parts[0], as: UTF8.self)) else {
            throw ParseError(reason: "the header is not base64url")
        }
        guard let payload = Base64.urlDecode(String(decoding: parts[1], as: UTF8.self)) else {
            throw ParseError(reason: "the payload is not base64url")
        }
        guard let signature = Base64.urlDecode(String(decoding: parts[2], as: UTF8.self)) else {
            throw ParseError(reason: "the signature is not base64url")
        }
        do {
            header = try JSONDecoder().decode(JOSEHeader.self, from: Data(headerBytes))
        } catch {
            throw ParseError(reason: "the header is not a JSON object with a string alg")
        }
        self.payload = payload
        self.signature = signature
        signingInput = Array(utf8[0..<(parts[0].count + 1 + parts[1].count)])
    }

    /// Signs `payload` under `header` (whose `alg` must be the key's algorithm) and returns the compact form.
    package static func sign(header: JOSEHeader, payload: some ContiguousBytes, key: SigningKey) throws -> String {
        guard header.alg == key.algorithm.rawValue else {
            throw CryptoError(
                operation: "CompactJWS.sign",
                detail: "header alg \(header.alg) does not match the key's \(key.algorithm.rawValue)")
        }
        let signingInput = try encodedSigningInput(header: header, payload: payload)
        let signature = try key.sign(key.algorithm, message: Array(signingInput.utf8))
        return signingInput + "." + Base64.urlEncode(signature)
    }

    /// An unsigned token (`alg: none`, empty signature), for testing that validators refuse it.
    package static func unsigned(payload: some ContiguousBytes) throws -> String {
        try encodedSigningInput(header: JOSEHeader(alg: "none"), payload: payload) + "."
    }

    private static func encodedSigningInput(header: JOSEHeader, payload: some ContiguousBytes) throws -> String {
        Base64.urlEncode(header.serialized(sortingKeys: true)) + "." + Base64.urlEncode(payload)
    }
}
