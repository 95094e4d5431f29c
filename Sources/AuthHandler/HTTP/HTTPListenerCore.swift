import CMicroHTTPD
import CShims
import Dispatch
import Synchronization

/// An async request handler: it may suspend as long as it likes without holding an MHD thread.
public typealias HTTPServerHandler = @Sendable (ServerRequest) async -> ServerResponse

/// A synchronous first try at a complete request, run on the MHD thread that received it: the response to send at
/// once, or nil to decline, and the request goes to the `HTTPServerHandler` as usual.
///
/// Why: an answer that needs no waiting (health, metrics, a start whose provider metadata is cached) would otherwise
/// pay for suspending the connection, a task and resuming it, 6–7 system calls and two thread wake-ups per request
/// (docs/ARCHITECTURE.md "Request path"). It must not block: while it runs, the thread serves no other connection.
public typealias HTTPServerImmediateHandler = @Sendable (ServerRequest) -> ServerResponse?

/// The object behind MHD's callback context pointer: turns MHD callbacks into Swift handler tasks.
///
/// `@unchecked Sendable`: its stored properties are immutable, atomics, or behind `registry`'s mutex; MHD calls
/// it from its worker threads and handler tasks call it from the Swift pool.
final class HTTPListenerCore: @unchecked Sendable {
    /// Handler tasks whose MHD connection is suspended, keyed by their request context.
    private struct Registry {
        var suspended: [ObjectIdentifier: HTTPRequestContext] = [:]
        var tasks: [ObjectIdentifier: Task<Void, Never>] = [:]
        /// Set once stopping gives up on in-flight work: nothing may be suspended any more.
        var closed = false
        /// Signalled when `suspended` becomes empty, while a stop waits for it.
        var emptied: DispatchSemaphore?

        /// Forgets the handler task of `key`; the semaphore to signal when that emptied `suspended` for a waiter.
        mutating func remove(_ key: ObjectIdentifier) -> DispatchSemaphore? {
            suspended[key] = nil
            tasks[key] = nil
            guard suspended.isEmpty, let emptied else { return nil }
            self.emptied = nil
            return emptied
        }
    }

    /// Stops waiting for `liveRequests` to reach 0: each resumed when it does, or when its time is up.
    private struct IdleWaiters {
        var nextKey = 0
        var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
        /// Waiters whose time ran out before they were registered.
        var expired: Set<Int> = []
    }

    let handler: HTTPServerHandler
    let immediate: HTTPServerImmediateHandler?
    let configuration: HTTPServerConfiguration
    private let registry = Mutex(Registry())
    private let idleWaiters = Mutex(IdleWaiters())
    /// Requests between MHD's URI-log callback and their end (completion callback or connection close).
    let liveRequests = Atomic<Int>(0)
    /// The context `requestStarted` retained for each connection's current request, until it is released.
    ///
    /// Why kept here too: MHD calls NOTIFY_COMPLETED only for a request whose access handler ran. One it drops before
    /// that, closing the connection without an answer (a `Cookie` field its pool cannot split, HTTP-API.md §3.5), was
    /// never released: a leaked context per such request, and counted in `liveRequests` forever, so every graceful
    /// stop waited out its whole grace period. The connection's close releases whatever is left.
    private let retainedRequests = Mutex<[UInt: Unmanaged<HTTPRequestContext>]>([:])
    /// Whether responses should carry `Connection: close` because the server is stopping.
    let draining = Atomic<Bool>(false)
    /// The request deadline of every connection; nil when `requestDeadlineSeconds` is 0.
    let deadlines: HTTPReceiveDeadlines?

    init(
        handler: @escaping HTTPServerHandler, immediate: HTTPServerImmediateHandler?,
        configuration: HTTPServerConfiguration
    ) {
        self.handler = handler
        self.immediate = immediate
        self.configuration = configuration
        deadlines =
            configuration.requestDeadlineSeconds > 0
            ? HTTPReceiveDeadlines(
                seconds: configuration.requestDeadlineSeconds, idleSeconds: configuration.connectionTimeoutSeconds)
            : nil
    }

    /// Returns once no request is in flight (`liveRequests` is 0), or when `limit` has passed.
    ///
    /// An event, not a poll: `requestCompleted` resumes the waiters when the count reaches 0.
    func waitForNoLiveRequests(within limit: Duration) async {
        let key = idleWaiters.withLock { waiters in
            waiters.nextKey += 1
            return waiters.nextKey
        }
        let timer = Task {
            guard (try? await Task.sleep(for: limit)) != nil else { return }
            self.expireIdleWaiter(key)
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = idleWaiters.withLock { waiters in
                guard waiters.expired.remove(key) == nil, liveRequests.load(ordering: .relaxed) > 0 else { return true }
                waiters.waiting[key] = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
        timer.cancel()
        await timer.value
        idleWaiters.withLock { _ = $0.expired.remove(key) }
    }

    private func expireIdleWaiter(_ key: Int) {
        let continuation = idleWaiters.withLock { waiters in
            guard let continuation = waiters.waiting.removeValue(forKey: key) else {
                waiters.expired.insert(key)
                return nil as CheckedContinuation<Void, Never>?
            }
            return continuation
        }
        continuation?.resume()
    }

    /// Blocks until no handler task holds a suspended connection, or for at most `limit`.
    ///
    /// Synchronous because `HTTPServer.deinit` stops too; a semaphore that the last task leaving the registry
    /// signals, not a busy wait.
    func waitForNoSuspendedRequests(within limit: Duration) {
        let emptied = DispatchSemaphore(value: 0)
        let mustWait = registry.withLock { registry in
            guard !registry.suspended.isEmpty else { return false }
            registry.emptied = emptied
            return true
        }
        guard mustWait else { return }
        let (seconds, attoseconds) = limit.components
        let nanoseconds = Int(clamping: seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        _ = emptied.wait(timeout: .now() + .nanoseconds(nanoseconds))
        registry.withLock { registry in
            if registry.emptied === emptied { registry.emptied = nil }
        }
    }

    // MARK: MHD callbacks (on MHD worker threads)

    /// MHD_OPTION_URI_LOG_CALLBACK: the first callback of every request, with the raw request target.
    ///
    /// Why here: MHD unescapes the path and splits off the query before the access handler sees it; this is
    /// the only place the raw query string is available. The context returned becomes `*req_cls`.
    func requestStarted(uri: UnsafePointer<CChar>?, connection: OpaquePointer) -> UnsafeMutableRawPointer {
        deadlines?.requestLineArrived(connection)
        let rawURI = uri.flatMap { String(validatingCString: $0) }
        let context = Unmanaged.passRetained(HTTPRequestContext(rawURI: rawURI, connection: connection))
        liveRequests.add(1, ordering: .relaxed)
        retainedRequests.withLock { $0[UInt(bitPattern: connection)] = context }
        return context.toOpaque()
    }

    /// MHD_OPTION_NOTIFY_COMPLETED: releases the context retained in `requestStarted`.
    func requestCompleted(
        _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>, connection: OpaquePointer?
    ) {
        guard let raw = requestContext.pointee else { return }
        requestContext.pointee = nil
        if let connection { deadlines?.answered(connection) }
        let key = UInt(bitPattern: connection)
        let owned = retainedRequests.withLock { retained -> Bool in
            guard retained[key]?.toOpaque() == raw else { return false }
            retained[key] = nil
            return true
        }
        if owned { release(Unmanaged<HTTPRequestContext>.fromOpaque(raw)) }
    }

    /// MHD_OPTION_NOTIFY_CONNECTION, on accept: the connection's first request is due (`requestDeadlineSeconds`).
    func connectionStarted(_ connection: OpaquePointer) {
        deadlines?.connectionStarted(connection, socket: shim_mhd_connection_fd(connection))
    }

    /// MHD_OPTION_NOTIFY_CONNECTION, on close: releases a request context MHD never completed.
    func connectionClosed(_ connection: OpaquePointer?) {
        if let connection { deadlines?.connectionClosed(connection) }
        let key = UInt(bitPattern: connection)
        if let leftover = retainedRequests.withLock({ $0.removeValue(forKey: key) }) { release(leftover) }
    }

    /// Releases a retained request context; the last request to end wakes every stop waiting for idleness.
    private func release(_ context: Unmanaged<HTTPRequestContext>) {
        context.release()
        if liveRequests.subtract(1, ordering: .relaxed).newValue == 0 {
            let waiting = idleWaiters.withLock { waiters in
                defer { waiters.waiting = [:] }
                return Array(waiters.waiting.values)
            }
            for continuation in waiting { continuation.resume() }
        }
    }

    /// The MHD access handler, called several times per request (headers, each body chunk, final, resumed).
    func access(
        connection: OpaquePointer, method: UnsafePointer<CChar>, version: UnsafePointer<CChar>?,
        uploadSize: UnsafeMutablePointer<Int>, uploadData: UnsafePointer<CChar>?,
        requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let raw = requestContext.pointee else { return shim_mhd_no }
        let context = Unmanaged<HTTPRequestContext>.fromOpaque(raw).takeUnretainedValue()
        switch context.stage {
        case .headers:
            context.stage = .body
            return headersArrived(context, connection: connection, method: method, version: version)
        case .body:
            return bodyArrived(
                context, connection: connection, method: method, uploadSize: uploadSize, uploadData: uploadData)
        case .suspended:
            let response: ServerResponse =
                context.outcome.withLock { outcome in
                    switch outcome {
                    case .finished(let response), .abandoned(let response): response
                    case .running: nil
                    }
                } ?? ownText("Internal Server Error\n", status: 500)
            context.stage = .answered
            return queue(response, on: connection)
        case .answered:
            uploadSize.pointee = 0
            return shim_mhd_yes
        }
    }

    /// The first call of a request: its header block is complete; checks it, and refuses it early if need be.
    private func headersArrived(
        _ context: HTTPRequestContext, connection: OpaquePointer, method: UnsafePointer<CChar>,
        version: UnsafePointer<CChar>?
    ) -> MHD_Result {
        // Why not answer now: queuing on the first call makes MHD close the connection afterwards
        // (`Connection: close`, so every request would pay a new TCP connection; docs/ARCHITECTURE.md).
        // Only framing refusals and refusals of a request with a body are queued early.
        context.headers = Self.headers(of: connection)
        let isHTTP10 = version.map { String(cString: $0) == MHD_HTTP_VERSION_1_0 } ?? false
        if let refusal = Self.targetRefusal(context.rawURI, limit: configuration.maxHeaderBytes) {
            context.stage = .answered
            return queue(ownResponse(refusal), on: connection)
        }
        if let refusal = Self.framingRefusal(context.headers, isHTTP10: isHTTP10) {
            // Queued on this first call, before MHD reads any body: with `Connection: close` MHD sends it
            // and closes, so bytes after the head are never parsed as another request (RFC 9112 §6.3).
            context.stage = .answered
            return queue(ownResponse(refusal), on: connection)
        }
        if let refusal = Self.hostRefusal(context.headers, isHTTP10: isHTTP10) {
            // Closing, like the framing refusals: a request without a usable Host may be a fragment of another.
            context.stage = .answered
            return queue(ownResponse(Self.closing(refusal)), on: connection)
        }
        let methodText = String(cString: method)
        if headerBytes(method: methodText, context: context) > configuration.maxHeaderBytes {
            return reject(context, ownText("Request header fields too large\n", status: 431))
        }
        if let length = context.headers["Content-Length"].flatMap({ Int($0) }), length > configuration.maxBodyBytes {
            return reject(context, ownText("Request body too large\n", status: 413))
        }
        return shim_mhd_yes
    }

    /// A later call: a chunk of the body (`uploadSize` > 0), or the final call, which runs the handler.
    private func bodyArrived(
        _ context: HTTPRequestContext, connection: OpaquePointer, method: UnsafePointer<CChar>,
        uploadSize: UnsafeMutablePointer<Int>, uploadData: UnsafePointer<CChar>?
    ) -> MHD_Result {
        let size = uploadSize.pointee
        if size > 0 {
            uploadSize.pointee = 0
            if context.pendingRejection != nil {
                context.discardedBytes += size
                // Draining a refused body keeps the connection usable; past this, close it instead.
                return context.discardedBytes > 4 * configuration.maxBodyBytes ? shim_mhd_no : shim_mhd_yes
            }
            guard context.body.count + size <= configuration.maxBodyBytes, let uploadData else {
                context.body = []
                return reject(context, ownText("Request body too large\n", status: 413))
            }
            uploadData.withMemoryRebound(to: UInt8.self, capacity: size) {
                context.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: size))
            }
            return shim_mhd_yes
        }
        // The final call: the whole request has arrived, so its deadline no longer applies.
        deadlines?.requestReceived(connection)
        if let rejection = context.pendingRejection {
            context.stage = .answered
            return queue(rejection, on: connection)
        }
        switch makeRequest(method: String(cString: method), context: context) {
        case .request(let request):
            if let immediate, let response = immediate(request) {
                context.stage = .answered
                return queue(response, on: connection)
            }
            return run(request, context: context)
        case .refused(let refusal):
            context.stage = .answered
            return queue(refusal, on: connection)
        }
    }

    // MARK: Handler tasks

    /// Suspends the connection and runs the handler as a task that resumes it when done.
    private func run(_ request: ServerRequest, context: HTTPRequestContext) -> MHD_Result {
        let key = ObjectIdentifier(context)
        let admitted = registry.withLock { registry in
            guard !registry.closed else { return false }
            registry.suspended[key] = context
            return true
        }
        guard admitted else {
            context.stage = .answered
            return queue(ownText("Service Unavailable: shutting down\n", status: 503), on: context.connection)
        }
        context.stage = .suspended
        MHD_suspend_connection(context.connection)
        let handler = self.handler
        // Why .high: a client is waiting on an open connection. A task started from an MHD thread otherwise gets
        // the default priority and queues behind whatever else the process runs there; parallel tests generating
        // RSA keys synchronously held both default-priority threads of a 2-core machine for over 30 s, and every
        // request waited (curl: "timed out after 30000 milliseconds with 0 bytes received"). On Linux each task
        // priority is served by its own libdispatch global queue and threads, so handlers are not stuck behind
        // default-priority work; actor hops inside a handler keep its priority. Measured in HTTPStressTests.
        let task = Task(priority: .high) {
            let response = await handler(request)
            self.finish(context, outcome: .finished(response))
        }
        registry.withLock { registry in
            if registry.suspended[key] != nil { registry.tasks[key] = task }
        }
        return shim_mhd_yes
    }

    /// Records the outcome and resumes the connection, unless another party already did.
    private func finish(_ context: HTTPRequestContext, outcome: HTTPRequestContext.Outcome) {
        guard context.settle(outcome) else { return }
        MHD_resume_connection(context.connection)
        // Removed only after MHD_resume_connection returned, so an empty registry means no resume is running.
        registry.withLock { $0.remove(ObjectIdentifier(context)) }?.signal()
    }

    /// Refuses new suspensions, then answers 503 to every suspended request and cancels its handler.
    ///
    /// Why: MHD_stop_daemon panics when a connection is still suspended (libmicrohttpd daemon.c,
    /// "MHD_stop_daemon() called while we have suspended connections").
    func abandonSuspendedRequests() {
        let (contexts, tasks) = registry.withLock { registry in
            registry.closed = true
            return (registry.suspended, registry.tasks)
        }
        for (key, context) in contexts {
            let unavailable = ownText("Service Unavailable: shutting down\n", status: 503)
            guard context.settle(.abandoned(unavailable)) else { continue }
            tasks[key]?.cancel()
            MHD_resume_connection(context.connection)
            registry.withLock { $0.remove(key) }?.signal()
        }
    }

    // MARK: Building requests and responses

    /// Refuses a request: queued at once when body bytes are pending (MHD then skips them and closes),
    /// otherwise on the final call so the connection stays alive.
    private func reject(_ context: HTTPRequestContext, _ response: ServerResponse) -> MHD_Result {
        if context.headers["Content-Length"].map({ $0 != "0" }) ?? (context.headers["Transfer-Encoding"] != nil) {
            if queue(response, on: context.connection) == shim_mhd_yes {
                context.stage = .answered
                return shim_mhd_yes
            }
            // Why the fallback: MHD 0.9.75 accepts a response only before the body is read or after all of
            // it (MHD_queue_response checks the connection state); mid-body, discard the rest and answer then.
        }
        context.pendingRejection = response
        return shim_mhd_yes
    }

    /// A parsed request, or the response refusing it.
    private enum Parsed {
        case request(ServerRequest)
        case refused(ServerResponse)
    }

    private func makeRequest(method: String, context: HTTPRequestContext) -> Parsed {
        guard let rawURI = context.rawURI else {
            return .refused(ownText("Bad Request: the request target is not valid UTF-8\n", status: 400))
        }
        let path: Substring
        let rawQuery: Substring
        if let question = rawURI.firstIndex(of: "?") {
            path = rawURI[..<question]
            rawQuery = rawURI[rawURI.index(after: question)...]
        } else {
            path = rawURI[...]
            rawQuery = ""
        }
        let queryItems: [URLFormField]
        do {
            queryItems = try FormURLEncoding.decode(String(rawQuery))
        } catch {
            return .refused(ownText("Bad Request: query string: \(error)\n", status: 400))
        }
        var formFields: [URLFormField] = []
        if ServerRequest.isFormURLEncoded(contentType: context.headers["Content-Type"]) {
            do {
                formFields = try FormURLEncoding.decode(bytes: context.body)
            } catch {
                return .refused(ownText("Bad Request: form body: \(error)\n", status: 400))
            }
        }
        let remote = shim_mhd_connection_client_address(context.connection).flatMap {
            HTTPSocketAddress.describe(UnsafeRawPointer($0))?.description
        }
        return .request(
            ServerRequest(
                method: method, path: String(path), rawQuery: String(rawQuery), queryItems: queryItems,
                headers: context.headers, body: context.body, formFields: formFields, remoteAddress: remote))
    }

    /// The refusal of a request whose body length two parsers could disagree on; it closes the connection.
    ///
    /// MHD 0.9.75 itself refuses a single malformed `Content-Length` (400) or one past its range (413) before
    /// the access handler runs; what it lets through is handled here (RFC 9112 §6.1, §6.3).
    static func framingRefusal(_ headers: HTTPHeaders, isHTTP10: Bool) -> ServerResponse? {
        if headers.contains(where: { $0.name.utf8.contains { $0 <= 0x20 || $0 == 0x7f } }) {
            // RFC 9112 §5.1: whitespace before the colon must be refused (400). MHD keeps it in the name, so
            // "Transfer-Encoding : chunked" is no framing header here but may be one to a front end that trims it.
            // A control character is no token character either (RFC 9110 §5.1); MHD refuses a NUL itself.
            return closing(
                .text("Bad Request: whitespace or a control character in a header field name\n", status: 400))
        }
        if headers.contains(where: { $0.value.utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7f } }) {
            // RFC 9110 §5.5 / RFC 9112 §2.2: a bare CR (or another control) in a field value; a front end that ends
            // lines at CR would read a different header block (MHD keeps the CR in the value). A NUL cannot be seen
            // here: MHD hands fields over as C strings, so the value ends at it (HTTP-API.md §3.5).
            return closing(.text("Bad Request: a control character in a header field value\n", status: 400))
        }
        let codings = headers.values(for: "Transfer-Encoding")
        let lengths = headers.values(for: "Content-Length")
        if !codings.isEmpty, !lengths.isEmpty {
            // RFC 9112 §6.3 item 3: MHD would let Transfer-Encoding win; a front end may have used the length.
            return closing(.text("Bad Request: both Content-Length and Transfer-Encoding\n", status: 400))
        }
        if !codings.isEmpty, isHTTP10 {
            // RFC 9112 §6.1: Transfer-Encoding in an HTTP/1.0 message means faulty framing.
            return closing(.text("Bad Request: Transfer-Encoding in an HTTP/1.0 request\n", status: 400))
        }
        if !codings.isEmpty, codings.count > 1 || codings[0].lowercased() != "chunked" {
            // Only chunked alone is framed by MHD; anything else would leave it waiting for a body it cannot delimit
            // until the idle timeout. RFC 9112 §6.3 item 4: when chunked is not the final coding the body length
            // cannot be determined, and §6.1: chunked is applied once at most — 400 and close. Chunked last after
            // another coding (`gzip, chunked`) is framed, but that coding is not implemented: 501 (RFC 9112 §6.1).
            let names = codings.flatMap { $0.split(separator: ",") }.map {
                String($0.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
                    .lowercased()
            }
            guard names.last == "chunked", names.filter({ $0 == "chunked" }).count == 1 else {
                return closing(
                    .text("Bad Request: Transfer-Encoding must end in chunked, applied once\n", status: 400))
            }
            return closing(.text("Not Implemented: only Transfer-Encoding: chunked is supported\n", status: 501))
        }
        if lengths.count > 1 || lengths.contains(where: { $0.utf8.contains(UInt8(ascii: ",")) }) {
            // RFC 9110 §8.6 lets a recipient accept repeated equal values; MHD uses the first of any, so refuse all.
            return closing(.text("Bad Request: more than one Content-Length\n", status: 400))
        }
        if let length = lengths.first, length.isEmpty || !length.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            // RFC 9110 §8.6: Content-Length = 1*DIGIT.
            return closing(.text("Bad Request: invalid Content-Length\n", status: 400))
        }
        return nil
    }

    /// The refusal of a request target that is too long or not one token; it closes the connection.
    ///
    /// RFC 9112 §3.2: the target holds no whitespace or control character. MHD, told not to be strict, takes
    /// everything between the method and the last space as the target, so `GET /a b HTTP/1.1` arrives as `/a b`;
    /// a front end may have split that line differently, hence the close. Longer than the whole header limit: 414
    /// (RFC 9110 §15.5.15).
    static func targetRefusal(_ rawURI: String?, limit: Int) -> ServerResponse? {
        guard let rawURI else { return nil }
        if rawURI.utf8.count > limit {
            return closing(.text("URI Too Long: the request target is over \(limit) bytes\n", status: 414))
        }
        if rawURI.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7f }) {
            return closing(.text("Bad Request: whitespace or a control character in the request target\n", status: 400))
        }
        return nil
    }

    /// The refusal of a request without exactly one valid `Host` (RFC 9112 §3.2); nil when it is fine.
    static func hostRefusal(_ headers: HTTPHeaders, isHTTP10: Bool) -> ServerResponse? {
        let hosts = headers.values(for: "Host")
        switch hosts.count {
        case 0 where isHTTP10:
            return nil
        case 0:
            return .text("Bad Request: an HTTP/1.1 request needs a Host header\n", status: 400)
        case 1 where isValidHost(hosts[0]):
            return nil
        case 1:
            return .text("Bad Request: invalid Host header\n", status: 400)
        default:
            return .text("Bad Request: more than one Host header\n", status: 400)
        }
    }

    /// Whether `value` is `uri-host [ ":" port ]` (RFC 9110 §7.2, RFC 3986 §3.2.2–3.2.3) with a non-empty host.
    ///
    /// The empty host RFC 9112 §3.2 allows is for targets without an authority, which this server never has.
    static func isValidHost(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        var index = 0
        // unreserved / sub-delims (RFC 3986 §2.2–2.3); "%" is checked separately as pct-encoded.
        let isNameByte = { (byte: UInt8) in RFC3986.isUnreserved(byte) || "!$&'()*+,;=".utf8.contains(byte) }
        let isHex = { (byte: UInt8) in RFC3986.hexValue(byte) != nil }
        if bytes.first == UInt8(ascii: "[") {
            // IP-literal: IPv6address or IPvFuture, whose characters are all name bytes or ":".
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")), close > 1,
                bytes[1..<close].allSatisfy({ isNameByte($0) || $0 == UInt8(ascii: ":") })
            else { return false }
            index = close + 1
        } else {
            // reg-name = *( unreserved / pct-encoded / sub-delims ), here at least one character.
            while index < bytes.count, bytes[index] != UInt8(ascii: ":") {
                if bytes[index] == UInt8(ascii: "%") {
                    guard index + 2 < bytes.count, isHex(bytes[index + 1]), isHex(bytes[index + 2]) else {
                        return false
                    }
                    index += 3
                } else {
                    guard isNameByte(bytes[index]) else { return false }
                    index += 1
                }
            }
            guard index > 0 else { return false }
        }
        guard index < bytes.count else { return true }
        // port = *DIGIT after ":".
        guard bytes[index] == UInt8(ascii: ":") else { return false }
        return bytes[(index + 1)...].allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// A plain-text response this server sends on its own, with the configured refusal headers.
    private func ownText(_ text: String, status: Int) -> ServerResponse {
        ownResponse(.text(text, status: status))
    }

    /// `response` with the configured refusal headers, replacing any of the same names.
    private func ownResponse(_ response: ServerResponse) -> ServerResponse {
        var response = response
        for field in configuration.refusalHeaders { response.headers.set(name: field.name, value: field.value) }
        return response
    }

    /// `response` with `Connection: close`, which makes MHD close the connection once it is sent.
    static func closing(_ response: ServerResponse) -> ServerResponse {
        var response = response
        response.headers.set(name: "Connection", value: "close")
        return response
    }

    /// Bytes of the request line and header block as sent (`name: value\r\n` per field).
    private func headerBytes(method: String, context: HTTPRequestContext) -> Int {
        let requestLine = method.utf8.count + (context.rawURI?.utf8.count ?? 0) + " HTTP/1.1\r\n ".utf8.count
        return context.headers.reduce(requestLine) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
    }

    /// The request's header fields in order, as MHD parsed them.
    private static func headers(of connection: OpaquePointer) -> HTTPHeaders {
        var fields: [HTTPHeaders.Field] = []
        withUnsafeMutablePointer(to: &fields) { pointer in
            _ = MHD_get_connection_values(
                connection, .HEADER_KIND,
                { cls, _, key, value in
                    guard let cls, let key else { return shim_mhd_yes }
                    let fields = cls.assumingMemoryBound(to: [HTTPHeaders.Field].self)
                    fields.pointee.append(
                        HTTPHeaders.Field(name: String(cString: key), value: value.map { String(cString: $0) } ?? ""))
                    return shim_mhd_yes
                }, pointer)
        }
        return HTTPHeaders(fields)
    }

    /// Hands a response to MHD; an invalid header or status from a handler becomes a 500.
    private func queue(_ response: ServerResponse, on connection: OpaquePointer) -> MHD_Result {
        var status = response.status
        var built = makeMHDResponse(response)
        if built == nil {
            status = 500
            built = makeMHDResponse(ownText("Internal Server Error\n", status: 500))
        }
        guard let built else { return shim_mhd_no }
        defer { MHD_destroy_response(built) }
        return MHD_queue_response(connection, UInt32(status), built)
    }

    private func makeMHDResponse(_ response: ServerResponse) -> OpaquePointer? {
        guard (100...999).contains(response.status) else { return nil }
        let created = response.body.withUnsafeBytes { shim_mhd_create_response_copying($0.baseAddress, $0.count) }
        guard let created else { return nil }
        for field in response.headers {
            // MHD computes these itself and refuses application-supplied copies.
            let lowered = field.name.lowercased()
            if lowered == "content-length" || lowered == "transfer-encoding" { continue }
            // MHD 0.9.75 refuses an empty value (MHD_add_response_header returns MHD_NO); an empty field
            // carries nothing, so it is left out rather than turning the response into a 500.
            if field.value.isEmpty { continue }
            // MHD does not check for line breaks itself; a CR or LF would let a handler inject header lines.
            // Byte checks: String.contains(String) goes through Foundation's range(of:), measurable per response.
            guard !field.name.isEmpty, !field.name.utf8.contains(UInt8(ascii: ":")),
                !field.name.utf8.contains(UInt8(ascii: " ")),
                !HTTPHeaders.containsLineBreak(field.name), !HTTPHeaders.containsLineBreak(field.value)
            else {
                MHD_destroy_response(created)
                return nil
            }
            if MHD_add_response_header(created, field.name, field.value) != shim_mhd_yes {
                MHD_destroy_response(created)
                return nil
            }
        }
        if draining.load(ordering: .relaxed), response.headers["Connection"] == nil {
            _ = MHD_add_response_header(created, "Connection", "close")
        }
        return created
    }
}
