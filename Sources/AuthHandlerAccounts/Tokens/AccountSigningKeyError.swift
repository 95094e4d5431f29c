/// Why an accounts signing key cannot be used, loaded or kept: the message names the file or config entry and says
/// what to do; it never holds key material.
package struct AccountSigningKeyError: Error, Equatable, Sendable, CustomStringConvertible {
    package let message: String

    package init(_ message: String) {
        self.message = message
    }

    package var description: String { message }
}
