import AuthHandlerCore
import AuthHandlerHTTP

/// The sample app page `auth-handler demo` serves without `--headless` (HTTP-API.md §1.5): `clients/js/demo/` of
/// this repository, compiled into the binary, served on the accounts daemon's own origin as extra routes of that
/// demo daemon only (no `serve` has them), so that the browser module it loads keeps its session cookie
/// same-origin (docs/CLIENTS.md "Accounts in the browser").
enum DemoSamplePage {
    /// The page's address under the daemon's origin.
    static let path = "/demo/"

    /// Each file's path and its bytes and type (Package.swift, `.embedInCode`).
    static let files: [String: (body: [UInt8], contentType: String)] = [
        path: (PackageResources.index_html, "text/html; charset=utf-8"),
        path + "app.js": (PackageResources.app_js, "text/javascript; charset=utf-8"),
        path + "app.css": (PackageResources.app_css, "text/css; charset=utf-8"),
    ]

    /// The page's policy: nothing but this origin's script (its own file and the module it imports), stylesheet and
    /// `fetch`es; no inline script, no plugin, no framing, and no form submission by the browser itself (the
    /// script sends the form), after OWASP's Content Security Policy Cheat Sheet ("strict policy").
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
        + "form-action 'none'; base-uri 'none'; frame-ancestors 'none'"

    /// The extra routes of the demo's accounts daemon.
    static var routes: [String: AuthHandlerService.ExtraRoute] {
        files.mapValues { file in { request, _ in response(file, request: request) } }
    }

    /// The file for `GET` and `HEAD`; `405` otherwise. The daemon adds §3.5's headers and keeps this policy.
    static func response(_ file: (body: [UInt8], contentType: String), request: ServerRequest) -> ServerResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            return .text("use GET\n", status: 405)
        }
        return ServerResponse(
            headers: ["Content-Type": file.contentType, "Content-Security-Policy": contentSecurityPolicy],
            body: file.body)
    }
}
