import AuthHandlerAccounts
import AuthHandlerCrypto
import AuthHandlerHTTP

/// The pending credential of `account-exists-with-different-credential` (`PendingCredential`, issue 25 §2) under a
/// fixed test key.
///
/// The first byte chooses what the rest is: even, the text `POST /__/auth/user/link` receives, opened as it does;
/// odd, the plaintext of a credential, sealed under the key and opened, so that the fuzzer reaches the decoder behind
/// the AEAD tag; what opens seals and opens again to the same credential.
enum PendingCredentialTarget {
    static let key = [UInt8](repeating: 0x5A, count: 32)

    static func run(_ input: [UInt8]) {
        guard let mode = input.first else { return }
        let rest = Array(input.dropFirst())
        let opened: PendingCredential?
        if mode & 1 == 0 {
            opened = PendingCredential(opening: String(decoding: rest, as: UTF8.self), key: key)
        } else {
            guard let box = try? AES256GCM.seal(rest, key: key) else { return }
            let text = Base64.urlEncode(box)
            opened = PendingCredential(opening: text, key: key)
            expect(
                PendingCredential(opening: text, key: [UInt8](repeating: 0x5B, count: 32)) == nil,
                "a pending credential opens under another key")
        }
        guard let opened, let resealed = try? opened.sealed(key: key) else { return }
        expect(PendingCredential(opening: resealed, key: key) == opened, "a resealed pending credential changed")
    }
}
