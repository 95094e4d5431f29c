import Foundation

/// The Redis store's connection and its reconnect policy, used only on the store's worker thread.
///
/// It starts unconnected, so `serve` starts while Redis is down; the first operation connects. A connection that
/// breaks is dropped; the next operation connects again at once, and a failed attempt backs off (250 ms doubling to
/// 2 s) so an unreachable Redis is not hammered. While backing off, operations fail at once with `.unavailable`,
/// which the flow answers with 503 and `Retry-After`.
final class RedisLink {
    static let firstBackoff: Duration = .milliseconds(250)
    static let maximumBackoff: Duration = .seconds(2)

    private let address: RedisAddress
    private let password: Secret?
    private let connectTimeout: Duration
    private let commandTimeout: Duration
    private let clock = ContinuousClock()
    private var connection: RedisConnection?
    private var backoff: Duration = .zero
    private var nextAttempt: ContinuousClock.Instant?
    private var lastFailure = ""

    init(address: RedisAddress, password: Secret?, connectTimeout: Duration, commandTimeout: Duration) {
        self.address = address
        self.password = password
        self.connectTimeout = connectTimeout
        self.commandTimeout = commandTimeout
    }

    /// Runs one command, connecting first when needed. Throws `.unavailable` when Redis cannot be reached or the
    /// connection broke (the command may or may not have run then); an error reply is returned, not thrown.
    func command(_ arguments: [[UInt8]], operation: String) throws(StoreError) -> RedisReply {
        let connection = try connected()
        do {
            return try connection.command(arguments, operation: "redis \(operation)")
        } catch {
            // A broken hiredis context cannot be reused; the next operation reconnects without waiting.
            self.connection = nil
            throw error
        }
    }

    private func connected() throws(StoreError) -> RedisConnection {
        if let connection { return connection }
        if let nextAttempt, clock.now < nextAttempt {
            let (seconds, attoseconds) = (nextAttempt - clock.now).components
            let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
            throw StoreError(.unavailable, detail: "\(lastFailure); next connection attempt in \(milliseconds) ms")
        }
        do {
            let opened = try RedisConnection.open(
                address, connectTimeout: connectTimeout, commandTimeout: commandTimeout)
            try prepare(opened)
            connection = opened
            backoff = .zero
            nextAttempt = nil
            return opened
        } catch {
            lastFailure = error.detail
            backoff = backoff == .zero ? Self.firstBackoff : min(backoff * 2, Self.maximumBackoff)
            nextAttempt = clock.now + backoff
            throw error
        }
    }

    /// Authenticates and selects the database on a new connection
    /// (https://redis.io/docs/latest/commands/auth/, https://redis.io/docs/latest/commands/select/).
    private func prepare(_ connection: RedisConnection) throws(StoreError) {
        if let password {
            var arguments: [[UInt8]] = [Array("AUTH".utf8)]
            if let user = address.user { arguments.append(Array(user.utf8)) }
            arguments.append(Array(password.reveal().utf8))
            let reply = try connection.command(arguments, operation: "redis AUTH")
            guard reply == .status("OK") else {
                throw StoreError(.unavailable, detail: "redis AUTH at \(address) refused: \(Self.describe(reply))")
            }
        }
        if address.database != 0 {
            let reply = try connection.command(
                [Array("SELECT".utf8), Array(String(address.database).utf8)], operation: "redis SELECT")
            guard reply == .status("OK") else {
                throw StoreError(
                    .unavailable,
                    detail: "redis SELECT \(address.database) at \(address) refused: \(Self.describe(reply))")
            }
        }
    }

    /// A reply in an error message: the server's error text, or the reply's kind (never a payload).
    static func describe(_ reply: RedisReply) -> String {
        switch reply {
        case .error(let text): text
        case .status(let text): "status \(text)"
        case .string: "a bulk string"
        case .integer(let value): "integer \(value)"
        case .null: "nil"
        case .array(let items): "an array of \(items.count)"
        }
    }
}
