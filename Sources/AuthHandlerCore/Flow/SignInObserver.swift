import AuthHandlerProtocols
import Foundation

/// A step of the sign-in flow (HTTP-API.md §3), named as its log lines name it.
package enum SignInStep: String, Sendable, CaseIterable {
    /// `GET /__/auth/handler` with `providerId` (§3.1).
    case start = "signin.start"
    /// The IdP's callback (§3.2).
    case callback = "signin.callback"
    /// `POST /__/auth/result` (§3.3).
    case redeem = "signin.redeem"
    /// `POST /__/auth/device`: a device asked for a code pair (§3.9).
    case deviceIssue = "device.issue"
    /// "Cancel" on the device confirmation page (§3.9); "Continue" is reported as a start.
    case deviceDecline = "device.decline"
}

/// What the flow reports as it works: how each step ended, and the pending sign-ins it starts and sees called back.
///
/// The flow holds one and knows nothing of how the reports are kept; in the daemon they become log lines and
/// Prometheus counters (`SignInTelemetry`, docs/ARCHITECTURE.md). Every value is closed — provider ids, error codes,
/// the flow's own messages, latencies — never a request parameter, so no token, secret, code or state gets in.
package protocol SignInObserver: Sendable {
    /// `step` ended well for `provider`, `latencyMilliseconds` after it began.
    func stepSucceeded(_ step: SignInStep, provider: String, latencyMilliseconds: String)

    /// `step` was refused with `code`.
    ///
    /// - Parameters:
    ///   - provider: nil when the request tied to no provider the flow can trust (a callback whose cookie did not
    ///     open, an unknown result code).
    ///   - latencyMilliseconds: nil for a refusal before any work (rate limit, a redemption's proof checks).
    ///   - reason: the refusal's message; nil when the code says it all.
    func stepFailed(
        _ step: SignInStep, provider: String?, code: APIError.Code, latencyMilliseconds: String?, reason: String?)

    /// A redemption found its result held by another one in flight (`409 redemption-in-progress`).
    func redemptionFoundHeld()

    /// A redeemed result could not be deleted from the store; its claim keeps it from being redeemed again.
    func redeemedResultNotDeleted(provider: String)

    /// A sign-in started whose pending state expires at `expiresAt` (it lives in the browser's cookie).
    func pendingStarted(expiresAt: Date, now: Date)

    /// The callback of a pending sign-in that would have expired at `expiresAt` arrived.
    func pendingEnded(expiresAt: Date)

    /// A provider's key set, fetched from `jwksURI` (without its query), has entries that cannot verify a signature
    /// and were skipped; each says why (an RSA key too short, a P-256 coordinate of 31 bytes, `use: enc`, ...).
    func keysSkipped(jwksURI: String, _ skipped: [JSONWebKeySet.SkippedKey])
}
