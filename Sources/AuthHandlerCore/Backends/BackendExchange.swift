import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerSystem

/// How a backend calls out: the fetcher, how long a call may take, the backend's name for messages and the secret
/// no message may show. Transport failures become `BackendError`, and statuses are classified.
package struct BackendExchange: Sendable {
    /// How long one backend call may take, connecting included.
    package static let defaultTimeout: Duration = .seconds(10)
    /// libcurl's `CURLE_OPERATION_TIMEDOUT`.
    private static let curlTimeout = 28

    /// The backend as messages name it, e.g. `Identity Toolkit`.
    let backend: String
    /// The API key or signing secret, scrubbed from every message.
    let secret: Secret
    let fetcher: any HTTPFetching
    let timeout: Duration

    /// What no message about `request` may show: its own sensitive values and the backend's secret.
    func sensitiveValues(of request: BackendSignInRequest) -> SensitiveValues {
        SensitiveValues(request.sensitiveValues + [secret.reveal()])
    }

    /// POSTs `body` to `url`; a transport failure, timeout or cancellation is `transient`, an unsendable request
    /// or an oversized answer `rejected`. Messages name `backend` and never the URL's query or user info.
    func post(
        to url: String, headers: HTTPHeaders, body: [UInt8], scrubbing sensitive: SensitiveValues
    ) async throws(BackendError) -> OutboundResponse {
        let request = OutboundRequest(method: "POST", url: url, headers: headers, body: body, timeout: timeout)
        do {
            return try await fetcher.send(request)
        } catch let error as HTTPClientError {
            switch error.kind {
            case .transfer(let code, _, _) where code == Self.curlTimeout:
                throw .transient(reason: "\(backend) did not answer within \(Self.seconds(timeout))")
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
