import CProcessShims

#if canImport(Glibc)
    import Glibc
#endif

/// A hardening step that failed, with the system call and its `errno`.
package struct ProcessHardeningError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The call that failed, e.g. `"setrlimit(RLIMIT_CORE, 0)"`.
    package let operation: String
    /// The `errno` it set.
    package let errno: Int32

    package var description: String {
        "\(operation) failed: \(String(cString: strerror(errno))) (errno \(errno))"
    }
}

/// Keeps secrets in this process's memory (state key, client secrets, tokens in flight) out of core files
/// and away from other processes of the same user.
package enum ProcessHardening {
    /// Sets `RLIMIT_CORE` to 0, soft and hard, so no core file is written (setrlimit(2)), and clears the
    /// dumpable flag, which also stops a core dump through a `core_pattern` pipe and `ptrace` attach by
    /// the same user (prctl(2), `PR_SET_DUMPABLE`). Call once, early in `serve` and `--once`.
    ///
    /// Lowering a hard limit needs no privilege; raising it again does, so this cannot be undone.
    package static func forbidCoreDumps() throws(ProcessHardeningError) {
        do throws(SystemCallError) {
            var limit = rlimit(rlim_cur: 0, rlim_max: 0)
            try SystemCall.run("setrlimit(RLIMIT_CORE, 0)", subject: "") {
                setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &limit)
            }
            try SystemCall.run("prctl(PR_SET_DUMPABLE, 0)", subject: "") { shim_prctl_set_dumpable(0) }
        } catch {
            throw ProcessHardeningError(operation: error.call, errno: error.errorNumber)
        }
    }
}
