extension AccountStore {
    /// A store on a local file (SQLite) is always ready: what could fail there fails the operation itself.
    package func healthProblem() async -> String? { nil }
}
