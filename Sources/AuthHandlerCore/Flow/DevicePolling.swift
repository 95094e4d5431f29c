import AuthHandlerHTTP
import AuthHandlerStore
import AuthHandlerSystem
import Foundation

/// A device's poll, `POST /__/auth/device/token` (RFC 8628 §3.4, §3.5; HTTP-API.md §3.9): paced per instance, told the
/// decision kept for it, and given the result through the redemption of HTTP-API.md §3.3.
struct DevicePolling: Sendable {
    let store: any SessionStore & DeviceStore
    let pacing: DevicePacing
    let redemption: SignInRedemption
    let now: WallClock

    /// A poll (RFC 8628 §3.4, §3.5): the result once, or why not yet or never.
    func poll(_ fields: [URLFormField]) async -> DeviceTokenAnswer {
        do throws(DeviceTokenRefusal) {
            let deviceCode = try Self.polledDeviceCode(fields)
            let (grant, resultCode) = try await polledGrant(deviceCode)
            let remaining = max(1, grant.expiresAt.timeIntervalSince(now()))
            let pace = pacing.poll(resultCode, interval: grant.interval, lifetime: .seconds(remaining))
            if pace.tooSoon {
                throw DeviceTokenRefusal(
                    "slow_down", "polled sooner than the interval; wait \(pace.interval) s between polls from now on",
                    interval: pace.interval)
            }
            let decisionKey = DeviceAuthorization.decisionKey(resultCode: resultCode)
            if let sealed = try await deviceRecord(.decision, decisionKey),
                let plaintext = ResultSeal.open(sealed, code: decisionKey),
                let decision = SignInFlow.decode(DeviceDecision.self, from: plaintext)
            {
                switch decision.outcome {
                case .declined, .cancelled: throw DeviceTokenRefusal("access_denied", decision.message)
                case .failed: throw DeviceTokenRefusal("server_error", decision.message)
                }
            }
            switch try await peek(resultCode) {
            case .available:
                return await deliver(resultCode: resultCode, deviceCode: deviceCode, grant: grant, fields: fields)
            case .claimed:
                throw DeviceTokenRefusal("authorization_pending", "the result is being delivered to another poll")
            case .absent:
                break
            }
            if grant.expiresAt <= now() {
                throw DeviceTokenRefusal("expired_token", "the code expired before anyone signed in; ask for a new one")
            }
            throw DeviceTokenRefusal("authorization_pending", "waiting for the user to enter the code and sign in")
        } catch {
            return .refused(
                error: error.error, description: error.description, status: error.status, interval: error.interval)
        }
    }

    /// The poll's `device_code`, after its `grant_type` (RFC 8628 §3.4).
    private static func polledDeviceCode(_ fields: [URLFormField]) throws(DeviceTokenRefusal) -> String {
        for name in ["grant_type", "device_code", "verifier"] where fields.all(named: name).count > 1 {
            throw DeviceTokenRefusal("invalid_request", "\(name) is given more than once; send it once")
        }
        guard let grantType = fields.first(named: "grant_type") else {
            throw DeviceTokenRefusal("invalid_request", "grant_type is required: \(DeviceAuthorization.grantType)")
        }
        guard grantType == DeviceAuthorization.grantType else {
            throw DeviceTokenRefusal(
                "unsupported_grant_type", "this endpoint takes grant_type=\(DeviceAuthorization.grantType)")
        }
        guard let deviceCode = fields.first(named: "device_code"), !deviceCode.isEmpty, deviceCode.utf8.count <= 512
        else {
            throw DeviceTokenRefusal(
                "invalid_request", "device_code is required: the device_code of POST /__/auth/device")
        }
        return deviceCode
    }

    /// The grant of `deviceCode` and the result code derived from it; `invalid_grant` when there is none.
    private func polledGrant(_ deviceCode: String) async throws(DeviceTokenRefusal) -> (DeviceGrant, String) {
        guard let sealed = try await deviceRecord(.grant, DeviceAuthorization.grantKey(deviceCode: deviceCode)),
            let plaintext = ResultSeal.open(sealed, code: deviceCode),
            let grant = SignInFlow.decode(DeviceGrant.self, from: plaintext),
            let resultCode = try? DeviceAuthorization.resultCode(deviceCode: deviceCode)
        else {
            throw DeviceTokenRefusal(
                "invalid_grant", "the device code is unknown, was already used, or expired long ago; ask for a new one")
        }
        return (grant, resultCode)
    }

    /// `store.peekResult`, a store failure answered `503 temporarily_unavailable`.
    private func peek(_ key: String) async throws(DeviceTokenRefusal) -> ResultLookup {
        do {
            return try await store.peekResult(code: key, now: now())
        } catch {
            throw DeviceTokenRefusal(
                "temporarily_unavailable", SignInFlow.storeFailure(error).message, status: 503)
        }
    }

    /// `store.deviceRecord`, a store failure answered `503 temporarily_unavailable`.
    private func deviceRecord(_ kind: DeviceRecordKind, _ key: String) async throws(DeviceTokenRefusal) -> [UInt8]? {
        do {
            return try await store.deviceRecord(kind: kind, key: key, now: now())
        } catch {
            throw DeviceTokenRefusal(
                "temporarily_unavailable", SignInFlow.storeFailure(error).message, status: 503)
        }
    }

    /// Redeems the result for the device, as `POST /__/auth/result` would (HTTP-API.md §3.3): the backend runs here,
    /// and a wrong verifier leaves the result deliverable.
    private func deliver(resultCode: String, deviceCode: String, grant: DeviceGrant, fields: [URLFormField]) async
        -> DeviceTokenAnswer
    {
        var redemption = [URLFormField(name: "code", value: resultCode)]
        if let verifier = fields.first(named: "verifier") {
            redemption.append(URLFormField(name: "verifier", value: verifier))
        }
        if let idToken = grant.idToken { redemption.append(URLFormField(name: "idToken", value: idToken)) }
        do {
            let answer = try await self.redemption.redeem(redemption)
            // The grant goes with the result: a later poll is told invalid_grant (delivered once).
            try? await store.deleteDeviceRecord(kind: .grant, key: DeviceAuthorization.grantKey(deviceCode: deviceCode))
            pacing.forget(resultCode)
            return .delivered(answer)
        } catch {
            switch error.code {
            case .invalidResultCode:
                return .refused(error: "invalid_grant", description: error.message, status: 400, interval: nil)
            case .redemptionInProgress:
                return .refused(
                    error: "authorization_pending", description: error.message, status: 400, interval: nil)
            default:
                return .refused(
                    error: error.code.rawValue, description: error.message, status: error.status, interval: nil)
            }
        }
    }
}

/// A poll's refusal in RFC 6749 §5.2's terms: `error`, `error_description`, the status, and with `slow_down` the
/// code's new interval.
struct DeviceTokenRefusal: Error {
    var error: String
    var description: String
    var status: Int
    var interval: Int?

    init(_ error: String, _ description: String, status: Int = 400, interval: Int? = nil) {
        self.error = error
        self.description = description
        self.status = status
        self.interval = interval
    }
}
