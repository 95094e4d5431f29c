import AuthHandlerHTTP
import Foundation

/// Turns handler results into HTTP responses: the security headers of HTTP-API.md §3.5 on every response, and
/// errors as JSON or HTML by the request's `Accept`.
package enum ResponseRendering {
    /// HTTP-API.md §3.5: on every response the service sends. The HTTP listener's own refusals carry the same fields
    /// (``HTTPServerConfiguration/defaultSecurityHeaders``), whose policy admits no style at all: they are plain text.
    package static let securityHeaders: HTTPHeaders = {
        var headers = HTTPServerConfiguration.defaultSecurityHeaders
        headers.set(name: "Content-Security-Policy", value: PageStyle.contentSecurityPolicy)
        return headers
    }()

    /// Adds the security headers (replacing any the handler set) and returns the response.
    package static func secured(_ response: ServerResponse) -> ServerResponse {
        var response = response
        for field in securityHeaders { response.headers.set(name: field.name, value: field.value) }
        if response.status == 503, response.headers["Retry-After"] == nil {
            response.headers.set(name: "Retry-After", value: "5")
        }
        return response
    }

    /// The error as JSON when `accept` prefers `application/json`, otherwise a page for `audience`.
    package static func error(_ error: APIError, accept: String?, audience: PageAudience) -> ServerResponse {
        var response = errorBody(
            status: error.status, code: error.code.rawValue, explanation: error.code.explanationForPeople,
            message: error.message, details: error.details, accept: accept, audience: audience)
        if let seconds = error.retryAfterSeconds { response.headers.set(name: "Retry-After", value: String(seconds)) }
        return response
    }

    /// A refusal of the HTTP listener's own (`HTTPRefusalRenderer`) in the error format: `unavailable` for 503,
    /// `internal-error` for a 5xx, and `invalid-request` with the listener's status (400, 413, 414, 431, 501) for the rest
    /// (HTTP-API.md §3.5).
    package static func listenerRefusal(status: Int, message: String, accept: String?, audience: PageAudience)
        -> ServerResponse
    {
        let code: APIError.Code =
            switch status {
            case 503: .unavailable
            case 500...: .internalError
            default: .invalidRequest
            }
        return errorBody(
            status: status, code: code.rawValue, explanation: code.explanationForPeople, message: message,
            details: [:], accept: accept, audience: audience)
    }

    /// An error page for a code that is not the handler's own: the `--once` done page echoes the `error` its URL
    /// carries, already reduced to a safe character set (`SignInFlow.safeErrorCode`).
    package static func error(
        status: Int, echoedCode code: String, message: String, accept: String?, audience: PageAudience
    ) -> ServerResponse {
        errorBody(
            status: status, code: code, explanation: "The sign-in did not work.", message: message, details: [:],
            accept: accept, audience: audience)
    }

    private static func errorBody(
        status: Int, code: String, explanation: String, message: String, details: [String: JSONValue],
        accept: String?, audience: PageAudience
    ) -> ServerResponse {
        if prefersJSON(accept) {
            var members: [String: JSONValue] = details
            members["code"] = .string(code)
            members["message"] = .string(message)
            return json(.object(["error": .object(members)]), status: status)
        }
        let page = HTMLPage(
            heading: audience.failureHeading(), tone: .failure,
            content: [
                HTMLPage.paragraph(explanation, id: "error-explanation", class: "lead"),
                HTMLPage.paragraph(audience.nextStepAfterFailure, id: "next-step", class: "next"),
                "<details><summary>Technical details</summary>",
                HTMLPage.paragraph(message, id: "error-message"),
                "</details>",
            ].joined(separator: "\n"),
            footer: #"<p>Error code <code id="error-code">\#(htmlEscape(code))</code></p>"#)
        return secured(ServerResponse.html(page.render(), status: status))
    }

    /// A JSON response with the security headers.
    package static func json(_ value: JSONValue, status: Int = 200) -> ServerResponse {
        secured(ServerResponse.json(value, status: status))
    }

    /// Whether an `Accept` header prefers `application/json` over `text/html` (RFC 9110 §12.5.1 q-values).
    package static func prefersJSON(_ accept: String?) -> Bool {
        guard let accept, !accept.isEmpty else { return false }
        var jsonQuality = -1.0
        var htmlQuality = -1.0
        var wildcardQuality = -1.0
        for range in accept.split(separator: ",") {
            let parts = range.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let mediaType = parts.first?.lowercased() else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() where parameter.lowercased().hasPrefix("q=") {
                quality = Double(parameter.dropFirst(2)) ?? 0
            }
            switch mediaType {
            case "application/json": jsonQuality = max(jsonQuality, quality)
            case "text/html": htmlQuality = max(htmlQuality, quality)
            case "*/*", "application/*": wildcardQuality = max(wildcardQuality, quality)
            default: break
            }
        }
        if jsonQuality <= 0 { return false }
        let html = htmlQuality >= 0 ? htmlQuality : wildcardQuality
        return jsonQuality > html
    }

    /// Escapes text for HTML element content and double-quoted attributes.
    package static func htmlEscape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
