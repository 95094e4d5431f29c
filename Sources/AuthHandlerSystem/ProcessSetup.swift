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

/// One-time, process-wide initialisation of OpenSSL and signal handling. libcurl's, which must follow OpenSSL's, is
/// `CurlGlobalSetup` in the HTTP layer, the only layer that sees curl.
package enum ProcessSetup {
    /// Initialises once (thread-safe, idempotent); later calls return the first call's outcome.
    package static func ensureInitialized() throws(ProcessSetupError) {
        try outcome.get()
    }

    /// Swift runs a global's initialiser exactly once, under `swift_once`, so this is the lock.
    private static let outcome: Result<Void, ProcessSetupError> = initialize()

    private static func initialize() -> Result<Void, ProcessSetupError> {
        // Why NO_ATEXIT: OpenSSL's atexit handler and libcurl's cleanup otherwise race at exit and double-free
        // (OPENSSL_init_crypto(3); swift-corelibs-foundation does the same).
        if OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil) != 1 {
            return .failure(
                ProcessSetupError(operation: "OPENSSL_init_crypto", detail: "OpenSSL could not initialise"))
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
