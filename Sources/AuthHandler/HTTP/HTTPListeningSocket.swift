#if canImport(Glibc)
    import Glibc
#endif

/// Socket plumbing for listening sockets: bind, listen and read back the bound address.
enum HTTPListeningSocket {
    /// A new non-blocking, close-on-exec TCP socket bound to `address` and listening.
    static func open(_ address: ListenAddress, backlog: Int32) throws(HTTPServerError) -> Int32 {
        let subject = address.description
        let family = address.isIPv6 ? AF_INET6 : AF_INET
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .systemCall("socket", subject: subject) }
        do throws(HTTPServerError) {
            var one: Int32 = 1
            let size = socklen_t(MemoryLayout<Int32>.size)
            // Why SO_REUSEADDR: a restarted daemon must rebind while old connections sit in TIME_WAIT.
            guard setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, size) == 0 else {
                throw HTTPServerError.systemCall("setsockopt(SO_REUSEADDR)", subject: subject)
            }
            if address.isIPv6 {
                // Why V6ONLY: `[::]` must not also claim the IPv4 port; IPv4 gets its own socket.
                guard setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, size) == 0 else {
                    throw HTTPServerError.systemCall("setsockopt(IPV6_V6ONLY)", subject: subject)
                }
            }
            try bind(fd, address)
            guard listen(fd, backlog) == 0 else { throw HTTPServerError.systemCall("listen", subject: subject) }
            try makeNonBlocking(fd, subject: subject)
            return fd
        } catch {
            close(fd)
            throw error
        }
    }

    /// Sets `O_NONBLOCK`; MHD's epoll loop accepts until `EAGAIN`.
    static func makeNonBlocking(_ fd: Int32, subject: String) throws(HTTPServerError) {
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else {
            throw .systemCall("fcntl(O_NONBLOCK)", subject: subject)
        }
    }

    /// The address a listening socket is bound to (`getsockname`), which reveals the port chosen for port 0.
    static func boundAddress(of fd: Int32) throws(HTTPServerError) -> ListenAddress {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { throw .systemCall("getsockname", subject: "fd \(fd)") }
        guard let address = withUnsafePointer(to: &storage, { HTTPSocketAddress.describe(UnsafeRawPointer($0)) })
        else {
            throw HTTPServerError(operation: "getsockname", subject: "fd \(fd)", detail: "not an IPv4 or IPv6 socket")
        }
        return address
    }

    private static func bind(_ fd: Int32, _ address: ListenAddress) throws(HTTPServerError) {
        let result: Int32
        let host = address.numericHost
        if address.isIPv6 {
            var socketAddress = sockaddr_in6()
            socketAddress.sin6_family = sa_family_t(AF_INET6)
            socketAddress.sin6_port = address.port.bigEndian
            guard inet_pton(AF_INET6, host, &socketAddress.sin6_addr) == 1 else {
                throw HTTPServerError(
                    operation: "bind", subject: address.description, detail: ListenAddress.expectedForm)
            }
            result = withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var socketAddress = sockaddr_in()
            socketAddress.sin_family = sa_family_t(AF_INET)
            socketAddress.sin_port = address.port.bigEndian
            guard inet_pton(AF_INET, host, &socketAddress.sin_addr) == 1 else {
                throw HTTPServerError(
                    operation: "bind", subject: address.description, detail: ListenAddress.expectedForm)
            }
            result = withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard result == 0 else { throw .systemCall("bind", subject: address.description) }
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
