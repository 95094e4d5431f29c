/// Renders a refusal the listener sends on its own — its status, a plain-text message, the request's `Accept` (nil
/// when unknown) — as the service's error format (HTTP-API.md §3.5).
package typealias HTTPRefusalRenderer =
    @Sendable (_ status: Int, _ message: String, _ accept: String?) -> ServerResponse

/// Limits and tuning of `HTTPServer`; the defaults suit a sign-in handler facing browsers.
package struct HTTPServerConfiguration: Sendable {
    /// The most bytes the request line plus header fields may take; larger requests get 431 (a request target
    /// alone over it, 414).
    ///
    /// The default, 64 KiB, holds the ten pending sign-in cookies a browser keeps (1,536 bytes at most each,
    /// HTTP-API.md §3.1), twice over, beside a browser's other fields, in one `Cookie` field or in several.
    package var maxHeaderBytes: Int
    /// The most body bytes accepted; larger bodies get 413 and are not buffered.
    package var maxBodyBytes: Int
    /// The most simultaneous connections per listening socket; lowered at start to what the process's descriptor
    /// limit allows (`HTTPServer.connectionLimit`). Each one that has completed a request holds its memory pool
    /// (`connectionMemoryBytes`) in RAM.
    package var connectionLimit: Int
    /// The most simultaneous connections from one IP address per listening socket; 0 means no limit. Further
    /// connections from that address are closed as soon as they are accepted.
    ///
    /// The default, 256, is a sixteenth of the default `connectionLimit`, so a client needs more than a handful of
    /// addresses to fill the listener, and the request deadline frees what slow ones hold meanwhile
    /// (microhttpd.h, MHD_OPTION_PER_IP_CONNECTION_LIMIT). Behind a reverse proxy every connection comes from the
    /// proxy's address, so there it must stay above the proxy's connections to this server, or be 0.
    package var perIPConnectionLimit: Int
    /// Seconds a connection may stay silent — idle between requests, or stalled — before it is closed.
    package var connectionTimeoutSeconds: Int
    /// Seconds a client has to deliver a whole request, head and body, however it spaces its bytes; then the connection
    /// is closed. 0 turns the deadline off. A connection's first request counts from the accept, a later one from its
    /// request line (and at most `connectionTimeoutSeconds` plus this after the previous answer); while the handler
    /// runs and the answer is sent no deadline applies (`HTTPReceiveDeadlines`).
    package var requestDeadlineSeconds: Int
    /// Bytes of libmicrohttpd's per-connection memory pool (MHD_OPTION_CONNECTION_MEMORY_LIMIT); nil: four times
    /// `maxHeaderBytes`, at least 32 KiB.
    ///
    /// The pool holds the raw header block, one entry per parsed field and cookie, and the response head; a request
    /// that does not fit gets libmicrohttpd's own `431` or `414` instead of this server's (HTTP-API.md §3.5), so it
    /// must stay well above `maxHeaderBytes`: a `Cookie` field is held twice, and each cookie takes an entry. The cost: libmicrohttpd zeroes the whole pool between keep-alive requests
    /// (memorypool.c, MHD_pool_reset), which at 128 KiB is most of the listener's own CPU per request (BENCHMARKS.md).
    package var connectionMemoryBytes: Int?
    /// MHD worker threads per listening socket (they only parse and write; handlers run as Swift tasks).
    package var threadPoolSize: Int
    /// The `listen(2)` backlog for sockets the server binds itself.
    package var listenBacklog: Int32
    /// Header fields on every response the server builds itself, without calling the handler: its refusals
    /// (400, 413, 414, 431, 501, 503 while shutting down) and the 500 that replaces an invalid handler response.
    ///
    /// Responses MHD composes on its own (an HTTP version other than 1.x, a malformed `Content-Length` or chunk
    /// size, a request past its memory pool; HTTP-API.md §3.5) never reach this server's code and carry none of them.
    package var refusalHeaders: HTTPHeaders
    /// How the server's own refusals are written; nil: plain text. The refusal headers are added after it.
    package var refusalRenderer: HTTPRefusalRenderer?

    /// The default `maxHeaderBytes`, 64 KiB: ten 4,000-byte cookies (sealed sign-in states, one per sign-in in flight
    /// in a browser) beside a browser's other fields, in one `Cookie` field or in several. The memory pool follows
    /// it (`connectionMemoryBytes`).
    package static let defaultMaxHeaderBytes = 64 * 1024

    /// Fields for responses that must not be cached, framed, sniffed or leak a referrer: Cache-Control no-store
    /// (RFC 9111 §5.2.2.5), Referrer-Policy (W3C Referrer Policy §3.1), X-Frame-Options (RFC 7034),
    /// X-Content-Type-Options (Fetch §3.5) and a CSP under which nothing loads, runs or frames the response (CSP
    /// Level 3 §6.1.2): these responses are plain text. The service puts the same fields on every response it sends,
    /// its policy admitting the one stylesheet of its pages by hash.
    package static let defaultSecurityHeaders: HTTPHeaders = [
        "Cache-Control": "no-store",
        "Referrer-Policy": "no-referrer",
        "X-Frame-Options": "DENY",
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
    ]

    package init(
        maxHeaderBytes: Int = HTTPServerConfiguration.defaultMaxHeaderBytes, maxBodyBytes: Int = 64 * 1024,
        connectionLimit: Int = 4096,
        perIPConnectionLimit: Int = 256, connectionTimeoutSeconds: Int = 30, requestDeadlineSeconds: Int = 10,
        threadPoolSize: Int = 2,
        listenBacklog: Int32 = 511, connectionMemoryBytes: Int? = nil,
        refusalHeaders: HTTPHeaders = HTTPServerConfiguration.defaultSecurityHeaders
    ) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxBodyBytes = maxBodyBytes
        self.connectionLimit = connectionLimit
        self.perIPConnectionLimit = perIPConnectionLimit
        self.connectionTimeoutSeconds = connectionTimeoutSeconds
        self.requestDeadlineSeconds = requestDeadlineSeconds
        self.threadPoolSize = threadPoolSize
        self.listenBacklog = listenBacklog
        self.connectionMemoryBytes = connectionMemoryBytes
        self.refusalHeaders = refusalHeaders
        refusalRenderer = nil
    }
}
