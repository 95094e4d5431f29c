import AuthHandlerProtocols
import Foundation

/// The daemon's `SignInObserver`: each report of the flow is one `EventLog` line and a count in `Metrics`
/// (`auth_handler_signins_*`, `auth_handler_redemptions_total`, `auth_handler_pending_sessions`).
package struct SignInTelemetry: SignInObserver {
    package let log: EventLog
    package let metrics: Metrics

    package init(log: EventLog, metrics: Metrics) {
        self.log = log
        self.metrics = metrics
    }

    package func stepSucceeded(_ step: SignInStep, provider: String, latencyMilliseconds: String) {
        switch step {
        case .start: metrics.signInStarted(provider: provider)
        case .callback: metrics.signInCompleted(provider: provider)
        case .redeem: metrics.redemptionSucceeded()
        // Logged only: a device's sign-in is counted when its start, callback and delivery (a redemption) are.
        case .deviceIssue, .deviceDecline: break
        }
        // A start succeeds by sending the browser to the IdP; the later steps by a result.
        let outcome = step == .start ? "redirect" : "success"
        log.log(
            .info, step.rawValue,
            fields: [("provider", provider), ("outcome", outcome), ("latency_ms", latencyMilliseconds)])
    }

    package func stepFailed(
        _ step: SignInStep, provider: String?, code: APIError.Code, latencyMilliseconds: String?, reason: String?
    ) {
        switch step {
        case .start, .callback: metrics.signInFailed(provider: provider ?? "unknown", code: code)
        case .redeem: metrics.redemptionFailed(code: code)
        case .deviceIssue, .deviceDecline: break
        }
        var fields: [(String, String)] = []
        if let provider { fields.append(("provider", provider)) }
        fields.append(("outcome", code.rawValue))
        if let latencyMilliseconds { fields.append(("latency_ms", latencyMilliseconds)) }
        if let reason { fields.append(("reason", reason)) }
        log.log(.warning, step.rawValue, fields: fields)
    }

    package func redemptionFoundHeld() {
        metrics.redemptionFailed(code: .redemptionInProgress)
    }

    package func redeemedResultNotDeleted(provider: String) {
        log.log(.error, SignInStep.redeem.rawValue, ["provider": provider, "outcome": "store-delete-failed"])
    }

    package func pendingStarted(expiresAt: Date, now: Date) {
        metrics.pendingStarted(expiresAt: expiresAt, now: now)
    }

    package func pendingEnded(expiresAt: Date) {
        metrics.pendingEnded(expiresAt: expiresAt)
    }

    /// One warning per skipped key, each time the set is fetched: a token signed with such a key is refused, and the
    /// refusal's `no ... key with kid` alone would not say that a key with that kid is there (CONFIG.md "logFormat").
    /// At most ``maximumSkippedKeysLogged`` lines per fetch, then one line with how many more there were, so that a
    /// key set of thousands of junk entries cannot flood the log.
    package func keysSkipped(jwksURI: String, _ skipped: [JSONWebKeySet.SkippedKey]) {
        for key in skipped.prefix(Self.maximumSkippedKeysLogged) {
            var fields: [(String, String)] = [("outcome", "key-skipped"), ("jwks_uri", jwksURI)]
            fields.append(("index", String(key.index)))
            if let keyID = key.keyID { fields.append(("kid", String(keyID.prefix(120)))) }
            fields.append(("reason", key.reason))
            log.log(.warning, "oidc.jwks", fields: fields)
        }
        if skipped.count > Self.maximumSkippedKeysLogged {
            log.log(
                .warning, "oidc.jwks",
                fields: [
                    ("outcome", "keys-skipped-not-logged"), ("jwks_uri", jwksURI),
                    ("count", String(skipped.count - Self.maximumSkippedKeysLogged)),
                ])
        }
    }

    /// The most skipped keys of one fetched set logged one by one.
    package static let maximumSkippedKeysLogged = 16
}
