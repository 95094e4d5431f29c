import Foundation
import Synchronization
import TestSupport
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP
@testable import AuthHandlerSystem
@testable import auth_handler

#if canImport(Glibc)
    import Glibc
#endif

/// sd_notify(3) spoken directly: message text, `$NOTIFY_SOCKET` addressing, datagrams to a real socket.
struct SystemdNotifierTests {
    @Test func messagesAreTheAssignmentsSdNotifyNames() {
        #expect(ServiceManagerMessage.ready(status: "listening").text == "READY=1\nSTATUS=listening")
        #expect(
            ServiceManagerMessage.reloading(monotonicMicroseconds: 1_234_567).text
                == "RELOADING=1\nMONOTONIC_USEC=1234567")
        #expect(ServiceManagerMessage.stopping.text == "STOPPING=1")
        #expect(ServiceManagerMessage.watchdog.text == "WATCHDOG=1")
        #expect(ServiceManagerMessage.status("a b").text == "STATUS=a b")
    }

    @Test func aStatusCannotSmuggleAnotherAssignment() {
        let text = ServiceManagerMessage.ready(status: "up\nSTOPPING=1\r\0x").text
        #expect(text == "READY=1\nSTATUS=up STOPPING=1  x")
        #expect(text.split(separator: "\n").count == 2)
    }

    @Test func aPathIsNULTerminatedAndAnAtNameIsAbstract() throws {
        let path = try NotifySocketAddress("/run/systemd/notify")
        #expect(!path.isAbstract)
        #expect(path.pathBytes == Array("/run/systemd/notify".utf8))
        // sun_family (2 bytes), the path, its NUL.
        #expect(path.length == socklen_t(2 + 19 + 1))

        let abstract = try NotifySocketAddress("@auth/notify")
        #expect(abstract.isAbstract)
        #expect(abstract.pathBytes == [0] + Array("auth/notify".utf8))
        // The abstract name's length ends it: no terminator (unix(7)).
        #expect(abstract.length == socklen_t(2 + 1 + 11))
        abstract.withSocketAddress { address, length in
            address.withMemoryRebound(to: sockaddr_un.self, capacity: 1) { un in
                #expect(un.pointee.sun_family == sa_family_t(AF_UNIX))
                let bytes = withUnsafeBytes(of: un.pointee.sun_path) { Array($0.prefix(12)) }
                #expect(bytes == [0] + Array("auth/notify".utf8))
            }
            #expect(length == abstract.length)
        }
    }

    @Test func unusableValuesAreRefused() {
        for value in ["relative/notify", "vsock:2:1234", "@", "/" + String(repeating: "x", count: 107), "/a\0b"] {
            #expect(throws: NotifySocketAddress.Refusal.self, "\(value.prefix(20))") {
                try NotifySocketAddress(value)
            }
        }
        // 107 path bytes leave room for the NUL; 107 abstract name bytes fill sun_path with the leading NUL.
        #expect((try? NotifySocketAddress("/" + String(repeating: "x", count: 106))) != nil)
        #expect((try? NotifySocketAddress("@" + String(repeating: "x", count: 107))) != nil)
        #expect((try? NotifySocketAddress("@" + String(repeating: "x", count: 108))) == nil)
    }

    @Test func withoutNotifySocketThereIsNoNotifier() {
        let sink = CapturingLogSink()
        #expect(SystemdNotifier.fromEnvironment([:], log: EventLog(sink: sink)) == nil)
        #expect(SystemdNotifier.fromEnvironment(["NOTIFY_SOCKET": ""], log: EventLog(sink: sink)) == nil)
        #expect(sink.captured.isEmpty)
        #expect(SystemdNotifier.fromEnvironment(["NOTIFY_SOCKET": "x"], log: EventLog(sink: sink)) == nil)
        #expect(sink.captured.count == 1)
        #expect(sink.captured.first?.contains("event=sd_notify outcome=disabled") == true)
    }

    @Test func datagramsReachAPathSocket() async throws {
        let directory = try ConfigTemporaryDirectory()
        let listener = try NotifySocketListener(at: directory.path + "/notify")
        let notifier = try #require(
            SystemdNotifier.fromEnvironment(["NOTIFY_SOCKET": listener.environmentValue], log: EventLog()))
        try notifier.send(.ready(status: "serving"))
        try notifier.send(.watchdog)
        #expect(await listener.next { _ in true }?.text == "READY=1\nSTATUS=serving")
        #expect(await listener.next { _ in true }?.text == "WATCHDOG=1")
        await listener.close()
    }

    @Test func datagramsReachAnAbstractSocket() async throws {
        let name = "@auth-handler-test-\(UUID().uuidString)"
        let listener = try NotifySocketListener(at: name)
        let notifier = try SystemdNotifier(address: try NotifySocketAddress(name))
        try notifier.send(.stopping)
        #expect(await listener.next { _ in true }?.text == "STOPPING=1")
        await listener.close()
    }

    @Test func aMissingManagerIsAnErrorWithErrno() throws {
        let directory = try ConfigTemporaryDirectory()
        let notifier = try SystemdNotifier(address: try NotifySocketAddress(directory.path + "/nobody"))
        let error = try #require(throws: SystemCallError.self) { try notifier.send(.watchdog) }
        #expect(error.call == "sendto")
        #expect(error.errorNumber == ENOENT)
        #expect(error.description.contains("(errno \(ENOENT))"))
    }

    @Test func theMonotonicClockIsCLOCK_MONOTONIC() {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let before = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        let reading = MonotonicClock.microseconds()
        #expect(reading >= before && reading - before < 1_000_000)
    }
}

/// `WatchdogSec=`: when to ping, and no ping without a live daemon.
struct SystemdWatchdogTests {
    @Test func pingsEveryHalfOfWatchdogUSecForThisProcessOnly() {
        #expect(SystemdWatchdog.pingInterval(environment: ["WATCHDOG_USEC": "200000"], pid: 42) == .milliseconds(100))
        #expect(
            SystemdWatchdog.pingInterval(environment: ["WATCHDOG_USEC": "200000", "WATCHDOG_PID": "42"], pid: 42)
                == .milliseconds(100))
        #expect(
            SystemdWatchdog.pingInterval(environment: ["WATCHDOG_USEC": "200000", "WATCHDOG_PID": "41"], pid: 42)
                == nil)
        for value in ["", "0", "-5", "2s", "abc"] {
            #expect(SystemdWatchdog.pingInterval(environment: ["WATCHDOG_USEC": value], pid: 42) == nil, "\(value)")
        }
        #expect(SystemdWatchdog.pingInterval(environment: [:], pid: 42) == nil)
    }

    @Test func aFailingProbeSendsNoPingAndARecoveredOneDoes() async {
        let probes = Atomic<Int>(0)
        let pings = Atomic<Int>(0)
        // The probe fails three times (a stalled listener), then answers; the loop ends after six probes.
        let (done, finish) = AsyncStream<Void>.makeStream()
        let loop = Task {
            await SystemdWatchdog.run(
                every: .milliseconds(5),
                probe: {
                    let count = probes.add(1, ordering: .relaxed).newValue
                    if count == 6 { finish.finish() }
                    return count > 3
                },
                ping: { pings.add(1, ordering: .relaxed) })
        }
        for await _ in done {}
        loop.cancel()
        await loop.value
        #expect(probes.load(ordering: .relaxed) >= 6)
        #expect(pings.load(ordering: .relaxed) >= 2)
        #expect(pings.load(ordering: .relaxed) <= probes.load(ordering: .relaxed) - 3)
    }

    @Test func aStalledProbeHoldsBackItsPing() async {
        let pings = Atomic<Int>(0)
        let (started, probeStarted) = AsyncStream<Void>.makeStream()
        let loop = Task {
            await SystemdWatchdog.run(
                every: .milliseconds(5),
                probe: {
                    probeStarted.yield()
                    // Never answers until cancelled: the daemon's own request is stuck.
                    try? await Task.sleep(for: .seconds(60))
                    return true
                },
                ping: { pings.add(1, ordering: .relaxed) })
        }
        for await _ in started { break }
        loop.cancel()
        await loop.value
        #expect(pings.load(ordering: .relaxed) == 0)
    }
}
