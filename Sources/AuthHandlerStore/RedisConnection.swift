import CHiredis
import Foundation

/// A reply from Redis, copied out of hiredis's `redisReply` tree (which is freed at once).
enum RedisReply: Sendable, Equatable {
    /// A bulk string (binary-safe).
    case string([UInt8])
    /// A simple string such as `OK` or `PONG`.
    case status(String)
    case integer(Int64)
    /// A nil bulk string or nil array (`SET ... NX` that did not set, `GET` of a missing key).
    case null
    case array([RedisReply])
    /// An error reply (`-ERR ...`, `-WRONGPASS ...`): the command failed, the connection is fine.
    case error(String)
}

/// One blocking hiredis connection (`redisContext`), freed by `deinit`. Used by one thread at a time: hiredis
/// contexts are not thread-safe (https://github.com/redis/hiredis#synchronous-api).
final class RedisConnection {
    private let context: UnsafeMutablePointer<redisContext>

    private init(_ context: UnsafeMutablePointer<redisContext>) {
        self.context = context
    }

    deinit {
        redisFree(context)
    }

    /// Connects to `address` within `connectTimeout`; every later command waits at most `commandTimeout` for its
    /// reply (`redisSetTimeout`, which sets `SO_RCVTIMEO`/`SO_SNDTIMEO` on the socket).
    static func open(
        _ address: RedisAddress, connectTimeout: Duration, commandTimeout: Duration
    ) throws(StoreError) -> RedisConnection {
        let made: UnsafeMutablePointer<redisContext>?
        switch address.endpoint {
        case .tcp(let host, let port):
            made = redisConnectWithTimeout(host, Int32(clamping: port), timeval(connectTimeout))
        case .unix(let path):
            made = redisConnectUnixWithTimeout(path, timeval(connectTimeout))
        }
        guard let made else {
            throw StoreError(.unavailable, detail: "connect to \(address): hiredis could not allocate a context")
        }
        // Owned from here on, so every throw below frees it.
        let connection = RedisConnection(made)
        if made.pointee.err != 0 {
            throw StoreError(.unavailable, detail: "connect to \(address): \(connection.errorText)")
        }
        if redisSetTimeout(made, timeval(commandTimeout)) != REDIS_OK {
            throw StoreError(.unavailable, detail: "set the command timeout for \(address): \(connection.errorText)")
        }
        return connection
    }

    /// Sends one command and waits for its reply. A throw means the connection is broken (I/O error, timeout, EOF,
    /// protocol error: hiredis's `err`/`errstr`) and must not be used again; an error reply is `.error`.
    func command(_ arguments: [[UInt8]], operation: String) throws(StoreError) -> RedisReply {
        // redisCommandArgv takes each argument as pointer + length, so binary payloads pass unchanged
        // (https://github.com/redis/hiredis#sending-commands-contd). One buffer holds them all; a trailing byte
        // keeps it non-empty so its base address exists.
        var flat: [UInt8] = []
        var offsets: [Int] = []
        var lengths: [Int] = []
        for argument in arguments {
            offsets.append(flat.count)
            lengths.append(argument.count)
            flat.append(contentsOf: argument)
        }
        flat.append(0)
        let raw = flat.withUnsafeBufferPointer { buffer -> UnsafeMutableRawPointer? in
            guard let base = buffer.baseAddress else { return nil }
            var argv: [UnsafePointer<CChar>?] = offsets.map {
                UnsafeRawPointer(base + $0).assumingMemoryBound(to: CChar.self)
            }
            return redisCommandArgv(context, Int32(arguments.count), &argv, lengths)
        }
        guard let raw else {
            throw StoreError(.unavailable, detail: "\(operation): \(errorText)")
        }
        let reply = raw.assumingMemoryBound(to: redisReply.self)
        defer { freeReplyObject(raw) }
        return Self.copy(reply)
    }

    /// hiredis's description of the connection's last error.
    private var errorText: String {
        let text = withUnsafeBytes(of: context.pointee.errstr) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        return text.isEmpty ? "hiredis error \(context.pointee.err)" : "\(text) (hiredis error \(context.pointee.err))"
    }

    private static func copy(_ reply: UnsafeMutablePointer<redisReply>) -> RedisReply {
        let value = reply.pointee
        switch value.type {
        case REDIS_REPLY_STRING:
            return .string(bytes(value.str, value.len))
        case REDIS_REPLY_STATUS:
            return .status(String(decoding: bytes(value.str, value.len), as: UTF8.self))
        case REDIS_REPLY_ERROR:
            return .error(String(decoding: bytes(value.str, value.len), as: UTF8.self))
        case REDIS_REPLY_INTEGER:
            return .integer(value.integer)
        case REDIS_REPLY_ARRAY:
            guard let elements = value.element else { return .array([]) }
            return .array((0..<value.elements).map { index in elements[index].map(copy) ?? .null })
        default:
            return .null
        }
    }

    private static func bytes(_ pointer: UnsafeMutablePointer<CChar>?, _ count: Int) -> [UInt8] {
        guard let pointer, count > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}

extension timeval {
    /// A `Duration` as a `timeval`, clamped to a day.
    fileprivate init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let clamped = max(0, min(seconds, 86_400))
        self.init(tv_sec: Int(clamped), tv_usec: Int(max(0, attoseconds / 1_000_000_000_000)))
    }
}
