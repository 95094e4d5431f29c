import AuthHandlerCrypto
import AuthHandlerStore
import Foundation

/// The ID-token signing key of instances on one PostgreSQL database whose config names no `signingKey`
/// (docs/ACCOUNTS.md "Keys the database keeps"). The first instance to start makes a P-256 key and stores its
/// PEM in the database sealed with AES-256-GCM under a key derived from the state key (HKDF-SHA256, RFC 5869, a label
/// of its own), which every instance shares already; the others open it. This is how Ory Hydra keeps its signing keys
/// (in its database, encrypted under its `secrets.system`): with `stateKey` in the configs, a copy of the database
/// alone does not give the key. (Without one, the database keeps the state key too, and such a copy gives both.)
package enum SharedSigningKey {
    /// The HKDF label of the sealing key.
    static let label = "auth-handler accounts signing-key"
    /// The key's row in `account_keys`.
    static let name = "signing-key"
    /// Bound into each seal, so that no other sealed value of the daemon's can stand in for the key.
    static let associatedData = Array("auth-handler accounts signing key v1".utf8)

    /// The key stored in `store`, made and stored first when there is none. A key sealed under one of
    /// `previousStateKeys` is opened with it and stored again under `stateKey`.
    package static func load(from store: PostgresAccountStore, stateKey: [UInt8], previousStateKeys: [[UInt8]])
        throws(AccountSigningKeyError) -> AccountSigningKey
    {
        try load(settings: store.settings, stateKey: stateKey, previousStateKeys: previousStateKeys)
    }

    /// ``load(from:stateKey:previousStateKeys:)`` on the database of `settings`, without an open store: a reload
    /// that changed the state keys seals the stored key under the new one at once (docs/ACCOUNTS.md "Keys the database
    /// keeps"), so that dropping the old key later cannot strand it.
    package static func load(settings: PostgresSettings, stateKey: [UInt8], previousStateKeys: [[UInt8]])
        throws(AccountSigningKeyError) -> AccountSigningKey
    {
        let current = try sealingKey(stateKey)
        let fresh = try AccountSigningKey.generate()
        let candidate: [UInt8]
        do {
            candidate = try AES256GCM.seal(
                Array(try fresh.pkcs8PEM().reveal().utf8), key: current, associatedData: associatedData)
        } catch let error as AccountSigningKeyError {
            throw error
        } catch {
            throw AccountSigningKeyError("cannot seal the new signing key: \(error)")
        }
        let stored: [UInt8]
        do {
            stored = try PostgresAccountStore.storedKey(Self.name, candidate: candidate, settings: settings, at: Date())
        } catch {
            throw AccountSigningKeyError("the signing key in the database: \(error.detail)")
        }
        if stored == candidate { return fresh }
        if let pem = AES256GCM.open(stored, key: current, associatedData: associatedData) {
            return try key(pem)
        }
        for previous in previousStateKeys {
            guard let pem = AES256GCM.open(stored, key: try sealingKey(previous), associatedData: associatedData)
            else { continue }
            let key = try key(pem)
            do {
                let resealed = try AES256GCM.seal(pem, key: current, associatedData: associatedData)
                try PostgresAccountStore.replaceStoredKey(Self.name, stored, with: resealed, settings: settings)
            } catch {
                throw AccountSigningKeyError("cannot seal the signing key under the new stateKey: \(error)")
            }
            return key
        }
        throw AccountSigningKeyError(
            "the signing key in the database was sealed under another stateKey: give every instance the same "
                + "stateKey (after a rotation, the old one among previousStateKeys), or set signingKey")
    }

    private static func sealingKey(_ stateKey: [UInt8]) throws(AccountSigningKeyError) -> [UInt8] {
        do {
            return try HKDF.sha256(inputKeyMaterial: stateKey, salt: [], info: Array(label.utf8), length: 32)
        } catch {
            throw AccountSigningKeyError("cannot derive the key that seals the signing key: \(error)")
        }
    }

    private static func key(_ pem: [UInt8]) throws(AccountSigningKeyError) -> AccountSigningKey {
        try AccountSigningKey(
            pem: Secret(String(decoding: pem, as: UTF8.self)), source: "the signing key in the database")
    }
}
