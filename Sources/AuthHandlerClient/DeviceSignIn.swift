import Foundation

/// A device sign-in in progress (RFC 8628, HTTP-API.md §3.9): the code and address to show the user, and what
/// `AuthHandlerClient.completeDeviceSignIn` needs to poll for the result.
///
/// It is `Codable`, like ``SignInRequest``, so that a program can keep it while it waits; it holds the device code
/// and the redemption `verifier`, which printing it never shows.
public struct DeviceSignIn: Sendable, Hashable, Codable, CustomStringConvertible, CustomReflectable {
    public let providerId: String
    public let authType: AuthHandlerClient.AuthType
    /// The code the user types at `verificationURL` (two groups of four letters, such as `BCDF-GHJK`).
    public let userCode: String
    /// Where the user enters `userCode`, on any device with a browser.
    public let verificationURL: URL
    /// `verificationURL` with the code in it, for a link or a QR code; nil when the daemon sends none.
    public let verificationURLComplete: URL?
    /// When the codes stop working: the daemon's `expires_in` counted from when its answer arrived.
    public let expiresAt: Date
    /// Seconds to wait between polls; `slow_down` raises it (RFC 8628 §3.5).
    public internal(set) var interval: Int
    /// The code the client polls with; sent only to `POST /__/auth/device/token`.
    let deviceCode: String
    /// The secret whose SHA-256 was the request's `resultChallenge`; sent only to `POST /__/auth/device/token`.
    let verifier: String

    init(
        providerId: String, authType: AuthHandlerClient.AuthType, answer: DeviceAuthorizationAnswer, verifier: String,
        receivedAt: Date
    ) {
        self.providerId = providerId
        self.authType = authType
        userCode = answer.userCode
        verificationURL = answer.verificationURI
        verificationURLComplete = answer.verificationURIComplete
        expiresAt = receivedAt.addingTimeInterval(TimeInterval(answer.expiresIn ?? 600))
        interval = max(answer.interval ?? 5, 1)
        deviceCode = answer.deviceCode
        self.verifier = verifier
    }

    public var description: String {
        "DeviceSignIn(providerId: \(providerId), authType: \(authType.rawValue), userCode: \(userCode), "
            + "verificationURL: \(verificationURL.absoluteString), interval: \(interval), device code and verifier "
            + "redacted)"
    }

    public var customMirror: Mirror {
        Mirror(self, children: ["description": description])
    }
}

/// The `200` answer of `POST /__/auth/device` (RFC 8628 §3.2).
struct DeviceAuthorizationAnswer: Decodable {
    var deviceCode: String
    var userCode: String
    var verificationURI: URL
    var verificationURIComplete: URL?
    var expiresIn: Int?
    var interval: Int?

    enum CodingKeys: String, CodingKey {
        case deviceCode = "device_code", userCode = "user_code", verificationURI = "verification_uri"
        case verificationURIComplete = "verification_uri_complete", expiresIn = "expires_in", interval
    }
}

/// An error answer of `POST /__/auth/device/token`: RFC 6749 §5.2's `{"error", "error_description"}` (with
/// `interval` on `slow_down`), or the daemon's own error object for the backend's refusals at delivery.
struct DeviceTokenError: Decodable {
    var error: String
    var description: String?
    var interval: Int?

    enum CodingKeys: String, CodingKey {
        case error, description = "error_description", interval
    }
}

extension DeviceSignIn {
    /// The device code, for tests that check it never shows.
    package var deviceCodeForTests: String { deviceCode }
}
