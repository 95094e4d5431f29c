import AuthHandlerCrypto
import AuthHandlerHTTP

/// Why an OAuth 1.0a request could not be signed, parsed or verified.
///
/// Each case says what failed and what to do. Descriptions never include secrets or signatures.
package enum OAuth1Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `Authorization` header does not use the `OAuth` scheme.
    case notOAuthScheme
    /// The `Authorization` header breaks the RFC 5849 §3.5.1 / RFC 7235 syntax; the reason says where.
    case malformedAuthorizationHeader(String)
    /// A value is not valid RFC 5849 §3.6 percent-encoding of UTF-8 text; the name says which one.
    case invalidPercentEncoding(parameter: String)
    /// A protocol parameter appears more than once (RFC 5849 §3.1 step 2).
    case duplicateProtocolParameter(String)
    /// A required protocol parameter is missing.
    case missingProtocolParameter(String)
    /// `oauth_signature_method` names a method this side does not accept.
    case unsupportedSignatureMethod(String)
    /// `oauth_version` is present but not `1.0` (RFC 5849 §3.2).
    case unsupportedVersion(String)
    /// `oauth_timestamp` is not a positive integer (RFC 5849 §3.3).
    case invalidTimestamp(String)
    /// The request URL cannot give a base string URI (RFC 5849 §3.4.1.2); the reason says why.
    case invalidURL(String)
    /// A caller-supplied request parameter uses the `oauth_` prefix that the signer owns.
    case protocolParameterInRequestParameters(String)
    /// The received signature does not match the one computed from the request and secrets.
    case signatureMismatch
    /// The MAC could not be computed.
    case crypto(CryptoError)

    /// The status RFC 5849 §3.2 asks a server to answer with: 400 for a malformed, incomplete or
    /// unsupported request, 401 for a wrong signature; 500 when this side failed to compute one.
    package var httpStatus: Int {
        switch self {
        case .signatureMismatch: 401
        case .crypto: 500
        default: 400
        }
    }

    package var description: String {
        switch self {
        case .notOAuthScheme:
            "the Authorization header does not use the OAuth scheme; send `Authorization: OAuth name=\"value\", ...`"
        case .malformedAuthorizationHeader(let reason):
            "malformed OAuth Authorization header: \(reason); send comma-separated name=\"percent-encoded value\" pairs"
        case .invalidPercentEncoding(let parameter):
            "\(parameter) is not valid percent-encoded UTF-8; encode it per RFC 5849 §3.6 (%XX with uppercase hex)"
        case .duplicateProtocolParameter(let name):
            "the protocol parameter \(name) appears more than once; send each oauth_* parameter once, in one place"
        case .missingProtocolParameter(let name):
            "the protocol parameter \(name) is missing; add it to the OAuth Authorization header"
        case .unsupportedSignatureMethod(let method):
            "the signature method \(method) is not accepted; use HMAC-SHA1, HMAC-SHA256 or PLAINTEXT"
        case .unsupportedVersion(let version):
            "oauth_version is \(version); omit it or send 1.0"
        case .invalidTimestamp(let value):
            "oauth_timestamp \(value) is not a positive integer; send seconds since 1970-01-01T00:00:00Z"
        case .invalidURL(let reason):
            "the request URL cannot be signed: \(reason); use an absolute http or https URL"
        case .protocolParameterInRequestParameters(let name):
            "the request parameter \(name) uses the oauth_ prefix; pass callback, verifier and token to the signer instead"
        case .signatureMismatch:
            "the OAuth signature does not match; check the consumer and token secrets, the method, the URL and the parameters"
        case .crypto(let error):
            "the OAuth signature could not be computed: \(error)"
        }
    }
}
