import AuthHandlerSystem

/// Settings of `HTTPClient`.
package struct HTTPClientConfiguration: Sendable {
    /// A PEM file of CA certificates to trust instead of the system store (CURLOPT_CAINFO).
    package var caFile: String?
    /// The largest response body (and header block) accepted; larger transfers are aborted.
    package var maxResponseBytes: Int

    package init(caFile: String? = nil, maxResponseBytes: Int = 1024 * 1024) {
        self.caFile = caFile
        self.maxResponseBytes = maxResponseBytes
    }
}

/// `HTTPFetching` on the libcurl multi interface: every request of this client runs on one event thread.
///
/// TLS peer and host verification are always on, redirects are never followed, only http and https are
/// allowed. The thread ends when the client is released.
package final class HTTPClient: HTTPFetching {
    private let loop: CurlEventLoop
    private let configuration: HTTPClientConfiguration

    package init(configuration: HTTPClientConfiguration = HTTPClientConfiguration()) throws {
        try CurlGlobalSetup.ensureInitialized()
        self.configuration = configuration
        loop = try CurlEventLoop()
        loop.start()
    }

    deinit { loop.shutDown() }

    package func send(_ request: OutboundRequest) async throws -> OutboundResponse {
        let transfer = try CurlTransfer(request: request, configuration: configuration)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                transfer.continuation = continuation
                loop.submit(transfer)
            }
        } onCancel: {
            loop.cancel(transfer)
        }
    }
}
