import AuthHandlerCrypto
import AuthHandlerSystem

/// Where a provider's client (or consumer) secret comes from at the moment it is needed.
package enum ClientSecretSource: Sendable, CustomStringConvertible {
    /// A configured secret, resolved once at startup.
    case fixed(Secret)
    /// Apple's ES256 client-secret JWT, signed on demand and cached.
    case appleGenerated(AppleClientSecret)

    /// The secret to send now.
    package func current() throws(CryptoError) -> Secret {
        switch self {
        case .fixed(let secret): secret
        case .appleGenerated(let generator): try generator.current()
        }
    }

    package var description: String {
        switch self {
        case .fixed: "configured secret \(Redaction.marker)"
        case .appleGenerated(let generator): "generated \(generator)"
        }
    }
}
