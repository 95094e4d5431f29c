import AuthHandlerCore
import AuthHandlerHTTP

/// The pending sign-in cookie's opener (HTTP-API.md §3.2) under a fixed test key ring.
///
/// The first byte chooses what the rest is: even, the request's `Cookie` header fields (one per line), each
/// pending sign-in cookie in them opened as the callback and the start's eviction do; odd, the plaintext of a
/// cookie, sealed under the ring and opened again, so that the fuzzer reaches the session decoder behind the
/// AEAD tag.
enum CookieTarget {
    private static let ring = try? StateKeyRing(
        current: [UInt8](repeating: 0x42, count: 32), previous: [[UInt8](repeating: 0x17, count: 32)])
    private static let cookieName = "auth-handler-AAAAAAAAAAAAAAAA"

    static func run(_ input: [UInt8]) {
        // A ring that cannot be built would leave nothing fuzzed, silently: stop the run instead.
        guard let ring else { preconditionFailure("cookie target: the fixed test key ring was refused") }
        guard let mode = input.first else { return }
        let rest = Array(input.dropFirst())
        if mode & 1 == 0 {
            let headers = String(decoding: rest, as: UTF8.self).split(separator: "\n").map(String.init)
            for cookie in SignInCookie.all(in: headers) {
                _ = PendingSession.opening(cookie.value, cookieName: cookie.name, keys: ring)
            }
            for value in SignInCookie.values(named: cookieName, in: headers) {
                _ = PendingSession.opening(value, cookieName: cookieName, keys: ring)
            }
        } else {
            guard let sealed = try? ring.seal(rest, context: cookieName) else { return }
            let opened = PendingSession.opening(sealed, cookieName: cookieName, keys: ring)
            expect(opened == PendingSession.decoding(rest), "a sealed cookie does not open to its plaintext")
            expect(
                PendingSession.opening(sealed, cookieName: cookieName + "B", keys: ring) == nil,
                "a sealed cookie opens under another cookie's name")
        }
    }
}
