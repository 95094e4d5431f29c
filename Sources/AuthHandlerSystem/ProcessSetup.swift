import CCurl
import COpenSSL

#if canImport(Glibc)
    import Glibc
#endif

/// A failure of the one-time process initialisation, with the library call that failed.
package struct ProcessSetupError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The call that failed, e.g. `"curl_global_init"`.
    package let operation: String
    /// What the library said.
    package let detail: String

    package var description: String { "\(operation) failed: \(detail)" }
}

/// One-time, process-wide initialisation of OpenSSL, libcurl and signal handling.
package enum ProcessSetup {
    /// Initialises once (thread-safe, idempotent); later calls return the first call's outcome.
    package static func ensureInitialized() throws(ProcessSetupError) {
        try outcome.get()
    }

    /// Swift runs a global's initialiser exactly once, under `swift_once`, so this is the lock.
    private static let outcome: Result<Void, ProcessSetupError> = initialize()

    private static func initialize() -> Result<Void, ProcessSetupError> {
        // Why NO_ATEXIT: OpenSSL's atexit handler and libcurl's cleanup otherwise race at exit
        // and double-free (swift-corelibs-foundation does the same, see its CFURLSessionInterface.c).
        if OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil) != 1 {
            return .failure(
                ProcessSetupError(operation: "OPENSSL_init_crypto", detail: "OpenSSL could not initialise"))
        }
        let code = curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        if code != CURLE_OK {
            let text = String(cString: curl_easy_strerror(code))
            return .failure(
                ProcessSetupError(operation: "curl_global_init", detail: "CURLcode \(code.rawValue): \(text)"))
        }
        // A peer closing a socket mid-write must surface as EPIPE, not kill the daemon.
        do throws(SystemCallError) {
            try SystemCall.ignore(signal: SIGPIPE, name: "SIGPIPE")
        } catch {
            return .failure(ProcessSetupError(operation: error.call, detail: "errno \(error.errorNumber)"))
        }
        return .success(())
    }
}
