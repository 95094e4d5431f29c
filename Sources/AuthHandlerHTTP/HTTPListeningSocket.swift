import AuthHandlerSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Socket plumbing for listening sockets: bind, listen and read back the bound address.
enum HTTPListeningSocket {
    /// A new non-blocking, close-on-exec TCP socket bound to `address` and listening.
    static func open(_ address: ListenAddress, backlog: Int32) throws(HTTPServerError) -> FileDescriptor {
        let socket = try HTTPServerError.converting { () throws(SystemCallError) in
            let family = address.isIPv6 ? AF_INET6 : AF_INET
            let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
            let socket = try FileDescriptor(socket: family, type: type, subject: address.description)
            // Why SO_REUSEADDR: a restarted daemon must rebind while old connections sit in TIME_WAIT.
            try enable(SO_REUSEADDR, level: SOL_SOCKET, name: "setsockopt(SO_REUSEADDR)", on: socket)
            if address.isIPv6 {
                // Why V6ONLY: `[::]` must not also claim the IPv4 port; IPv4 gets its own socket.
                try enable(IPV6_V6ONLY, level: Int32(IPPROTO_IPV6), name: "setsockopt(IPV6_V6ONLY)", on: socket)
            }
            return socket
        }
        try bind(socket, address)
        try HTTPServerError.converting { () throws(SystemCallError) in
            try socket.call("listen") { listen($0, backlog) }
            try makeNonBlocking(socket)
        }
        return socket
    }

    /// Sets `O_NONBLOCK`; MHD's epoll loop accepts until `EAGAIN`.
    static func makeNonBlocking(_ socket: FileDescriptor) throws(SystemCallError) {
        let flags = try socket.call("fcntl(O_NONBLOCK)") { fcntl($0, F_GETFL) }
        try socket.call("fcntl(O_NONBLOCK)") { fcntl($0, F_SETFL, flags | O_NONBLOCK) }
    }

    /// Whether `socket` is listening (`SO_ACCEPTCONN`).
    static func isListening(_ socket: FileDescriptor) throws(SystemCallError) -> Bool {
        var accepting: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        try socket.call("getsockopt(SO_ACCEPTCONN)") { getsockopt($0, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &length) }
        return accepting != 0
    }

    /// The address a listening socket is bound to (`getsockname`), which reveals the port chosen for port 0.
    static func boundAddress(of socket: FileDescriptor) throws(HTTPServerError) -> ListenAddress {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        try HTTPServerError.converting { () throws(SystemCallError) in
            try socket.call("getsockname") { fd in
                withUnsafeMutablePointer(to: &storage) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
                }
            }
        }
        guard let address = withUnsafePointer(to: &storage, { HTTPSocketAddress.describe(UnsafeRawPointer($0)) })
        else {
            throw HTTPServerError(
                operation: "getsockname", subject: socket.subject, detail: "not an IPv4 or IPv6 socket")
        }
        return address
    }

    private static func enable(_ option: Int32, level: Int32, name: String, on socket: FileDescriptor)
        throws(SystemCallError)
    {
        var one: Int32 = 1
        try socket.call(name) { setsockopt($0, level, option, &one, socklen_t(MemoryLayout<Int32>.size)) }
    }

    private static func bind(_ socket: FileDescriptor, _ address: ListenAddress) throws(HTTPServerError) {
        let host = address.numericHost
        if address.isIPv6 {
            var socketAddress = sockaddr_in6()
            socketAddress.sin6_family = sa_family_t(AF_INET6)
            socketAddress.sin6_port = address.port.bigEndian
            let parsed = inet_pton(AF_INET6, host, &socketAddress.sin6_addr) == 1
            try bind(socket, to: socketAddress, parsed: parsed, address)
        } else {
            var socketAddress = sockaddr_in()
            socketAddress.sin_family = sa_family_t(AF_INET)
            socketAddress.sin_port = address.port.bigEndian
            let parsed = inet_pton(AF_INET, host, &socketAddress.sin_addr) == 1
            try bind(socket, to: socketAddress, parsed: parsed, address)
        }
    }

    /// Binds to `socketAddress` (a `sockaddr_in` or `sockaddr_in6`) once `inet_pton` has `parsed` its host.
    private static func bind<SocketAddress>(
        _ socket: FileDescriptor, to socketAddress: SocketAddress, parsed: Bool, _ address: ListenAddress
    ) throws(HTTPServerError) {
        guard parsed else {
            throw HTTPServerError(operation: "bind", subject: address.description, detail: ListenAddress.expectedForm)
        }
        var socketAddress = socketAddress
        try HTTPServerError.converting { () throws(SystemCallError) in
            try socket.call("bind") { fd in
                withUnsafePointer(to: &socketAddress) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        Glibc.bind(fd, $0, socklen_t(MemoryLayout<SocketAddress>.size))
                    }
                }
            }
        }
    }
}

/// Conversion of a C socket address to `ListenAddress`.
enum HTTPSocketAddress {
    /// Describes an IPv4 or IPv6 `sockaddr`; nil for other families.
    static func describe(_ pointer: UnsafeRawPointer) -> ListenAddress? {
        let family = Int32(pointer.load(as: sockaddr.self).sa_family)
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch family {
        case AF_INET:
            var address = pointer.load(as: sockaddr_in.self)
            guard inet_ntop(AF_INET, &address.sin_addr, &buffer, socklen_t(buffer.count)) != nil else { return nil }
            return ListenAddress(host: hostString(buffer), port: UInt16(bigEndian: address.sin_port))
        case AF_INET6:
            var address = pointer.load(as: sockaddr_in6.self)
            guard inet_ntop(AF_INET6, &address.sin6_addr, &buffer, socklen_t(buffer.count)) != nil else { return nil }
            return ListenAddress(host: hostString(buffer), port: UInt16(bigEndian: address.sin6_port))
        default:
            return nil
        }
    }

    private static func hostString(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
