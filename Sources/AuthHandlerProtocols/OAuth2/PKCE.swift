import AuthHandlerCrypto
import AuthHandlerSystem

/// Proof Key for Code Exchange (RFC 7636) with the S256 method only; `plain` is never offered.
package enum PKCE {
    /// The only challenge method we send and accept (`code_challenge_method=S256`).
    package static let challengeMethod = "S256"

    /// Shortest and longest verifier allowed (RFC 7636 §4.1).
    package static let verifierLengths = 43...128

    /// Why a verifier was refused or a challenge could not be computed.
    package enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The verifier breaks RFC 7636 §4.1; the reason says how.
        case invalidVerifier(String)
        /// SHA-256 or the random generator failed.
        case crypto(CryptoError)

        package var description: String {
            switch self {
            case .invalidVerifier(let reason):
                "invalid PKCE code_verifier: \(reason); use 43 to 128 characters of A-Z a-z 0-9 - . _ ~"
            case .crypto(let error):
                "PKCE failed: \(error)"
            }
        }
    }

    /// A fresh verifier: 32 CSPRNG bytes as base64url, 43 characters (RFC 7636 §4.1, §7.1).
    package static func makeVerifier() throws(Failure) -> String {
        do { return try SecureRandom.base64URLString(byteCount: 32) } catch { throw .crypto(error) }
    }

    /// Refuses a verifier that is not 43–128 characters of the unreserved set `[A-Z a-z 0-9 - . _ ~]`.
    package static func validateVerifier(_ verifier: String) throws(Failure) {
        let count = verifier.utf8.count
        guard verifierLengths.contains(count) else {
            throw .invalidVerifier("it has \(count) characters")
        }
        guard verifier.utf8.allSatisfy(RFC3986.isUnreserved) else {
            throw .invalidVerifier("it contains a character outside the unreserved set")
        }
    }

    /// True when `verifier` is a valid RFC 7636 verifier.
    package static func isValidVerifier(_ verifier: String) -> Bool {
        do {
            try validateVerifier(verifier)
            return true
        } catch {
            return false
        }
    }

    /// The S256 challenge `BASE64URL(SHA256(ASCII(verifier)))` of a valid verifier (RFC 7636 §4.2).
    package static func challenge(forVerifier verifier: String) throws(Failure) -> String {
        try validateVerifier(verifier)
        do { return Base64.urlEncode(try SHA256.hash(Array(verifier.utf8))) } catch { throw .crypto(error) }
    }

    /// True when `verifier` is valid and its S256 challenge equals `challenge`, compared in constant time
    /// (RFC 7636 §4.6).
    package static func verify(verifier: String, matchesChallenge challenge: String) -> Bool {
        guard let computed = try? self.challenge(forVerifier: verifier) else { return false }
        return ConstantTime.equals(computed, challenge)
    }

}
