import AuthHandlerCrypto
import AuthHandlerHTTP
import Foundation

/// The browser side the daemon serves beside the sign-in endpoints (HTTP-API.md §3.8): the module
/// `clients/js/auth-handler.js` at `/__/auth/client.js`, byte for byte, and the popup's return page `/__/auth/popup`
/// with its script `/__/auth/popup.js`.
enum BrowserClient {
    static let modulePath = "/__/auth/client.js"
    static let popupPath = "/__/auth/popup"
    static let popupScriptPath = "/__/auth/popup.js"
    /// Each file's path and its answer to a `GET` or `HEAD`.
    static let files: [String: @Sendable (ServerRequest) -> ServerResponse] = [
        modulePath: { script(module, entityTag: moduleETag, request: $0) },
        popupScriptPath: { script(popupScript, entityTag: popupScriptETag, request: $0) },
        popupPath: { _ in popup() },
    ]
    static var paths: Set<String> { Set(files.keys) }

    /// The module's bytes, compiled in from the repository's file (Package.swift, `.embedInCode`).
    static let module: [UInt8] = PackageResources.auth_handler_js

    /// What the popup page runs. A file of its own, because the daemon's CSP allows no inline script.
    static let popupScript = Array(
        """
        import { AuthHandler } from "./client.js";
        AuthHandler.completePopup();

        """.utf8)

    /// Loaded in the popup at the end of a popup sign-in; its script hands the return to the opener and closes the
    /// window. The text is what a person sees when there is no opener to hand to (the page opened by itself).
    static let popupPage = Array(
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
        <title>Signing in</title>
        <script type="module" src="popup.js"></script></head>
        <body><main><h1>Signing in</h1>
        <p>This window closes by itself. If it stays open, close it and return to the app.</p></main>
        </body></html>

        """.utf8)

    /// The popup page's policy: §3.5's, plus scripts from this origin (`popup.js` and the module it imports).
    static let popupContentSecurityPolicy =
        (ResponseRendering.securityHeaders["Content-Security-Policy"] ?? "default-src 'none'; frame-ancestors 'none'")
        + "; script-src 'self'"

    /// The scripts may be kept by browsers and caches for an hour and then revalidated with their `ETag`. They do
    /// not change while a daemon runs; a new version answers a new `ETag`.
    static let scriptCacheControl = "public, max-age=3600"

    /// A strong validator: a digest of the bytes, so every daemon serving the same module answers the same `ETag`
    /// (several instances behind one load balancer, HTTP-API.md §2.5) and a changed module a new one.
    static let moduleETag = entityTag(module)
    static let popupScriptETag = entityTag(popupScript)

    /// The answer for one of ``paths``, or the error to answer instead (a method other than `GET` and `HEAD`).
    static func response(_ request: ServerRequest) -> Result<ServerResponse, APIError> {
        guard let file = files[request.path] else {
            return .failure(APIError(.notFound, "there is nothing at this path; the module is at \(modulePath)"))
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            return .failure(APIError(.methodNotAllowed, "use GET for \(request.path)"))
        }
        return .success(file(request))
    }

    /// The popup's return page, with §3.5's headers and a policy that admits its script.
    private static func popup() -> ServerResponse {
        var response = ResponseRendering.secured(
            ServerResponse(headers: ["Content-Type": "text/html; charset=utf-8"], body: popupPage))
        response.headers.set(name: "Content-Security-Policy", value: popupContentSecurityPolicy)
        return response
    }

    /// A script with §3.5's headers, except that it may be cached, and `304 Not Modified` when the request's
    /// `If-None-Match` names its tag (RFC 9110 §13.1.2).
    private static func script(_ body: [UInt8], entityTag: String?, request: ServerRequest) -> ServerResponse {
        let notModified = entityTag.map { matches(request.headers.values(for: "If-None-Match"), $0) } ?? false
        var response = ResponseRendering.secured(
            ServerResponse(
                status: notModified ? 304 : 200,
                headers: ["Content-Type": "text/javascript; charset=utf-8"], body: notModified ? [] : body))
        response.headers.set(name: "Cache-Control", value: scriptCacheControl)
        if let entityTag { response.headers.set(name: "ETag", value: entityTag) }
        return response
    }

    /// `"` + the first 128 bits of the SHA-256 of `bytes` in base64url + `"`; nil if the digest cannot be computed,
    /// and then the script is served without a validator.
    static func entityTag(_ bytes: [UInt8]) -> String? {
        guard let digest = try? SHA256.hash(bytes) else { return nil }
        return "\"" + Base64.urlEncode(Array(digest.prefix(16))) + "\""
    }

    /// Whether `If-None-Match` field values match `entityTag` by the weak comparison RFC 9110 §13.1.2 prescribes for
    /// it: `*`, or a listed tag equal to ours once a `W/` prefix is ignored.
    static func matches(_ fieldValues: [String], _ entityTag: String) -> Bool {
        for value in fieldValues {
            for member in value.split(separator: ",") {
                var tag = member.trimmingCharacters(in: .whitespaces)
                if tag == "*" { return true }
                if tag.hasPrefix("W/") { tag.removeFirst(2) }
                if tag == entityTag { return true }
            }
        }
        return false
    }
}
