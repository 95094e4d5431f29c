/// A failed outbound request. Names the method and the URL without its query, fragment or user info,
/// which may carry secrets.
package struct HTTPClientError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What failed.
    package enum Kind: Sendable, Equatable {
        /// libcurl failed the transfer: the `CURLcode`, `curl_easy_strerror`'s text and curl's detail message.
        case transfer(code: Int, text: String, detail: String)
        /// The response was larger than the client's `maxResponseBytes`; the transfer was aborted.
        case responseTooLarge(limit: Int)
        /// The request cannot be sent as given (bad URL scheme, header with a line break, zero timeout).
        case invalidRequest(String)
        /// libcurl could not be set up (init, setopt or multi call failed).
        case setup(operation: String, code: Int, text: String)
        /// The client was shut down before the request finished.
        case shutDown
    }

    package let kind: Kind
    /// The request method.
    package let method: String
    /// The URL up to its path: scheme, host, port and path only (`Redaction.target`).
    package let target: String

    package var description: String {
        let prefix = "\(method) \(target)"
        switch kind {
        case .transfer(let code, let text, let detail):
            let more = detail.isEmpty || detail == text ? "" : " (\(detail))"
            return "\(prefix) failed: CURLcode \(code): \(text)\(more)"
        case .responseTooLarge(let limit):
            return "\(prefix) failed: the response exceeded the \(limit)-byte limit; the transfer was aborted"
        case .invalidRequest(let reason):
            return "\(prefix) not sent: \(reason)"
        case .setup(let operation, let code, let text):
            return "\(prefix) not sent: \(operation) failed with code \(code): \(text)"
        case .shutDown:
            return "\(prefix) failed: the HTTP client was shut down"
        }
    }
}
