import Dispatch
import Foundation

/// SIGINT and SIGTERM (or the signals given) as async events: for a graceful stop, and (`[SIGHUP]`, the convention
/// systemd.service(5) assumes for `ExecReload=kill -HUP $MAINPID`) for a reload.
///
/// The default action (terminate at once) is turned off first, as `DispatchSource.makeSignalSource`
/// requires; create this before binding sockets so that no signal is lost in between (a SIGHUP while starting is
/// then a reload later, not the end of the process). Several signals before the next is taken count as one.
///
/// `@unchecked Sendable`: the sources are created in `init`, never mutated, and only cancelled in `deinit`;
/// dispatch sources are thread-safe objects.
package final class TerminationSignals: @unchecked Sendable {
    private let stream: AsyncStream<Int32>
    private let continuation: AsyncStream<Int32>.Continuation
    private let sources: [any DispatchSourceSignal]

    package init(_ numbers: [Int32] = [SIGINT, SIGTERM]) {
        (stream, continuation) = AsyncStream<Int32>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let continuation = self.continuation
        sources = numbers.map { number in
            try? SystemCall.ignore(signal: number, name: "signal \(number)")
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
    }

    deinit {
        for source in sources { source.cancel() }
        continuation.finish()
    }

    /// Every signal taken, in order (one consumer).
    package var events: AsyncStream<Int32> { stream }

    /// Returns when the first of the signals arrives, with its number.
    package func next() async -> Int32? {
        for await number in stream { return number }
        return nil
    }
}
