import Dispatch
import Foundation

/// SIGINT and SIGTERM (and any other signals given) as an async event, for a graceful stop.
///
/// The default action (terminate at once) is turned off first, as `DispatchSource.makeSignalSource`
/// requires; create this before binding sockets so that no signal is lost in between.
///
/// `@unchecked Sendable`: the sources are created in `init`, never mutated, and only cancelled in `deinit`;
/// dispatch sources are thread-safe objects.
public final class TerminationSignals: @unchecked Sendable {
    private let stream: AsyncStream<Int32>
    private let continuation: AsyncStream<Int32>.Continuation
    private let sources: [any DispatchSourceSignal]

    public init(_ numbers: [Int32] = [SIGINT, SIGTERM]) {
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

    /// Returns when the first SIGINT or SIGTERM arrives, with its number.
    public func next() async -> Int32? {
        for await number in stream { return number }
        return nil
    }
}
