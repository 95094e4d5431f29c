import AuthHandlerCrypto
import AuthHandlerHTTP
import Foundation

extension ConfigValidator {
    /// The fields of an object, without null values; reports a non-object and every unknown key.
    mutating func object(
        _ value: JSONValue, at path: ConfigPath, allowedKeys: [String]
    ) -> [String: JSONValue]? {
        guard case .object(let fields) = value else {
            return refuse(path, "expected an object, got \(value.typeName)")
        }
        reportUnknownKeys(
            of: fields, allowed: allowedKeys, at: path, "expected one of \(allowedKeys.joined(separator: ", "))")
        return fields.filter { allowedKeys.contains($0.key) && $0.value != .null }
    }

    /// Reports every key of `fields` that is not in `allowed`, with the allowed key it is likely a typo of, and
    /// `expected`; returns the unknown keys, sorted.
    @discardableResult
    private mutating func reportUnknownKeys(
        of fields: [String: JSONValue], allowed: [String], at path: ConfigPath, _ expected: String
    ) -> [String] {
        let unknown = fields.keys.filter { !allowed.contains($0) }.sorted()
        for key in unknown {
            var message = "unknown key"
            if let suggestion = Self.closest(to: key, in: allowed) {
                message += " (did you mean \"\(suggestion)\"?)"
            }
            fail(path.key(key), "\(message); \(expected)")
        }
        return unknown
    }

    /// A non-empty string, or nil after reporting why not.
    mutating func string(_ value: JSONValue, at path: ConfigPath) -> String? {
        guard case .string(let text) = value else {
            return refuse(path, "expected a string, got \(value.typeName)")
        }
        if text.isEmpty {
            return refuse(path, "is empty; expected a non-empty string")
        }
        return text
    }

    /// A name shown to people (`branding.name`, a provider's `displayName`): at most
    /// ``Branding/maximumNameLength`` characters, no control characters, no space at either end.
    mutating func displayText(_ value: JSONValue, at path: ConfigPath) -> String? {
        guard let text = string(value, at: path) else { return nil }
        let expected = "expected a name of at most \(Branding.maximumNameLength) characters, such as \"Acme\""
        if text.count > Branding.maximumNameLength {
            return refuse(path, "is \(text.count) characters long; \(expected)")
        }
        if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return refuse(path, "contains a control character (a line break or tab, say); \(expected)")
        }
        if text.trimmingCharacters(in: .whitespaces) != text {
            return refuse(path, "starts or ends with a space; \(expected)")
        }
        return text
    }

    /// A whole number greater than zero, or nil after reporting why not.
    mutating func positiveInteger(
        _ value: JSONValue, at path: ConfigPath, counting unit: String = "seconds"
    ) -> Int? {
        let expected = "expected a positive whole number of \(unit)"
        switch (value, Self.wholeNumber(value)) {
        case (_, let number?) where number > 0 && number <= Int64(Int32.max):
            return Int(number)
        case (_, let number?):
            fail(path, "\(number) is out of range; \(expected)")
        case (.number(let number), nil):
            fail(path, "\(number) is not a whole number; \(expected)")
        default:
            fail(path, "\(expected), got \(value.typeName)")
        }
        return nil
    }

    /// The value as a 64-bit whole number: an integer, or a number with no fraction written with one (`60.0`) or an
    /// exponent (`6e1`), which configuration files have always been allowed to use for a count; nil otherwise.
    static func wholeNumber(_ value: JSONValue) -> Int64? {
        switch value {
        case .integer(let number): number
        case .number(let number): Int64(exactly: number)
        default: nil
        }
    }

    /// `true` or `false`, or nil after reporting why not.
    mutating func boolean(_ value: JSONValue, at path: ConfigPath) -> Bool? {
        guard case .bool(let flag) = value else {
            return refuse(path, "expected true or false, got \(value.typeName)")
        }
        return flag
    }

    /// One of an enumeration's raw values, or nil after listing the accepted ones.
    mutating func enumeration<Value: RawRepresentable & CaseIterable>(
        _ value: JSONValue, _ type: Value.Type, at path: ConfigPath
    ) -> Value? where Value.RawValue == String {
        let accepted = Value.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        guard case .string(let text) = value else {
            return refuse(path, "expected one of \(accepted), got \(value.typeName)")
        }
        guard let result = Value(rawValue: text) else {
            return refuse(path, "unknown value \(Self.quote(text)); expected one of \(accepted)")
        }
        return result
    }

    /// A provider or backend URL: `https`, or `http` on a loopback host.
    mutating func endpointURL(_ value: JSONValue, at path: ConfigPath) -> URL? {
        guard let text = string(value, at: path) else { return nil }
        let expected = "expected an https URL (http only on 127.0.0.1, [::1] or localhost)"
        guard let parts = URLComponents(string: text), let scheme = parts.scheme?.lowercased(),
            let host = parts.host, !host.isEmpty, let url = parts.url
        else {
            return refuse(path, "\(Self.quote(text)) is not an absolute URL; \(expected)")
        }
        if parts.user != nil || parts.password != nil {
            return refuse(path, "must not contain user info; put credentials in a secret reference instead")
        }
        switch scheme {
        case "https":
            break
        case "http" where ListenAddress.isLoopback(host: host):
            break
        case "http":
            return refuse(path, "\(Self.quote(text)) uses plain http on a non-loopback host; \(expected)")
        default:
            return refuse(path, "\(Self.quote(text)) has scheme \"\(scheme)\"; \(expected)")
        }
        if parts.fragment != nil {
            return refuse(path, "\(Self.quote(text)) has a fragment; \(expected) without one")
        }
        return url
    }

    /// A secret reference; checks that it resolves (without ever printing its value) when asked to.
    mutating func secret(_ value: JSONValue, at path: ConfigPath) -> SecretReference? {
        let expected = "expected \(SecretReference.forms)"
        let reference: SecretReference
        switch value {
        case .string(let text):
            if text.isEmpty {
                return refuse(path, "is empty; \(expected)")
            }
            warn(path, "plain-string secret in the config file; prefer \(SecretReference.forms)")
            reference = .inline(Secret(text))
        case .object(let fields):
            let unknown = reportUnknownKeys(of: fields, allowed: Self.secretKeys, at: path, expected)
            let present = Self.secretKeys.filter { fields[$0] != nil }
            guard present.count == 1, let key = present.first, let field = fields[key] else {
                if present.count > 1 {
                    fail(path, "has \(present.joined(separator: " and ")); \(expected), exactly one of them")
                } else if unknown.isEmpty {
                    fail(path, "is an empty object; \(expected)")
                }
                return nil
            }
            guard let name = string(field, at: path.key(key)) else { return nil }
            switch key {
            case "file":
                reference = .file(absolutePath(name))
            case "env":
                reference = .environment(name)
            default:
                if name.contains("/") || name == "." || name == ".." {
                    return refuse(
                        path.key(key), "\(Self.quote(name)) is not a credential name; expected a name without '/'")
                }
                reference = .credential(name)
            }
        default:
            return refuse(path, "\(expected), got \(value.typeName)")
        }
        if resolvesSecrets {
            do {
                _ = try reference.resolve(in: environment)
            } catch {
                fail(reference.jsonKey.map { path.key($0) } ?? path, error.description)
            }
        }
        return reference
    }

    /// `path` made absolute against the config file's directory.
    func absolutePath(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        return ((baseDirectory as NSString).appendingPathComponent(path) as NSString).standardizingPath
    }

    /// A user-written value in double quotes, shortened so that one line stays readable.
    static func quote(_ text: String) -> String {
        let shortened = text.count > 80 ? text.prefix(77) + "..." : Substring(text)
        return "\"\(shortened)\""
    }

    /// The allowed key closest to a misspelt one, when it is close enough to be a likely typo.
    static func closest(to key: String, in candidates: [String]) -> String? {
        let scored = candidates.map { ($0, editDistance(key.lowercased(), $0.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        return best.1 <= max(1, min(3, best.0.count / 3)) ? best.0 : nil
    }

    /// The Levenshtein distance between two strings.
    package static func editDistance(_ left: String, _ right: String) -> Int {
        let a = Array(left)
        let b = Array(right)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            previous = current
        }
        return previous[b.count]
    }
}
