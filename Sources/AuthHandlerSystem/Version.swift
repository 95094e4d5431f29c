/// The version printed by `auth-handler --version` and sent in the outbound `User-Agent`.
package enum AuthHandlerVersion {
    package static let string = "0.1.0"
}
