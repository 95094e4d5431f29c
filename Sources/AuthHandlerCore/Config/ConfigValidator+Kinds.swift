import AuthHandlerHTTP
import Foundation

/// How a key of a section whose keys depend on its `kind` is checked (CONFIG.md `backend`): a kind's payload names
/// its keys with their types, and the section reads every key it holds, whatever the kind, so that a value the
/// chosen kind ignores is still refused when it is not one.
enum ConfigKeyType: Sendable {
    /// A provider or backend URL (`https`, or `http` on loopback).
    case endpointURL
    /// A secret reference.
    case secret
    /// A non-empty string.
    case text
    /// A value the kind that reads it checks itself, with its own paths (the `accounts` sections).
    case section
}

/// The values of a section's keys as read, by key; a key that is absent or was refused has none.
struct ConfigKeyValues {
    private enum Value {
        case url(URL)
        case secret(SecretReference)
        case text(String)
    }

    private var values: [String: Value] = [:]

    /// The URL `key` holds.
    func url(_ key: String) -> URL? {
        guard case .url(let url) = values[key] else { return nil }
        return url
    }

    /// The secret reference `key` holds.
    func secret(_ key: String) -> SecretReference? {
        guard case .secret(let reference) = values[key] else { return nil }
        return reference
    }

    /// The string `key` holds.
    func text(_ key: String) -> String? {
        guard case .text(let text) = values[key] else { return nil }
        return text
    }

    /// Reads `value` as `type` for `key`; a value the validator refuses leaves `key` without one.
    fileprivate mutating func read(
        _ key: String, _ value: JSONValue, as type: ConfigKeyType, at path: ConfigPath,
        by validator: inout ConfigValidator
    ) {
        values[key] =
            switch type {
            case .endpointURL: validator.endpointURL(value, at: path).map(Value.url)
            case .secret: validator.secret(value, at: path).map(Value.secret)
            case .text: validator.string(value, at: path).map(Value.text)
            case .section: nil
            }
    }
}

extension ConfigValidator {
    /// The `kind` member of a section whose other members depend on it (`store`, `backend`); nil when it is absent
    /// or after reporting why it is not one of `Kind`'s values.
    mutating func kind<Kind: RawRepresentable & CaseIterable>(
        _ fields: [String: JSONValue], at path: ConfigPath
    ) -> Kind? where Kind.RawValue == String {
        guard let kindValue = fields["kind"] else { return nil }
        return enumeration(kindValue, Kind.self, at: path.key("kind"))
    }

    /// Reads each of `fields` that `types` names, in the order of `order` (the section's keys), reporting bad values.
    mutating func read(
        _ fields: [String: JSONValue], keys types: [(key: String, value: ConfigKeyType)], inOrderOf order: [String],
        at path: ConfigPath
    ) -> ConfigKeyValues {
        var values = ConfigKeyValues()
        for key in order {
            guard let value = fields[key], let type = types.first(where: { $0.key == key })?.value else { continue }
            values.read(key, value, as: type, at: path.key(key), by: &self)
        }
        return values
    }

    /// Warns about each key of the section (`sectionKeys`, but `kind`) that `fields` has and its kind does not read.
    mutating func warnIgnored<Kind: RawRepresentable>(
        in fields: [String: JSONValue], sectionKeys: [String], read: [String], kind: Kind, at path: ConfigPath
    ) where Kind.RawValue == String {
        for key in sectionKeys where key != "kind" && !read.contains(key) && fields[key] != nil {
            warn(path.key(key), "ignored with kind \"\(kind.rawValue)\"")
        }
    }
}
