import AuthHandlerSystem
import CCurl

/// libcurl's one-time global initialisation, after the process's own (`ProcessSetup`: OpenSSL first, so that curl
/// finds it initialised without an exit handler of its own, curl_global_init(3)).
package enum CurlGlobalSetup {
    /// Initialises once (thread-safe, idempotent); later calls return the first call's outcome.
    package static func ensureInitialized() throws(ProcessSetupError) {
        try outcome.get()
    }

    /// Swift runs a global's initialiser exactly once, under `swift_once`, so this is the lock curl_global_init(3)
    /// asks for: no other thread calls it at the same time.
    private static let outcome: Result<Void, ProcessSetupError> = initialize()

    private static func initialize() -> Result<Void, ProcessSetupError> {
        do {
            try ProcessSetup.ensureInitialized()
        } catch {
            return .failure(error)
        }
        let code = curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        guard code == CURLE_OK else {
            let text = String(cString: curl_easy_strerror(code))
            return .failure(
                ProcessSetupError(operation: "curl_global_init", detail: "CURLcode \(code.rawValue): \(text)"))
        }
        return .success(())
    }
}
