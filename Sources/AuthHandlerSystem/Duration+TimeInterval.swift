import Foundation

extension Duration {
    /// The span in seconds, for `Date` arithmetic and for the places that write seconds (`Max-Age`, a metric).
    package var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
