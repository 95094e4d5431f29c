import AuthHandlerCrypto
import AuthHandlerStore
import Foundation

/// Whether the instances on one PostgreSQL database seal with one state key (docs/ACCOUNTS.md "Keys the database
/// keeps"). The database keeps HMAC-SHA256(state key, a label of its own) as `state-key-check`, written by the first
/// instance: one whose current key gives another value refuses to start, naming the setting, instead of sealing
/// pending sign-ins, device cookies and pending credentials that the others cannot open. One whose previous key
/// (`previousStateKeys`) gives it is rotating: it writes its current key's value.
package enum StateKeyCheck {
    static let label = Array("auth-handler state-key check".utf8)

    package static func verify(settings: PostgresSettings, stateKey: [UInt8], previousStateKeys: [[UInt8]])
        throws(AccountSigningKeyError)
    {
        let current = try value(stateKey)
        let stored: [UInt8]
        do {
            stored = try PostgresAccountStore.storedKey(
                PostgresAccountStore.stateKeyCheckName, candidate: current, settings: settings, at: Date())
        } catch {
            throw AccountSigningKeyError("the state key check in the database: \(error.detail)")
        }
        guard !ConstantTime.equals(stored, current) else { return }
        for previous in previousStateKeys {
            guard ConstantTime.equals(stored, try value(previous)) else { continue }
            do {
                try PostgresAccountStore.replaceStoredKey(
                    PostgresAccountStore.stateKeyCheckName, stored, with: current, settings: settings)
            } catch {
                throw AccountSigningKeyError("the state key check in the database: \(error.detail)")
            }
            return
        }
        throw AccountSigningKeyError(
            "another instance on this database seals with a different stateKey: give every instance the same "
                + "stateKey (during a rotation, the other one among previousStateKeys)")
    }

    private static func value(_ stateKey: [UInt8]) throws(AccountSigningKeyError) -> [UInt8] {
        do {
            return try HMAC.sha256(key: stateKey, message: label)
        } catch {
            throw AccountSigningKeyError("cannot compute the state key check: \(error)")
        }
    }
}
