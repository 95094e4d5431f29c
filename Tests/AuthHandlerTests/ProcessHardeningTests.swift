import CProcessShims
import Testing

@testable import AuthHandlerSystem

#if canImport(Glibc)
    import Glibc
#endif

struct ProcessHardeningTests {
    /// Runs in the test process, which stays non-dumpable and without core files afterwards (harmless).
    @Test func coreDumpsAreForbiddenAndTheProcessIsNotDumpable() throws {
        try ProcessHardening.forbidCoreDumps()
        var limit = rlimit(rlim_cur: 1, rlim_max: 1)
        #expect(getrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &limit) == 0)
        #expect(limit.rlim_cur == 0)
        #expect(limit.rlim_max == 0)
        #expect(shim_prctl_get_dumpable() == 0)
        // Idempotent: a second call (serve after a failed start, say) succeeds too.
        try ProcessHardening.forbidCoreDumps()
    }

    @Test func errorNamesTheCallAndErrno() {
        let error = ProcessHardeningError(operation: "prctl(PR_SET_DUMPABLE, 0)", errno: EPERM)
        #expect(error.description.hasPrefix("prctl(PR_SET_DUMPABLE, 0) failed: "))
        #expect(error.description.hasSuffix("(errno \(EPERM))"))
    }
}
