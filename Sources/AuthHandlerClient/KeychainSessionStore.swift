#if canImport(Security)
    import Foundation
    import Security

    /// A ``SessionStore`` in the keychain, on Apple platforms: one generic password item, readable after the first
    /// unlock and never synced or restored to another device (`kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`).
    public struct KeychainSessionStore: SessionStore {
        /// The item's `kSecAttrService`, such as the app's bundle identifier.
        public let service: String
        /// The item's `kSecAttrAccount`.
        public let account: String

        public init(service: String, account: String = "auth-handler-session") {
            self.service = service
            self.account = account
        }

        private var query: [String: Any] {
            [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                kSecAttrAccount as String: account,
            ]
        }

        public func load() throws(AuthHandlerClientError) -> AccountSession? {
            var search = query
            search[kSecReturnData as String] = true
            search[kSecMatchLimit as String] = kSecMatchLimitOne
            var item: CFTypeRef?
            let status = SecItemCopyMatching(search as CFDictionary, &item)
            if status == errSecItemNotFound { return nil }
            guard status == errSecSuccess, let data = item as? Data else { throw Self.failure("read", status) }
            do {
                return try JSONDecoder().decode(AccountSession.self, from: data)
            } catch {
                throw .sessionStore(message: "the keychain item does not hold a session; sign in again")
            }
        }

        public func save(_ session: AccountSession) throws(AuthHandlerClientError) {
            let data: Data
            do {
                data = try JSONEncoder().encode(session)
            } catch {
                throw .sessionStore(message: "the session cannot be written as JSON: \(error)")
            }
            let update: [String: Any] = [
                kSecValueData as String: data,
                kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
            ]
            var status = SecItemUpdate(query as CFDictionary, update as CFDictionary)
            if status == errSecItemNotFound {
                status = SecItemAdd(query.merging(update) { $1 } as CFDictionary, nil)
            }
            guard status == errSecSuccess else { throw Self.failure("write", status) }
        }

        public func clear() throws(AuthHandlerClientError) {
            let status = SecItemDelete(query as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else { throw Self.failure("delete", status) }
        }

        private static func failure(_ operation: String, _ status: OSStatus) -> AuthHandlerClientError {
            let text = SecCopyErrorMessageString(status, nil).map { $0 as String } ?? "OSStatus \(status)"
            return .sessionStore(message: "the keychain \(operation) failed: \(text)")
        }
    }
#endif
