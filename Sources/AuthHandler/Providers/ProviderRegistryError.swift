/// Why providers could not be set up at startup: every problem found, each naming its provider.
public struct ProviderRegistryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One provider's problem.
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        /// The provider id.
        public let providerID: String
        /// The config key concerned (`clientSecret`, `endpoints.token`, ...).
        public let key: String
        /// What is wrong and what to do; never a secret value.
        public let message: String

        public init(providerID: String, key: String, message: String) {
            self.providerID = providerID
            self.key = key
            self.message = message
        }

        public var description: String { "providers.\(providerID).\(key): \(message)" }
    }

    /// The problems, in provider-id order.
    public let problems: [Problem]

    public init(problems: [Problem]) {
        self.problems = problems
    }

    public var description: String {
        problems.map(\.description).joined(separator: "\n")
    }
}
