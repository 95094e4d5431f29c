import AuthHandlerSystem
import CCurl

/// libcurl's one-time global initialisation, after the process's own (`ProcessSetup`: OpenSSL first, so that curl
/// finds it initialised without an exit handler of its own, curl_global_init(3)).
package enum CurlGlobalSetup {
    /// Initialises once (thread-safe, idempotent); later calls return the first call's outcome, a failure as the
    /// `setup` error of every request the client would have sent.
    package static func ensureInitialized() throws(HTTPClientError) {
        try outcome.get()
    }

    /// Swift runs a global's initialiser exactly once, under `swift_once`, so this is the lock curl_global_init(3)
    /// asks for: no other thread calls it at the same time.
    private static let outcome: Result<Void, HTTPClientError> = initialize()

    private static func initialize() -> Result<Void, HTTPClientError> {
        let failed = { (operation: String, code: Int, text: String) in
            Result<Void, HTTPClientError>.failure(
                HTTPClientError(kind: .setup(operation: operation, code: code, text: text), method: "-", target: "-"))
        }
        do {
            try ProcessSetup.ensureInitialized()
        } catch {
            return failed(error.operation, 0, error.detail)
        }
        let code = curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        guard code == CURLE_OK else {
            return failed("curl_global_init", Int(code.rawValue), String(cString: curl_easy_strerror(code)))
        }
        return .success(())
    }
}
