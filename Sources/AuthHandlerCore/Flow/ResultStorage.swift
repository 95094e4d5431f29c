import AuthHandlerCrypto
import AuthHandlerStore
import AuthHandlerSystem
import Foundation

/// Results sealed under their code (``ResultSeal``) and kept in the store until redeemed or expired (HTTP-API.md
/// §3.2, §3.3): what every way to sign in shares once it knows who signed in (docs/ARCHITECTURE.md, `Flow`).
struct ResultStorage: Sendable {
    let store: any SessionStore
    /// How long a result waits for redemption (`resultTTLSeconds`).
    let resultTTL: Duration
    let now: WallClock

    /// Keeps the result under a fresh code, or under `given` (a device sign-in's, HTTP-API.md §3.9).
    func save(_ result: StoredResult, code given: String? = nil) async throws(CallbackFailure) -> String {
        let code: String
        let sealed: [UInt8]
        do {
            code = try given ?? SecureRandom.base64URLString(byteCount: 32)
            sealed = try ResultSeal.seal(result.json.serialized, code: code)
        } catch {
            throw .internal("the result could not be stored")
        }
        do {
            try await store.insertResult(
                code: code, payload: sealed, expiresAt: now().addingTimeInterval(resultTTL.timeInterval))
        } catch {
            throw .internal("the result could not be stored: \(SignInFlow.storeFailure(error).message)")
        }
        return code
    }
}
