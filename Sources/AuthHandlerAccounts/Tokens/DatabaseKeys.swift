import AuthHandlerCrypto
import AuthHandlerStore
import Foundation

/// What instances on one PostgreSQL database must hold alike, settled at each start (docs/ACCOUNTS.md "Keys the
/// database keeps"):
/// - **The state key's check**: HMAC-SHA256(state key, a label of its own), written by the first instance. An instance
///   whose current state key gives another value is refused, naming the setting, instead of sealing pending sign-ins,
///   device cookies and pending credentials that the others cannot open; one whose previous key (`previousStateKeys`)
///   gives it is rotating, and the check moves to its current key.
/// - **The signing key**, when the config names no `signingKey`: the first instance makes a P-256 key and stores its
///   PEM sealed with AES-256-GCM under a key derived from the state key (HKDF-SHA256, RFC 5869, a label of its own),
///   with associated data naming its purpose; the others open it. A key sealed under a previous state key is sealed
///   again under the current one. This is how Ory Hydra keeps its signing keys (in its database, encrypted under its
///   `secrets.system`).
///
/// One transaction under the advisory lock: everything is read and checked first, then written, so a refusal changes
/// nothing in the database, and two instances cannot interleave their reads and writes.
package enum DatabaseKeys {
    static let checkName = "state-key-check"
    static let checkLabel = Array("auth-handler state-key check".utf8)
    static let signingKeyName = "signing-key"
    static let sealLabel = "auth-handler accounts signing-key"
    static let associatedData = Array("auth-handler accounts signing key v1".utf8)

    /// Settles the check, and with `keepsSigningKey` answers the signing key the database keeps (made when there is
    /// none); nil without.
    package static func settle(
        settings: PostgresSettings, stateKey: [UInt8], previousStateKeys: [[UInt8]], keepsSigningKey: Bool,
        at: Date = Date()
    ) throws(AccountSigningKeyError) -> AccountSigningKey? {
        let check = try checkValue(stateKey)
        let previousChecks = try previousStateKeys.map { key throws(AccountSigningKeyError) in try checkValue(key) }
        let sealing = try sealingKey(stateKey)
        let previousSealing = try previousStateKeys.map { key throws(AccountSigningKeyError) in try sealingKey(key) }
        // Made before the lock, whether or not it is needed: a key costs well under a millisecond.
        let fresh = keepsSigningKey ? try AccountSigningKey.generate() : nil
        let freshSealed = try fresh.map { key throws(AccountSigningKeyError) in try seal(key, under: sealing) }
        var refusal: AccountSigningKeyError?
        do {
            return try PostgresAccountStore.withKeyRows(settings: settings, at: at) {
                rows throws(StoreError) -> AccountSigningKey? in
                var writes: [(name: String, value: [UInt8], exists: Bool)] = []
                switch try rows.value(checkName) {
                case nil: writes.append((checkName, check, false))
                case let stored? where ConstantTime.equals(stored, check): break
                case let stored? where previousChecks.contains(where: { ConstantTime.equals(stored, $0) }):
                    writes.append((checkName, check, true))
                case _?:
                    refusal = AccountSigningKeyError(
                        "another instance on this database seals with a different stateKey: give every instance the "
                            + "same stateKey (during a rotation, the other one among previousStateKeys)")
                    throw StoreError(.unavailable, detail: "refused")
                }
                var answer: AccountSigningKey?
                if let fresh, let freshSealed {
                    if let sealed = try rows.value(signingKeyName) {
                        if let pem = AES256GCM.open(sealed, key: sealing, associatedData: associatedData) {
                            answer = try opened(pem, refusal: &refusal)
                        } else if let pem = previousSealing.lazy.compactMap({
                            AES256GCM.open(sealed, key: $0, associatedData: associatedData)
                        }).first {
                            answer = try opened(pem, refusal: &refusal)
                            guard let resealed = try? AES256GCM.seal(pem, key: sealing, associatedData: associatedData)
                            else {
                                refusal = AccountSigningKeyError("cannot seal the signing key under the new stateKey")
                                throw StoreError(.unavailable, detail: "refused")
                            }
                            writes.append((signingKeyName, resealed, true))
                        } else {
                            refusal = AccountSigningKeyError(
                                "the signing key in the database was sealed under another stateKey: give every "
                                    + "instance the same stateKey (after a rotation, the old one among "
                                    + "previousStateKeys), or set signingKey")
                            throw StoreError(.unavailable, detail: "refused")
                        }
                    } else {
                        answer = fresh
                        writes.append((signingKeyName, freshSealed, false))
                    }
                }
                for write in writes {
                    if write.exists {
                        try rows.update(write.name, write.value)
                    } else {
                        try rows.insert(write.name, write.value)
                    }
                }
                return answer
            }
        } catch {
            if let refusal { throw refusal }
            throw AccountSigningKeyError("the keys the database keeps: \(error.detail)")
        }
    }

    /// The key in `pem`, or a refusal recorded and the transaction ended.
    private static func opened(_ pem: [UInt8], refusal: inout AccountSigningKeyError?) throws(StoreError)
        -> AccountSigningKey
    {
        do {
            return try AccountSigningKey(
                pem: Secret(String(decoding: pem, as: UTF8.self)), source: "the signing key in the database")
        } catch {
            refusal = error
            throw StoreError(.unavailable, detail: "refused")
        }
    }

    private static func seal(_ key: AccountSigningKey, under sealing: [UInt8]) throws(AccountSigningKeyError)
        -> [UInt8]
    {
        let pem = try key.pkcs8PEM()
        do {
            return try AES256GCM.seal(Array(pem.reveal().utf8), key: sealing, associatedData: associatedData)
        } catch {
            throw AccountSigningKeyError("cannot seal the new signing key: \(error)")
        }
    }

    private static func checkValue(_ stateKey: [UInt8]) throws(AccountSigningKeyError) -> [UInt8] {
        do {
            return try HMAC.sha256(key: stateKey, message: checkLabel)
        } catch {
            throw AccountSigningKeyError("cannot compute the state key check: \(error)")
        }
    }

    private static func sealingKey(_ stateKey: [UInt8]) throws(AccountSigningKeyError) -> [UInt8] {
        do {
            return try HKDF.sha256(inputKeyMaterial: stateKey, salt: [], info: Array(sealLabel.utf8), length: 32)
        } catch {
            throw AccountSigningKeyError("cannot derive the key that seals the signing key: \(error)")
        }
    }
}
