import Foundation
import Synchronization

/// `--once`'s pending sign-in: the cookie a browser would carry, kept in the process instead, so the sign-in can only
/// be completed through this run (HTTP-API.md §1.4).
package final class OnceSignIn: Sendable {
    private let pair = Mutex("")

    package init() {}

    /// The `name=value` of the sealed pending sign-in, as a `Cookie` header would carry it.
    var cookiePair: String { pair.withLock { $0 } }

    /// Keeps the pending sign-in of the start this run made.
    package func keep(_ answer: StartAnswer) { pair.withLock { $0 = answer.cookiePair } }
}
