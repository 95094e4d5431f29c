import AuthHandlerHTTP
import AuthHandlerStore
import Foundation

/// Store `sqlite` (CONFIG.md `store`): one file, the default for `serve`.
package struct SQLiteStoreConfig: Sendable, Hashable {
    /// Where the file lives when neither `path` nor `$STATE_DIRECTORY` says.
    package static let defaultStateDirectory = "/var/lib/auth-handler"

    /// The file (`path`), absolute after loading; nil means `$STATE_DIRECTORY/state.sqlite`.
    package var path: String?
}

extension SQLiteStoreConfig {
    /// The keys this kind reads.
    static let keys = ["path"]

    /// Reads `path`, relative to the config file's directory; warns about the keys of other kinds.
    init(validating fields: [String: JSONValue], at path: ConfigPath, by validator: inout ConfigValidator) {
        if let pathValue = fields["path"], let text = validator.string(pathValue, at: path.key("path")) {
            self.path = validator.absolutePath(text)
        }
        validator.warnIgnored(
            in: fields, sectionKeys: StoreConfig.keys, read: Self.keys, kind: StoreConfig.Kind.sqlite, at: path)
    }

    /// Opens (creating it if needed) the file, and answers its path.
    func makeStore(environment: SecretEnvironment) throws(StoreSetupError) -> (
        store: any SessionStore & DeviceStore, sqlitePath: String?
    ) {
        let directory = environment.variables["STATE_DIRECTORY"]?.split(separator: ":").first.map(String.init)
        let file = path ?? (directory ?? Self.defaultStateDirectory) + "/state.sqlite"
        if path == nil, directory == nil {
            // Outside systemd (which makes StateDirectory=) the default directory may not exist yet.
            try? FileManager.default.createDirectory(
                atPath: Self.defaultStateDirectory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        }
        do {
            return (try SQLiteSessionStore(path: file), file)
        } catch {
            throw .sqliteUnopenable(path: file, error)
        }
    }
}
