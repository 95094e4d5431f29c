import AuthHandlerStore
import AuthHandlerSystem

/// The wrong-code limit of device sign-in (HTTP-API.md §3.9, RFC 8628 §5.1): an address may enter
/// ``codeEntryLimit`` wrong user codes in a window of ``codeEntryWindow`` that opens with its first entry, counted in
/// the store, so that every instance on one store gives the address one allowance between them.
struct DeviceCodeEntryLimit: Sendable {
    /// The store as a `CounterStore`: the wrong-code counts, shared by every instance on it (HTTP-API.md §3.9).
    let counters: any CounterStore

    /// Wrong user codes one address may enter in a window.
    static let codeEntryLimit = 10
    /// The window the wrong codes of an address are counted in.
    static let codeEntryWindow: Duration = .seconds(60)

    /// Charges an entry of a user code from `client` before the code is looked at, so that the check and the charge are
    /// one atomic step in the store and no entry can slip in between another's check and its charge. Beyond the
    /// allowance, `429 too-many-requests` with the window's remaining seconds as `Retry-After`; a store that cannot be
    /// reached, `503`. Returns the counter's key, for ``refund(_:)`` when the code turns out right.
    func charge(from client: String) async throws(APIError) -> String {
        // The client's rate-limit key (an IPv6 address's /64), as for starts; the store keeps only its SHA-256.
        let key = "device-entry:" + ClientAddress.rateLimitKey(client)
        let reading: CounterReading
        do {
            reading = try await counters.incrementCounter(key: key, window: Self.codeEntryWindow)
        } catch {
            throw SignInFlow.storeFailure(error)
        }
        guard reading.count <= Self.codeEntryLimit else {
            let seconds = max(1, Int(min(reading.remaining.timeInterval.rounded(.up), Double(Int32.max))))
            throw APIError(
                .tooManyRequests, "too many wrong codes were entered from this address; retry in \(seconds) s",
                retryAfterSeconds: seconds)
        }
        return key
    }

    /// Gives back the charge of an entry whose code was right: only wrong codes use the allowance. Should the store fail
    /// here, the address keeps one count too many until its window closes, and the page is shown all the same; the
    /// failure is counted by the measured store (`auth_handler_store_errors_total`).
    func refund(_ key: String) async {
        do {
            try await counters.decrementCounter(key: key)
        } catch {
            return
        }
    }
}
