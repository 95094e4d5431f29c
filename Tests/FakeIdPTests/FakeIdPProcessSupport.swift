import Foundation

/// `fake-idp listening on http://HOST:PORT` → `http://HOST:PORT`.
func listeningURL(_ line: String?) -> String? {
    let prefix = "fake-idp listening on "
    guard let line, line.hasPrefix(prefix) else { return nil }
    return String(line.dropFirst(prefix.count))
}
