import CHTTPShims
import CMicroHTTPD
import Dispatch
import Synchronization

/// An async request handler: it may suspend as long as it likes without holding an MHD thread.
package typealias HTTPServerHandler = @Sendable (ServerRequest) async -> ServerResponse

/// A synchronous first try at a complete request, run on the MHD thread that received it: the response to send at
/// once, or nil to decline, and the request goes to the `HTTPServerHandler` as usual.
///
/// Why: an answer that needs no waiting (health, metrics, a start whose provider metadata is cached) would otherwise
/// pay for suspending the connection, a task and resuming it, 6–7 system calls and two thread wake-ups per request
/// (docs/ARCHITECTURE.md "Request path"). It must not block: while it runs, the thread serves no other connection.
package typealias HTTPServerImmediateHandler = @Sendable (ServerRequest) -> ServerResponse?

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
    /// What the listener refuses and how its own answers look; MHD bridging stays here.
    let policy: HTTPListenerPolicy
    var configuration: HTTPServerConfiguration { policy.configuration }
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
        policy = HTTPListenerPolicy(configuration: configuration)
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
        switch policy.headRefusal(
            method: String(cString: method), rawURI: context.rawURI, headers: context.headers, isHTTP10: isHTTP10)
        {
        case nil:
            break
        case .answerNow(let refusal)?:
            context.stage = .answered
            return queue(refusal, on: connection)
        case .refuse(let refusal)?:
            return reject(context, refusal)
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
                return reject(
                    context, ownText("Request body too large\n", status: 413, accept: context.headers["Accept"]))
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
        let remote = shim_mhd_connection_client_address(context.connection).flatMap {
            HTTPSocketAddress.describe(UnsafeRawPointer($0))?.description
        }
        switch policy.request(
            method: String(cString: method), rawURI: context.rawURI, headers: context.headers, body: context.body,
            remoteAddress: remote)
        {
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
            return queue(
                ownText("Service Unavailable: shutting down\n", status: 503, accept: context.headers["Accept"]),
                on: context.connection)
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
            let unavailable = ownText(
                "Service Unavailable: shutting down\n", status: 503, accept: context.headers["Accept"])
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

    /// A plain-text response this server sends on its own (`HTTPListenerPolicy.ownText`).
    private func ownText(_ text: String, status: Int, accept: String? = nil) -> ServerResponse {
        policy.ownText(text, status: status, accept: accept)
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
