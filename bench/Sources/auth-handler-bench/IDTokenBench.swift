import AuthHandlerAccounts
import AuthHandlerCrypto
import Foundation

/// Whole accounts ID tokens (docs/ACCOUNTS.md "ID tokens and keys"): claims built, serialized, encoded and signed
/// with ES256, then parsed, verified and checked as a bearer token. Prints `idtoken-sign N tokens/s` and
/// `idtoken-verify N tokens/s`, each the best of three rounds; bench/idtoken.sh sets them beside `openssl speed
/// ecdsap256`'s bare signatures. Rates are per second of this thread's CPU time, as `openssl speed` divides by its
/// user CPU time (openssl-speed(1), `-elapsed`): on a shared machine wall time would charge us for the neighbours.
enum IDTokenBench {
    /// `idtoken [SECONDS]`: each of sign and verify timed for SECONDS in all (default 3).
    static func run(_ arguments: [String]) throws {
        let seconds = arguments.first.flatMap(Double.init) ?? 3
        let settings = IDTokenSettings(publicURL: "https://auth.example.com", audience: "https://api.example.com")
        let ring = try SigningKeyRing(current: try AccountSigningKey.generate())
        let signer = IDTokenSigner(ring: ring, settings: settings)
        let verifier = IDTokenVerifier(ring: ring, settings: settings)
        let subject = try subject()
        let now = Date()
        var sink = 0
        var signRates: [Double] = []
        var verifyRates: [Double] = []
        let token = try signer.sign(subject, now: now).token.reveal()
        for _ in 0..<3 {
            signRates.append(
                try measureCPU(seconds: seconds / 3) {
                    sink &+= try signer.sign(subject, now: now).token.reveal().utf8.count
                })
            verifyRates.append(
                try measureCPU(seconds: seconds / 3) {
                    sink &+= try verifier.verify(token, now: now).sessionID.utf8.count
                })
        }
        if sink == 42 { print("") }
        print("idtoken-sign \(Int(signRates.max() ?? 0)) tokens/s")
        print("idtoken-verify \(Int(verifyRates.max() ?? 0)) tokens/s")
    }

    /// Runs `body` in batches of 100 until `seconds` of this thread's CPU time have passed; operations per CPU second.
    static func measureCPU(seconds: Double, _ body: () throws -> Void) rethrows -> Double {
        let cpu = threadCPUSeconds
        let start = cpu()
        var count = 0
        var now = start
        repeat {
            for _ in 0..<100 { try body() }
            count += 100
            now = cpu()
        } while now - start < seconds
        return Double(count) / (now - start)
    }

    /// A user as a Google sign-in leaves it: e-mail, name, one identity, one custom claim (a token of ~700 bytes).
    static func subject() throws -> IDTokenSubject {
        guard let localID = LocalID("u8mPZx2QeCtT0jKq4EobQ3bXy1zA") else {
            throw CryptoError(operation: "bench", detail: "the fixed local id is not one")
        }
        return IDTokenSubject(
            localID: localID, sessionID: "s-bench", authTime: Date(), signInProvider: "google.com",
            email: "alice@example.com", emailVerified: true, displayName: "Alice Example",
            photoURL: "https://lh3.googleusercontent.com/a/photo",
            identities: [
                .init(
                    providerID: "google.com",
                    providerUserID: "110169484474386276334")
            ],
            customClaims: try CustomClaims(json: .object(["role": .string("admin")])))
    }
}
