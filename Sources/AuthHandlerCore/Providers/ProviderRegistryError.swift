/// Why providers could not be set up at startup: every problem found, each naming its provider.
package struct ProviderRegistryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One provider's problem.
    package struct Problem: Sendable, Equatable, CustomStringConvertible {
        /// The provider id.
        package let providerID: String
        /// The config key concerned (`clientSecret`, `endpoints.token`, ...).
        package let key: String
        /// What is wrong and what to do; never a secret value.
        package let message: String

        package var description: String { "providers.\(providerID).\(key): \(message)" }
    }

    /// The problems, in provider-id order.
    package let problems: [Problem]

    package init(problems: [Problem]) {
        self.problems = problems
    }

    package var description: String {
        problems.map(\.description).joined(separator: "\n")
    }
}
