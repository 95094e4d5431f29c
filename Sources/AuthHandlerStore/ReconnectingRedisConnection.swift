import AuthHandlerCrypto
import Foundation

/// The Redis store's connection and its reconnect policy, used only on the store's worker thread.
///
/// It starts unconnected, so `serve` starts while Redis is down; the first operation connects. A connection attempt
/// that fails, and a connection that breaks — an I/O error, or a command that got no reply within the command
/// timeout, as from a stalled Redis — back off (250 ms doubling to 2 s, reset by the next reply) so an unreachable
/// Redis is not hammered and a stalled one does not hold every queued operation for a time-out of its own. While
/// backing off, operations fail at once with `.unavailable`, which the flow answers with 503 and `Retry-After`. Every
/// outcome is written to `readiness`, which `/readyz` reads (docs/ARCHITECTURE.md, "Request path").
final class ReconnectingRedisConnection {
    static let firstBackoff: Duration = .milliseconds(250)
    static let maximumBackoff: Duration = .seconds(2)

    private let address: RedisAddress
    private let password: Secret?
    private let connectTimeout: Duration
    private let commandTimeout: Duration
    private let readiness: RedisReadiness
    private let clock = ContinuousClock()
    private var connection: RedisConnection?
    private var backoff: Duration = .zero
    private var nextAttempt: ContinuousClock.Instant?
    private var lastFailure = ""

    init(
        address: RedisAddress, password: Secret?, connectTimeout: Duration, commandTimeout: Duration,
        readiness: RedisReadiness
    ) {
        self.address = address
        self.password = password
        self.connectTimeout = connectTimeout
        self.commandTimeout = commandTimeout
        self.readiness = readiness
    }

    /// Runs one command, connecting first when needed. Throws `.unavailable` when Redis cannot be reached or the
    /// connection broke (the command may or may not have run then); an error reply is returned, not thrown.
    func command(_ arguments: [[UInt8]], operation: String) throws(StoreError) -> RedisReply {
        let reply: RedisReply
        do throws(StoreError) {
            let connection = try connected()
            do {
                reply = try connection.command(arguments, operation: "redis \(operation)")
            } catch {
                // A broken hiredis context cannot be reused. Back off before the next attempt: after a time-out
                // Redis is stalled or unreachable, and reconnecting at once would hold the operations queued behind
                // this one for a time-out each.
                self.connection = nil
                backOff(after: error)
                throw error
            }
        } catch {
            readiness.failed(error.detail)
            throw error
        }
        backoff = .zero
        readiness.replied()
        return reply
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
            nextAttempt = nil
            return opened
        } catch {
            backOff(after: error)
            throw error
        }
    }

    /// The next connection attempt waits: 250 ms after a reply, doubling with every failure since, 2 s at most.
    private func backOff(after error: StoreError) {
        lastFailure = error.detail
        backoff = backoff == .zero ? Self.firstBackoff : min(backoff * 2, Self.maximumBackoff)
        nextAttempt = clock.now + backoff
    }

    /// Authenticates, checks the server's version and selects the database on a new connection
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
        try checkVersion(connection)
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

    /// Refuses a Redis older than ``RedisServerVersion/minimum``, naming the version found and the one needed. When
    /// `INFO` is refused (an ACL without `@dangerous`, a renamed command) the check is skipped: such a server still
    /// refuses the claim script with "unknown command 'PEXPIRETIME'" if it is too old.
    private func checkVersion(_ connection: RedisConnection) throws(StoreError) {
        let reply = try connection.command([Array("INFO".utf8), Array("server".utf8)], operation: "redis INFO server")
        guard case .string(let bytes) = reply,
            let version = RedisServerVersion(info: String(decoding: bytes, as: UTF8.self))
        else { return }
        guard version >= RedisServerVersion.minimum else {
            throw StoreError(
                .unavailable,
                detail: "Redis \(version) at \(address) is too old: auth-handler needs Redis "
                    + "\(RedisServerVersion.minimum) or later (its claim script uses PEXPIRETIME); upgrade Redis")
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
