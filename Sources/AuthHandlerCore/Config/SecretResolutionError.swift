/// Why a secret reference could not be resolved. Messages name where the secret was looked for, never its value.
package enum SecretResolutionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file does not exist.
    case fileMissing(path: String)
    /// The path names a directory.
    case fileIsDirectory(path: String)
    /// The file exists but cannot be read by this process.
    case fileUnreadable(path: String)
    /// The file is not UTF-8 text.
    case fileNotText(path: String)
    /// The file is empty (or holds only a newline).
    case fileEmpty(path: String)
    /// The environment variable is not set.
    case environmentUnset(name: String)
    /// The environment variable is set but empty.
    case environmentEmpty(name: String)
    /// `$CREDENTIALS_DIRECTORY` is not set, so `{"credential": NAME}` cannot be found.
    case credentialsDirectoryUnset(name: String)
    /// `$CREDENTIALS_DIRECTORY/NAME` does not exist or cannot be read.
    case credentialMissing(name: String, directory: String)
    /// The credential file is empty.
    case credentialEmpty(name: String, directory: String)
    /// An inline secret is the empty string.
    case inlineEmpty

    package var description: String {
        switch self {
        case .fileMissing(let path):
            "secret file '\(path)' does not exist; expected a readable file holding the secret"
        case .fileIsDirectory(let path):
            "secret file '\(path)' is a directory; expected a readable file holding the secret"
        case .fileUnreadable(let path):
            "secret file '\(path)' is not readable by this user; fix its owner or mode"
        case .fileNotText(let path):
            "secret file '\(path)' is not UTF-8 text; expected the secret as text"
        case .fileEmpty(let path):
            "secret file '\(path)' is empty; expected the secret in it"
        case .environmentUnset(let name):
            "environment variable \(name) is not set; set it, or point this secret at a file or credential"
        case .environmentEmpty(let name):
            "environment variable \(name) is empty; expected the secret in it"
        case .credentialsDirectoryUnset(let name):
            "credential '\(name)' needs $CREDENTIALS_DIRECTORY (systemd LoadCredential=), which is not set"
        case .credentialMissing(let name, let directory):
            "credential '\(name)' is not readable in $CREDENTIALS_DIRECTORY (\(directory)); "
                + "add LoadCredential=\(name):PATH to the unit"
        case .credentialEmpty(let name, let directory):
            "credential '\(name)' in \(directory) is empty; expected the secret in it"
        case .inlineEmpty:
            "secret is an empty string; expected \(SecretReference.forms)"
        }
    }
}
