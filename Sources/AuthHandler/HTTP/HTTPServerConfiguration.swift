/// Limits and tuning of `HTTPServer`; the defaults suit a sign-in handler facing browsers.
public struct HTTPServerConfiguration: Sendable {
    /// The most bytes the request line plus header fields may take; larger requests get 431.
    public var maxHeaderBytes: Int
    /// The most body bytes accepted; larger bodies get 413 and are not buffered.
    public var maxBodyBytes: Int
    /// The most simultaneous connections per listening socket.
    public var connectionLimit: Int
    /// Seconds an idle or stalled connection is kept open.
    public var connectionTimeoutSeconds: Int
    /// MHD worker threads per listening socket (they only parse and write; handlers run as Swift tasks).
    public var threadPoolSize: Int
    /// The `listen(2)` backlog for sockets the server binds itself.
    public var listenBacklog: Int32

    public init(
        maxHeaderBytes: Int = 16 * 1024, maxBodyBytes: Int = 64 * 1024, connectionLimit: Int = 1024,
        connectionTimeoutSeconds: Int = 30, threadPoolSize: Int = 2, listenBacklog: Int32 = 511
    ) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxBodyBytes = maxBodyBytes
        self.connectionLimit = connectionLimit
        self.connectionTimeoutSeconds = connectionTimeoutSeconds
        self.threadPoolSize = threadPoolSize
        self.listenBacklog = listenBacklog
    }
}
