import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerSystem
@testable import auth_handler

#if canImport(Glibc)
    import Glibc
#endif

struct SystemCallTests {
    @Test func anInterruptedCallIsRetried() throws {
        var calls = 0
        let result = try SystemCall.run("test", subject: "retry") { () -> Int32 in
            calls += 1
            if calls == 1 {
                errno = EINTR
                return -1
            }
            return 7
        }
        #expect(result == 7)
        #expect(calls == 2)
    }

    @Test func aFailureCarriesTheCallAndErrno() {
        let error = #expect(throws: SystemCallError.self) {
            try SystemCall.run("open", subject: "/nonexistent") { () -> Int32 in
                errno = ENOENT
                return -1
            }
        }
        #expect(error?.call == "open")
        #expect(error?.errorNumber == ENOENT)
        #expect(error?.description == "open /nonexistent failed: No such file or directory (errno \(ENOENT))")
    }
}

struct FileDescriptorTests {
    @Test func aSecondCloseDoesNothingAndUseAfterCloseIsEBADF() throws {
        let file = try FileDescriptor(opening: "/dev/null", flags: O_RDONLY | O_CLOEXEC)
        try file.close()
        #expect(!file.isOpen)
        // Whatever now holds the number (likely `other`) is left alone by the closed value.
        let other = try FileDescriptor(opening: "/dev/null", flags: O_RDONLY | O_CLOEXEC)
        try file.close()
        let error = #expect(throws: SystemCallError.self) { try file.status() }
        #expect(error?.errorNumber == EBADF)
        _ = try other.status()
    }

    @Test func aRelinquishedDescriptorStaysOpenWhenTheValueGoes() throws {
        var number: Int32?
        do {
            let file = try FileDescriptor(opening: "/dev/null", flags: O_RDONLY | O_CLOEXEC)
            number = file.relinquish()
            #expect(file.relinquish() == nil)
        }
        let relinquished = try #require(number)
        #expect(fcntl(relinquished, F_GETFD) != -1)
        #expect(Glibc.close(relinquished) == 0)
    }

    @Test func openFailuresNameTheCallAndPath() {
        let error = #expect(throws: SystemCallError.self) {
            try FileDescriptor(opening: "/nonexistent/auth-handler-test", flags: O_RDONLY | O_CLOEXEC)
        }
        #expect(error?.call == "open")
        #expect(error?.subject == "/nonexistent/auth-handler-test")
        #expect(error?.errorNumber == ENOENT)
    }
}
