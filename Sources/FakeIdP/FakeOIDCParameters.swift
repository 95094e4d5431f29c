import AuthHandlerCore
import AuthHandlerHTTP

/// The parameters of one OAuth 2 request, read as RFC 6749 §3.1 says: an empty value counts as absent.
struct FakeOIDCParameters {
    /// Every field, in order, as received.
    let fields: [URLFormField]

    /// The value of `name`, or nil when absent or empty.
    subscript(name: String) -> String? {
        guard let value = fields.first(named: name), !value.isEmpty else { return nil }
        return value
    }

    /// The names sent more than once, which RFC 6749 §3.1 and §3.2 forbid, sorted.
    var repeatedNames: [String] {
        var counts: [String: Int] = [:]
        for field in fields { counts[field.name, default: 0] += 1 }
        return counts.filter { $0.value > 1 }.map(\.key).sorted()
    }

    /// Whether `name` was sent more than once.
    func isRepeated(_ name: String) -> Bool {
        fields.all(named: name).count > 1
    }
}

extension FakeOIDCParameters {
    /// The tokens of a `scope` value, or nil unless it is single-space-separated RFC 6749 §3.3 `scope-token`s.
    static func scopeTokens(_ scope: String) -> [String]? {
        let tokens = scope.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        let isScopeToken = { (token: String) in
            !token.isEmpty
                && token.utf8.allSatisfy { $0 == 0x21 || (0x23...0x5B).contains($0) || (0x5D...0x7E).contains($0) }
        }
        return tokens.allSatisfy(isScopeToken) ? tokens : nil
    }
}
