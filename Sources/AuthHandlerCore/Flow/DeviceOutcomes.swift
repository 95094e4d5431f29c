import AuthHandlerStore
import AuthHandlerSystem
import Foundation

/// How a device sign-in ends for the browser and for the polling device (HTTP-API.md §3.9): the done page the browser
/// lands on, and the decision kept for the device's poll. Shared by the confirmation page and the callback.
struct DeviceOutcomes: Sendable {
    let settings: SignInFlow.Settings
    let store: any DeviceStore
    let now: WallClock

    /// The public URL of the device pages: `{publicURL}/__/auth/device`.
    var verificationURI: String {
        let handler = settings.redirectURI
        let base = handler.hasSuffix("/__/auth/handler") ? String(handler.dropLast("/__/auth/handler".count)) : handler
        return base + "/__/auth/device"
    }

    /// The page the browser lands on after a device sign-in's callback.
    func doneURL(_ outcome: DeviceDoneOutcome) -> String {
        verificationURI + "/done?outcome=" + outcome.rawValue
    }

    /// Keeps `decision` for the device's poll, sealed under its result code's decision key.
    func record(_ decision: DeviceDecision, resultCode: String) async throws(APIError) {
        let key = DeviceAuthorization.decisionKey(resultCode: resultCode)
        let sealed: [UInt8]
        do {
            sealed = try ResultSeal.seal(try SignInFlow.encode(decision), code: key)
        } catch {
            throw APIError(.internalError, "the decision could not be stored")
        }
        do {
            try await store.putDeviceRecord(
                kind: .decision, key: key, payload: sealed,
                expiresAt: now().addingTimeInterval(TimeInterval(2 * settings.deviceAuthorization.codeLifetimeSeconds)))
        } catch {
            throw SignInFlow.storeFailure(error)
        }
    }

    /// The callback of a device sign-in failed: the device is told so, the browser lands on the done page.
    func callbackFailed(_ failure: CallbackFailure, resultCode: String) async -> String {
        let cancelled = failure.code == .userCancelled
        try? await record(
            DeviceDecision(outcome: cancelled ? .cancelled : .failed, message: failure.message), resultCode: resultCode)
        return doneURL(cancelled ? .cancelled : .failed)
    }
}
