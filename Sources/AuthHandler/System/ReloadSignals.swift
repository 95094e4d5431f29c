import Dispatch
import Foundation

/// SIGHUP as an async event, for a reload (the daemon convention systemd.service(5) assumes for `ExecReload=kill -HUP
/// $MAINPID`).
///
/// SIGHUP's default action (terminate) is turned off first; create this early, before binding, so that a SIGHUP sent
/// while starting cannot kill the daemon. Several SIGHUPs before the next reload begins make one reload.
///
/// `@unchecked Sendable`: the source is created in `init`, never mutated, and only cancelled in `deinit`; dispatch
/// sources are thread-safe objects.
public final class ReloadSignals: @unchecked Sendable {
    /// One element per reload asked for.
    public let requests: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    private let source: any DispatchSourceSignal

    public init() {
        (requests, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let continuation = self.continuation
        try? SystemCall.ignore(signal: SIGHUP, name: "SIGHUP")
        source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        source.setEventHandler { continuation.yield() }
        source.resume()
    }

    deinit {
        source.cancel()
        continuation.finish()
    }
}
