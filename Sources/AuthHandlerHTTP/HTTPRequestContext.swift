import CMicroHTTPD
import Synchronization

/// Per-request state MHD hands back to every callback of one request through `*req_cls`.
///
/// `@unchecked Sendable` because of the split ownership: `stage`, `headers`, `body`, `pendingRejection` and
/// `discardedBytes` are touched only by the MHD worker thread that owns the connection (MHD runs one
/// connection's callbacks on one thread, one at a time); `outcome` is behind its mutex; `connection` is an
/// immutable handle that other threads use only for `MHD_resume_connection`, which MHD documents as thread-safe.
final class HTTPRequestContext: @unchecked Sendable {
    /// Where the access handler is in this request's lifecycle.
    enum Stage {
        /// The first access-handler call (headers parsed, body not read) is still to come.
        case headers
        /// Reading the body; the final call (no upload data) starts the handler.
        case body
        /// The connection is suspended while the Swift handler runs.
        case suspended
        /// A response has been queued.
        case answered
    }

    /// How the handler task ended, decided once under the mutex by whoever gets there first.
    enum Outcome {
        case running
        case finished(ServerResponse)
        case abandoned(ServerResponse)
    }

    /// The request target exactly as received, or nil when it was not valid UTF-8.
    let rawURI: String?
    let connection: OpaquePointer
    var stage = Stage.headers
    var headers = HTTPHeaders()
    var body: [UInt8] = []
    var pendingRejection: ServerResponse?
    var discardedBytes = 0
    let outcome = Mutex(Outcome.running)

    init(rawURI: String?, connection: OpaquePointer) {
        self.rawURI = rawURI
        self.connection = connection
    }

    /// Claims the right to resume the connection, recording `result`; false when someone else already did.
    func settle(_ result: Outcome) -> Bool {
        outcome.withLock { current in
            guard case .running = current else { return false }
            current = result
            return true
        }
    }
}
