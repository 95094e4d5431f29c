/// A Redis server's version, as `INFO server` reports it in `redis_version:` (https://redis.io/docs/latest/commands/info/).
struct RedisServerVersion: Sendable, Comparable, CustomStringConvertible {
    /// The oldest Redis the store works with: its claim script reads an expiry with `PEXPIRETIME`, new in 7.0
    /// (https://redis.io/docs/latest/commands/pexpiretime/).
    static let minimum = RedisServerVersion(major: 7, minor: 0, patch: 0)

    let major: Int
    let minor: Int
    let patch: Int

    /// The version in an `INFO` reply's `redis_version:` line; nil when there is none or it is not `N.N.N`.
    init?(info: String) {
        guard
            let line = info.split(whereSeparator: \.isNewline)
                .first(where: { $0.hasPrefix("redis_version:") })
        else { return nil }
        let numbers = line.dropFirst("redis_version:".count).split(separator: ".").map { Int($0) }
        guard numbers.count == 3, let major = numbers[0], let minor = numbers[1], let patch = numbers[2] else {
            return nil
        }
        self.init(major: major, minor: minor, patch: patch)
    }

    init(major: Int, minor: Int, patch: Int) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    static func < (lhs: RedisServerVersion, rhs: RedisServerVersion) -> Bool {
        (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
    }

    var description: String { "\(major).\(minor).\(patch)" }
}
