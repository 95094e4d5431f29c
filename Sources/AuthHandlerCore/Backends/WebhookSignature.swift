import AuthHandlerCrypto
import AuthHandlerSystem
import Foundation

/// The webhook signature of HTTP-API.md §2.8: `X-Auth-Handler-Signature: sha256=<hex>` where hex is the lowercase
/// HMAC-SHA256, under the shared secret, of the `X-Auth-Handler-Timestamp` value, `"."`, and the raw body.
///
/// Receivers verify with ``verify(secret:timestamp:body:header:tolerance:now:)``: the MAC in constant time,
/// then the timestamp against a tolerance window, which bounds how long a captured request can be replayed.
package enum WebhookSignature {
    package static let timestampHeader = "X-Auth-Handler-Timestamp"
    package static let signatureHeader = "X-Auth-Handler-Signature"
    /// How far a timestamp may be from the receiver's clock, either way.
    package static let defaultTolerance: Duration = .seconds(300)

    private static let prefix = "sha256="

    /// The `X-Auth-Handler-Signature` value for `body` sent at `timestamp` (Unix seconds, as sent).
    package static func sign(secret: String, timestamp: String, body: [UInt8]) throws(CryptoError) -> String {
        prefix + Hex.lowercase(try mac(secret: secret, timestamp: timestamp, body: body))
    }

    /// Checks a received request: `header` must be `sha256=` and the MAC of `timestamp + "." + body`, and
    /// `timestamp` within `tolerance` of `now`. Throws why it is refused.
    package static func verify(
        secret: String, timestamp: String, body: [UInt8], header: String, tolerance: Duration = defaultTolerance,
        now: WallClock = systemWallClock
    ) throws(WebhookSignatureError) {
        guard let sentAt = unixSeconds(timestamp) else { throw .malformedTimestamp }
        guard header.hasPrefix(prefix), let received = Hex.bytes(header.dropFirst(prefix.count)),
            received.count == HMAC.Algorithm.sha256.outputLength
        else {
            throw .malformedSignature
        }
        let expected: [UInt8]
        do {
            expected = try mac(secret: secret, timestamp: timestamp, body: body)
        } catch {
            throw .cannotCompute(error.description)
        }
        guard ConstantTime.equals(expected, received) else { throw .mismatch }
        let skew = now().timeIntervalSince1970 - Double(sentAt)
        if abs(skew) > Double(tolerance.components.seconds) {
            throw .timestampOutsideTolerance(skewSeconds: Int(skew.rounded()))
        }
    }

    /// True when ``verify(secret:timestamp:body:header:tolerance:now:)`` accepts the request.
    package static func isValid(
        secret: String, timestamp: String, body: [UInt8], header: String, tolerance: Duration = defaultTolerance,
        now: WallClock = systemWallClock
    ) -> Bool {
        do {
            try verify(secret: secret, timestamp: timestamp, body: body, header: header, tolerance: tolerance, now: now)
            return true
        } catch {
            return false
        }
    }

    private static func mac(secret: String, timestamp: String, body: [UInt8]) throws(CryptoError) -> [UInt8] {
        var message = Array(timestamp.utf8)
        message.append(UInt8(ascii: "."))
        message.append(contentsOf: body)
        return try HMAC.sha256(key: Array(secret.utf8), message: message)
    }

    /// Unix seconds written as 1 to 12 ASCII digits (no sign, no fraction), or nil.
    private static func unixSeconds(_ text: String) -> Int64? {
        let digits = text.utf8
        guard (1...12).contains(digits.count), digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else {
            return nil
        }
        return Int64(text)
    }
}

/// Why a webhook request's signature was refused; the receiver should answer 401 and not act on the body.
package enum WebhookSignatureError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `X-Auth-Handler-Timestamp` is missing or not Unix seconds.
    case malformedTimestamp
    /// `X-Auth-Handler-Signature` is missing or not `sha256=` and 64 hex digits.
    case malformedSignature
    /// The MAC does not match: wrong secret, or the body or timestamp was altered.
    case mismatch
    /// The MAC matches but the timestamp is too far from now: a replay, or a clock out of sync.
    case timestampOutsideTolerance(skewSeconds: Int)
    /// HMAC could not be computed (OpenSSL failed).
    case cannotCompute(String)

    package var description: String {
        switch self {
        case .malformedTimestamp:
            "\(WebhookSignature.timestampHeader) must be Unix seconds"
        case .malformedSignature:
            "\(WebhookSignature.signatureHeader) must be sha256= followed by 64 hexadecimal digits"
        case .mismatch:
            "the signature does not match the body and timestamp; check that both sides use the same secret"
        case .timestampOutsideTolerance(let skew):
            "the timestamp is \(skew) s away from now, outside the tolerance; replayed, or a clock is wrong"
        case .cannotCompute(let reason):
            "the signature could not be computed: \(reason)"
        }
    }
}
