import AuthHandlerCrypto
import AuthHandlerSystem
import Foundation

/// Where a secret comes from: `{"file": PATH}`, `{"env": NAME}`, `{"credential": NAME}` or an inline string.
package enum SecretReference: Sendable, Hashable, CustomStringConvertible {
    /// A file holding the secret; relative paths are resolved against the config file's directory at load time.
    case file(String)
    /// An environment variable holding the secret.
    case environment(String)
    /// A systemd credential: the file `$CREDENTIALS_DIRECTORY/NAME`.
    case credential(String)
    /// The secret written into the config itself (accepted, with a warning from `check-config`).
    case inline(Secret)

    /// The forms a reference is written in, for messages that say what to write.
    package static let forms = #"{"file": PATH}, {"env": NAME} or {"credential": NAME}"#

    /// The JSON key of the reference object (`file`, `env`, `credential`), nil for an inline string.
    package var jsonKey: String? {
        switch self {
        case .file: "file"
        case .environment: "env"
        case .credential: "credential"
        case .inline: nil
        }
    }

    package var description: String {
        switch self {
        case .file(let path): "file '\(path)'"
        case .environment(let name): "environment variable \(name)"
        case .credential(let name): "credential '\(name)'"
        case .inline: "inline secret \(Redaction.marker)"
        }
    }

    /// Reads the secret. A single trailing newline (as `echo` writes) is removed from files and credentials.
    package func resolve(in environment: SecretEnvironment) throws(SecretResolutionError) -> Secret {
        switch self {
        case .inline(let secret):
            if secret.reveal().isEmpty { throw .inlineEmpty }
            return secret
        case .environment(let name):
            guard let value = environment.variables[name] else { throw .environmentUnset(name: name) }
            if value.isEmpty { throw .environmentEmpty(name: name) }
            return Secret(value)
        case .file(let path):
            return try Self.readFile(path)
        case .credential(let name):
            guard let directory = environment.credentialsDirectory else {
                throw .credentialsDirectoryUnset(name: name)
            }
            let path = (directory as NSString).appendingPathComponent(name)
            do {
                return try Self.readFile(path)
            } catch .fileEmpty {
                throw .credentialEmpty(name: name, directory: directory)
            } catch {
                throw .credentialMissing(name: name, directory: directory)
            }
        }
    }

    private static func readFile(_ path: String) throws(SecretResolutionError) -> Secret {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .fileMissing(path: path)
        }
        if isDirectory.boolValue { throw .fileIsDirectory(path: path) }
        guard FileManager.default.isReadableFile(atPath: path), let data = FileManager.default.contents(atPath: path)
        else {
            throw .fileUnreadable(path: path)
        }
        guard var text = String(data: data, encoding: .utf8) else { throw .fileNotText(path: path) }
        if text.hasSuffix("\r\n") {
            text.removeLast(2)
        } else if text.hasSuffix("\n") {
            text.removeLast()
        }
        if text.isEmpty { throw .fileEmpty(path: path) }
        return Secret(text)
    }
}
