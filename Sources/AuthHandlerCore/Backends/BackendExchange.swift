import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerProtocols
import AuthHandlerStore
import AuthHandlerSystem

/// One HTTP exchange with a backend: transport failures become `BackendError`, and statuses are classified.
enum BackendExchange {
    /// libcurl's `CURLE_OPERATION_TIMEDOUT`.
    private static let curlTimeout = 28

    /// Sends `request`; a transport failure, timeout or cancellation is `transient`, an unsendable request
    /// or an oversized answer `rejected`. Messages name `backend` and never the URL's query or user info.
    static func send(
        _ request: OutboundRequest, via fetcher: any HTTPFetching, backend: String, scrubbing sensitive: SensitiveValues
    ) async throws(BackendError) -> OutboundResponse {
        do {
            return try await fetcher.send(request)
        } catch let error as HTTPClientError {
            switch error.kind {
            case .transfer(let code, _, _) where code == curlTimeout:
                throw .transient(reason: "\(backend) did not answer within \(seconds(request.timeout))")
            case .transfer, .setup, .shutDown:
                let detail = sensitive.scrub(Redaction.withoutURLSecrets(error.description))
                throw .transient(reason: "\(backend) could not be reached: \(detail)")
            case .invalidRequest, .responseTooLarge:
                throw .rejected(reason: "\(backend): \(sensitive.scrub(error.description))")
            }
        } catch is CancellationError {
            throw .transient(reason: "the call to \(backend) was cancelled")
        } catch {
            throw .transient(reason: "\(backend) could not be reached: \(sensitive.scrub(String(describing: error)))")
        }
    }

    /// Statuses after which a retry may succeed: 408, 429 and every 5xx.
    static func isTransient(status: Int) -> Bool {
        status == 408 || status == 429 || status >= 500
    }

    /// `10 s`, `1.5 s`.
    static func seconds(_ duration: Duration) -> String {
        let (whole, attoseconds) = duration.components
        return attoseconds == 0 ? "\(whole) s" : "\(duration.timeInterval) s"
    }
}
