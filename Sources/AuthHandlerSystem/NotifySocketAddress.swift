#if canImport(Glibc)
    import Glibc
#endif

/// Where `$NOTIFY_SOCKET` says the service manager listens (sd_notify(3)): an absolute path of an `AF_UNIX` socket,
/// or, when the value starts with `@`, a name in Linux's abstract namespace (unix(7)), whose `sun_path` starts with a
/// NUL byte and is not NUL-terminated.
package struct NotifySocketAddress: Sendable, Equatable, CustomStringConvertible {
    /// The bytes of `sun_path` (for an abstract name: NUL, then the name).
    package let pathBytes: [UInt8]
    /// The `$NOTIFY_SOCKET` value it came from.
    package let description: String

    /// Why a `$NOTIFY_SOCKET` value cannot be used.
    package struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        package let description: String
    }

    /// The capacity of `sun_path` (unix(7): 108 bytes on Linux).
    static let pathCapacity = MemoryLayout.size(ofValue: sockaddr_un().sun_path)

    /// Parses `$NOTIFY_SOCKET`; other forms (`vsock:`, relative paths) are refused.
    package init(_ value: String) throws(Refusal) {
        let bytes = Array(value.utf8)
        guard !bytes.contains(0) else { throw Refusal(description: "NOTIFY_SOCKET holds a NUL byte") }
        if value.hasPrefix("@") {
            // The abstract name is the bytes after '@'; its length, not a terminator, ends it.
            pathBytes = [0] + bytes.dropFirst()
            guard bytes.count > 1, pathBytes.count <= Self.pathCapacity else {
                throw Refusal(description: "NOTIFY_SOCKET's abstract name must be 1-\(Self.pathCapacity - 1) bytes")
            }
        } else if value.hasPrefix("/") {
            pathBytes = bytes
            // One byte is kept for the terminating NUL of a path.
            guard pathBytes.count < Self.pathCapacity else {
                throw Refusal(description: "NOTIFY_SOCKET's path is longer than \(Self.pathCapacity - 1) bytes")
            }
        } else {
            throw Refusal(description: "NOTIFY_SOCKET must be an absolute path or an '@' abstract name")
        }
        description = value
    }

    /// Whether this is a name in the abstract namespace.
    package var isAbstract: Bool { pathBytes.first == 0 }

    /// The `socklen_t` to pass with the address: the family, the path and, for a path, its terminating NUL.
    package var length: socklen_t {
        socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path) ?? 2) + socklen_t(pathBytes.count)
            + (isAbstract ? 0 : 1)
    }

    /// Calls `body` with the filled-in `sockaddr_un`, as a `sockaddr`, and its length.
    func withSocketAddress<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            // `init` checked that the bytes fit, leaving the rest zero (the NUL terminator of a path).
            for (index, byte) in pathBytes.prefix(path.count).enumerated() { path[index] = byte }
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}
