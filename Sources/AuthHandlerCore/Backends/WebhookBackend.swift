import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerSystem
import Foundation

/// Backend `webhook`: POSTs the credential as JSON to `url`, signed as HTTP-API.md §2.8 says (see `WebhookSignature`).
package struct WebhookBackend: SignInBackend {
    private let url: String
    /// Holds the signing secret as its secret.
    private let exchange: BackendExchange
    private let now: WallClock

    /// `now` is the clock the timestamp is read from.
    package init(
        url: URL, secret: Secret, fetcher: any HTTPFetching, timeout: Duration = BackendExchange.defaultTimeout,
        now: @escaping WallClock = systemWallClock
    ) {
        self.url = url.absoluteString
        exchange = BackendExchange(
            backend: WebhookAnswer.backendName, secret: secret, fetcher: fetcher, timeout: timeout)
        self.now = now
    }

    package func signIn(_ request: BackendSignInRequest) async throws(BackendError) -> JSONValue? {
        let sensitive = exchange.sensitiveValues(of: request)
        let deliveryId: String
        do {
            deliveryId = Hex.lowercase(try SecureRandom.bytes(16))
        } catch {
            throw .transient(reason: "no delivery id could be drawn: \(error.description)")
        }
        let body = WebhookPayload(request: request, deliveryId: deliveryId).serialized(sortingKeys: true)
        let timestamp = String(Int64(now().timeIntervalSince1970.rounded(.down)))
        let signature: String
        do {
            signature = try WebhookSignature.sign(secret: exchange.secret.reveal(), timestamp: timestamp, body: body)
        } catch {
            throw .transient(reason: "the webhook request could not be signed: \(error.description)")
        }
        var headers: HTTPHeaders = ["Content-Type": "application/json", "Accept": "application/json"]
        headers.add(name: WebhookSignature.timestampHeader, value: timestamp)
        headers.add(name: WebhookSignature.signatureHeader, value: signature)
        let response = try await exchange.post(to: url, headers: headers, body: body, scrubbing: sensitive)
        return try WebhookAnswer.interpret(
            status: response.status, body: response.body, scrubbing: sensitive, providerId: request.providerId)
    }
}
