import AuthHandlerSystem
import CHTTPShims
import CMicroHTTPD
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP/1.1 server on GNU libmicrohttpd that runs each request's handler as a Swift task.
///
/// The server binds each listen address itself and hands the socket to its own MHD daemon through
/// `MHD_OPTION_LISTEN_SOCKET`. Why not let MHD bind: one code path serves configured addresses and sockets
/// adopted from systemd, `getsockname` reports the real port of `:0`, IPv6 sockets get `IPV6_V6ONLY`, and a
/// failing `bind` reports its own `errno` instead of MHD's generic NULL.
///
/// MHD threads only parse and write: a request's connection is suspended while its handler runs and resumed when
/// the task returns, so a slow handler holds no thread. Call `stop(gracePeriod:)` for a graceful shutdown;
/// `deinit` stops at once, answering 503 to requests still running.
package final class HTTPServer: Sendable {
    /// One MHD daemon; it owns the listening socket it serves until it is quiesced.
    private struct ListeningDaemon {
        let daemon: OpaquePointer
        let subject: String
    }

    private struct State {
        var listeners: [ListeningDaemon]
        var core: Unmanaged<HTTPListenerCore>?
        var stopping = false
    }

    /// Where the server listens, with the real port when port 0 was asked for; in the order given.
    package let addresses: [ListenAddress]
    /// The most simultaneous connections per listening socket: the configured `connectionLimit`, or less when the
    /// process's descriptor limit (RLIMIT_NOFILE) leaves room for fewer.
    package let connectionLimit: Int
    private let core: HTTPListenerCore
    private let state: Mutex<State>

    /// Binds `addresses` (`"127.0.0.1:0"`, `"[::1]:8080"`) and starts serving with `handler`.
    package convenience init(
        listeningOn addresses: [String], configuration: HTTPServerConfiguration = HTTPServerConfiguration(),
        immediate: HTTPServerImmediateHandler? = nil, handler: @escaping HTTPServerHandler
    ) throws(HTTPServerError) {
        var parsed: [ListenAddress] = []
        for address in addresses { parsed.append(try ListenAddress(address)) }
        try self.init(listeningOn: parsed, configuration: configuration, immediate: immediate, handler: handler)
    }

    /// Binds `addresses` and starts serving with `handler`.
    package convenience init(
        listeningOn addresses: [ListenAddress], configuration: HTTPServerConfiguration = HTTPServerConfiguration(),
        immediate: HTTPServerImmediateHandler? = nil, handler: @escaping HTTPServerHandler
    ) throws(HTTPServerError) {
        guard !addresses.isEmpty else {
            throw HTTPServerError(operation: "listen", subject: "[]", detail: "no listen address given")
        }
        // On failure the sockets opened so far close as `sockets` goes.
        var sockets: [FileDescriptor] = []
        for address in addresses {
            sockets.append(try HTTPListeningSocket.open(address, backlog: configuration.listenBacklog))
        }
        try self.init(ownedSockets: sockets, configuration: configuration, immediate: immediate, handler: handler)
    }

    /// Serves already bound, listening TCP sockets, e.g. from systemd socket activation (`LISTEN_FDS`).
    ///
    /// The server owns the descriptors from here on, failure included, and closes them when it stops.
    package convenience init(
        adoptingListeningSockets fds: [Int32], configuration: HTTPServerConfiguration = HTTPServerConfiguration(),
        immediate: HTTPServerImmediateHandler? = nil, handler: @escaping HTTPServerHandler
    ) throws(HTTPServerError) {
        // Owned from here: on failure they close as `sockets` goes.
        let sockets = fds.map { FileDescriptor(owning: $0, subject: "fd \($0)") }
        guard !sockets.isEmpty else {
            throw HTTPServerError(operation: "adopt", subject: "[]", detail: "no socket given")
        }
        for socket in sockets {
            guard
                try HTTPServerError.converting({ () throws(SystemCallError) in
                    try HTTPListeningSocket.isListening(socket)
                })
            else {
                throw HTTPServerError(
                    operation: "adopt", subject: socket.subject, detail: "the socket is not listening")
            }
            try HTTPServerError.converting { () throws(SystemCallError) in
                try HTTPListeningSocket.makeNonBlocking(socket)
            }
        }
        try self.init(ownedSockets: sockets, configuration: configuration, immediate: immediate, handler: handler)
    }

    private init(
        ownedSockets sockets: [FileDescriptor], configuration requested: HTTPServerConfiguration,
        immediate: HTTPServerImmediateHandler?, handler: @escaping HTTPServerHandler
    ) throws(HTTPServerError) {
        do {
            try ProcessSetup.ensureInitialized()
        } catch {
            throw HTTPServerError(operation: error.operation, subject: "process setup", detail: error.detail)
        }
        var configuration = requested
        configuration.connectionLimit = try Self.connectionLimit(requested.connectionLimit, listeners: sockets.count)
        let core = HTTPListenerCore(handler: handler, immediate: immediate, configuration: configuration)
        // Retained for as long as any daemon may call back; released in `finishStop` after the last one stopped.
        let retained = Unmanaged.passRetained(core)
        var listeners: [ListeningDaemon] = []
        var addresses: [ListenAddress] = []
        do throws(HTTPServerError) {
            for socket in sockets {
                addresses.append(try HTTPListeningSocket.boundAddress(of: socket))
                let daemon = try Self.startDaemon(
                    socket: socket, configuration: configuration, context: retained.toOpaque())
                listeners.append(ListeningDaemon(daemon: daemon, subject: socket.subject))
            }
        } catch {
            // Sockets not handed to a daemon close as `sockets` goes; the daemons' are closed exactly once, in `stop`.
            for listener in listeners { Self.stop(listener, reclaimed: Self.quiesce(listener)) }
            core.deadlines?.stop()
            retained.release()
            throw error
        }
        self.addresses = addresses
        connectionLimit = configuration.connectionLimit
        self.core = core
        self.state = Mutex(State(listeners: listeners, core: retained))
    }

    deinit {
        guard let listeners = beginStop() else { return }
        core.abandonSuspendedRequests()
        finishStop(listeners)
    }

    /// Stops gracefully: stops accepting, lets requests in flight finish for up to `gracePeriod`, then
    /// answers 503 to any still running and closes everything. Later calls return at once.
    package func stop(gracePeriod: Duration = .seconds(10)) async {
        guard let listeners = beginStop() else { return }
        await core.waitForNoLiveRequests(within: gracePeriod)
        core.abandonSuspendedRequests()
        // Give the 503s a moment to be written: MHD_stop_daemon closes connections without flushing them.
        await core.waitForNoLiveRequests(within: .seconds(1))
        finishStop(listeners)
    }

    /// The number of requests received and not yet completed (for tests and readiness).
    var requestsInFlight: Int { core.liveRequests.load(ordering: .relaxed) }

    /// Quiesces every daemon and shuts its socket so new connections are refused; nil when already stopping.
    ///
    /// Returns each listener with its socket when quiescing gave it back, which decides who closes the socket.
    private func beginStop() -> [(listener: ListeningDaemon, reclaimed: FileDescriptor?)]? {
        let listeners = state.withLock { state -> [ListeningDaemon]? in
            guard !state.stopping else { return nil }
            state.stopping = true
            return state.listeners
        }
        guard let listeners else { return nil }
        core.draining.store(true, ordering: .relaxed)
        return listeners.map { listener in
            let reclaimed = Self.quiesce(listener)
            // Why shutdown: the kernel would otherwise keep completing handshakes into the backlog of a
            // socket nobody accepts from; on Linux, shutdown of a listening socket refuses them instead.
            _ = try? reclaimed?.call("shutdown") { shutdown($0, Int32(SHUT_RDWR)) }
            return (listener, reclaimed)
        }
    }

    /// Stops `listener`'s daemon accepting; its listening socket, which MHD then hands back, or nil.
    ///
    /// A quiesced socket is ours again: MHD will not close it, and its threads may still hold the descriptor until
    /// MHD_stop_daemon, so it is closed only then (microhttpd.h, MHD_quiesce_daemon).
    private static func quiesce(_ listener: ListeningDaemon) -> FileDescriptor? {
        let number = MHD_quiesce_daemon(listener.daemon)
        return number >= 0 ? FileDescriptor(owning: number, subject: listener.subject) : nil
    }

    /// Stops the daemons once nothing is suspended, closes the sockets and releases the callback context.
    private func finishStop(_ listeners: [(listener: ListeningDaemon, reclaimed: FileDescriptor?)]) {
        // Only handler tasks between settling and leaving the registry remain: a few instructions each.
        core.waitForNoSuspendedRequests(within: .seconds(2))
        for (listener, reclaimed) in listeners { Self.stop(listener, reclaimed: reclaimed) }
        core.deadlines?.stop()
        state.withLock { state in
            state.core?.release()
            state.core = nil
            state.listeners = []
        }
    }

    /// Stops `listener`'s daemon and makes sure its socket is closed exactly once.
    ///
    /// Why it matters: a second close of a recycled descriptor number closes whatever another thread opened
    /// meanwhile, e.g. another server's epoll or eventfd descriptor, which silently stalls that server.
    private static func stop(_ listener: ListeningDaemon, reclaimed: FileDescriptor?) {
        MHD_stop_daemon(listener.daemon)
        // MHD_stop_daemon closed the socket itself unless quiescing handed it back (microhttpd.h, MHD_quiesce_daemon).
        try? reclaimed?.close()
    }

    /// Descriptors the rest of the process may need beside the connections: the store, outbound HTTP, logs, and
    /// MHD's own epoll and wake-up descriptors per thread.
    static let reservedDescriptors = 128
    /// Fewer connections per listening socket than this is a misconfiguration, not a limit.
    static let minimumConnectionLimit = 16

    /// `requested` connections per listening socket, lowered to what the soft descriptor limit allows for `listeners`
    /// sockets beside `reservedDescriptors`.
    ///
    /// Why: past the descriptor limit `accept` fails with EMFILE and libmicrohttpd stops accepting, so new clients
    /// wait in the backlog while the slow ones hold every descriptor (getrlimit(2), accept(2)). The systemd unit sets
    /// `LimitNOFILE=` for the default 1,024 per socket.
    static func connectionLimit(_ requested: Int, listeners: Int) throws(HTTPServerError) -> Int {
        var limit = rlimit()
        try HTTPServerError.converting { () throws(SystemCallError) in
            try SystemCall.run("getrlimit(RLIMIT_NOFILE)", subject: "") {
                getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
            }
        }
        // RLIM_INFINITY is all ones (getrlimit(2)).
        let soft = limit.rlim_cur == rlim_t.max ? Int.max : Int(clamping: limit.rlim_cur)
        let room = (soft - reservedDescriptors) / max(1, listeners)
        guard room >= min(requested, minimumConnectionLimit) else {
            throw HTTPServerError(
                operation: "getrlimit(RLIMIT_NOFILE)", subject: "\(listeners) listening socket(s)",
                detail: "the descriptor limit \(soft) leaves room for \(max(0, room)) connections per socket after "
                    + "\(reservedDescriptors) for the rest of the process; raise it (LimitNOFILE= in the unit, ulimit -n) "
                    + "to at least \(reservedDescriptors + listeners * requested)")
        }
        return min(requested, room)
    }

    private static func startDaemon(
        socket: FileDescriptor, configuration: HTTPServerConfiguration, context: UnsafeMutableRawPointer
    ) throws(HTTPServerError) -> OpaquePointer {
        let identity = SocketIdentity(socket)
        // The explicit hand-over: a started daemon owns the socket (MHD_OPTION_LISTEN_SOCKET).
        guard let fd = socket.relinquish() else {
            throw HTTPServerError(
                operation: "MHD_start_daemon", subject: socket.subject, detail: "the socket is closed")
        }
        var options = daemonOptions(listeningOn: fd, configuration: configuration, context: context)
        guard let daemon = shim_mhd_start_daemon(&options) else {
            // MHD_start_daemon reports no reason; errno is usually left by the failing call inside it.
            let failure = HTTPServerError.systemCall("MHD_start_daemon", subject: "fd \(fd)")
            // Why compare: when MHD_start_daemon fails it has closed the MHD_OPTION_LISTEN_SOCKET socket on some
            // paths (worker thread, ITC or mutex setup) and not on others (option checks, a single daemon's epoll
            // setup) (libmicrohttpd 0.9.75 daemon.c). The number may already be someone else's descriptor, so it
            // is taken back and closed only while it still is this socket: an open descriptor's number cannot be
            // reused.
            let returned = FileDescriptor(owning: fd, subject: socket.subject)
            if let identity, SocketIdentity(returned) == identity {
                try? returned.close()
            } else {
                _ = returned.relinquish()
            }
            throw failure
        }
        return daemon
    }

    /// The daemon's options: the listening socket `fd`, the configured limits and the callbacks into `context`.
    private static func daemonOptions(
        listeningOn fd: Int32, configuration: HTTPServerConfiguration, context: UnsafeMutableRawPointer
    ) -> shim_mhd_daemon_config {
        var options = shim_mhd_daemon_config()
        options.flags =
            MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
        options.listen_fd = fd
        options.thread_pool_size = UInt32(clamping: configuration.threadPoolSize)
        options.connection_limit = UInt32(clamping: configuration.connectionLimit)
        options.per_ip_connection_limit = UInt32(clamping: configuration.perIPConnectionLimit)
        options.connection_timeout_seconds = UInt32(clamping: configuration.connectionTimeoutSeconds)
        // Why four times the header limit: the pool holds MHD's read buffer (the raw header block), a copy of the
        // `Cookie` field, one entry per parsed field and cookie, and the response head; when it runs out MHD answers
        // its own 431 (a `Cookie` field it cannot copy gets that status line twice) or 414, or, while splitting a
        // `Cookie` field into cookies, closes without an answer — all before the access handler could answer
        // (microhttpd.h, MHD_OPTION_CONNECTION_MEMORY_LIMIT; connection.c, parse_cookie_header). Measured with 0.9.75
        // and a 64 KiB limit: at a 128 KiB pool a 70 KB `Cookie` field got MHD's doubled 431, 1,800 cookies `a=1` no
        // answer and a 140 KB request line MHD's 414; at 256 KiB all three reach the handler (BENCHMARKS.md).
        options.connection_memory_limit =
            configuration.connectionMemoryBytes ?? max(32 * 1024, 4 * configuration.maxHeaderBytes)
        // Why 0, not strict: at 1, MHD 0.9.75 answers an HTTP/1.1 request without `Host` itself (its 400, status line
        // twice, without the refusal headers) and closes a connection whose request target holds a space without an
        // answer (connection.c, parse_connection_headers and parse_initial_message_line). At 0 both reach the access
        // handler, which refuses them (HTTP-API.md §3.5); 0 and 1 differ in nothing else in 0.9.75. MHD still accepts
        // whitespace in header names, repeated `Content-Length` and `Host`, and `Content-Length` with
        // `Transfer-Encoding`: the access handler refuses those too.
        options.strict_for_client = 0
        options.access_handler = { cls, connection, _, method, version, uploadData, uploadSize, requestContext in
            guard let cls, let connection, let method, let uploadSize, let requestContext else { return shim_mhd_no }
            return Unmanaged<HTTPListenerCore>.fromOpaque(cls).takeUnretainedValue().access(
                connection: connection, method: method, version: version, uploadSize: uploadSize,
                uploadData: uploadData, requestContext: requestContext)
        }
        options.access_handler_context = context
        options.uri_log = { cls, uri, connection in
            guard let cls, let connection else { return nil }
            return Unmanaged<HTTPListenerCore>.fromOpaque(cls).takeUnretainedValue().requestStarted(
                uri: uri, connection: connection)
        }
        options.uri_log_context = context
        options.request_completed = { cls, connection, requestContext, _ in
            guard let cls, let requestContext else { return }
            Unmanaged<HTTPListenerCore>.fromOpaque(cls).takeUnretainedValue().requestCompleted(
                requestContext, connection: connection)
        }
        options.request_completed_context = context
        options.connection_notify = { cls, connection, _, code in
            guard let cls else { return }
            let core = Unmanaged<HTTPListenerCore>.fromOpaque(cls).takeUnretainedValue()
            switch code {
            case .CONNECTION_NOTIFY_STARTED: if let connection { core.connectionStarted(connection) }
            case .CONNECTION_NOTIFY_CLOSED: core.connectionClosed(connection)
            default: break
            }
        }
        options.connection_notify_context = context
        return options
    }
}

/// What an open descriptor refers to: the device and inode `fstat` reports, unique among open sockets.
private struct SocketIdentity: Equatable {
    let device: UInt64
    let inode: UInt64

    /// The identity of the socket `descriptor` names now; nil when it is not open.
    init?(_ descriptor: FileDescriptor) {
        guard let status = try? descriptor.status() else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }
}
