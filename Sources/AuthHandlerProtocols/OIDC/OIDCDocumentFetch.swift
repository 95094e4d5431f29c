import AuthHandlerHTTP
import AuthHandlerSystem

/// One GET of a JSON document from an IdP, with the status and transport failures turned into `OIDCError`.
enum OIDCDocumentFetch {
    /// The body of a 200 answer to `GET url`.
    static func get(_ url: String, document: OIDCError.Document, http: any HTTPFetching, timeout: Duration)
        async throws(OIDCError) -> [UInt8]
    {
        let target = Redaction.target(url)
        let response: OutboundResponse
        do {
            response = try await http.send(
                OutboundRequest(method: "GET", url: url, headers: ["Accept": "application/json"], timeout: timeout))
        } catch let error as HTTPClientError {
            throw .fetchFailed(document, url: target, reason: error.description)
        } catch is CancellationError {
            throw .fetchFailed(document, url: target, reason: "cancelled")
        } catch {
            throw .fetchFailed(document, url: target, reason: String(describing: type(of: error)))
        }
        guard response.status == 200 else {
            throw .unexpectedStatus(document, url: target, status: response.status)
        }
        return response.body
    }
}
