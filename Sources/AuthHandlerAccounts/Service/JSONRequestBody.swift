import AuthHandlerHTTP

/// The JSON object an accounts endpoint takes (HTTP-API.md §3.10): parsed by the one strict reader (`JSONSyntax`),
/// every member it does not name refused by name, each member read with its type checked, and the error a §3.5
/// `400 invalid-request` naming the member and what it expects. A value is never echoed back: it may be a password.
package struct JSONRequestBody: Sendable {
    /// The most bytes a member's string may have, unless the endpoint says less: the listener caps a body at
    /// 64 KiB, so this only keeps one member from using all of it.
    package static let defaultMaximumBytes = 4096

    private let fields: [String: JSONValue]

    /// `body` as an object whose members are among `allowed`.
    package init(_ body: [UInt8], allowed: [String]) throws(AccountsError) {
        guard !body.isEmpty else {
            throw AccountsError(.invalidRequest, "the body is empty; send a JSON object")
        }
        let value: JSONValue
        switch JSONSyntax.parse(body) {
        case .success(let parsed): value = parsed
        case .failure(let failure):
            // Only where: the reader's message may quote a character of the body, which may be a password's.
            throw AccountsError(
                .invalidRequest,
                "the body is not valid JSON (line \(failure.line), column \(failure.column)); send a JSON object")
        }
        guard case .object(let fields) = value else {
            throw AccountsError(.invalidRequest, "the body is \(value.typeName); send a JSON object")
        }
        if let unknown = fields.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw AccountsError(
                .invalidRequest,
                "unknown member \"\(Self.printable(unknown))\"; expected only \(allowed.joined(separator: ", "))")
        }
        self.fields = fields
    }

    /// Whether `name` is present and not null.
    package func has(_ name: String) -> Bool {
        if let value = fields[name], value != .null { return true }
        return false
    }

    /// The string member `name`: required unless `optional`; at most `maximumBytes` UTF-8 bytes; no NUL.
    package func string(
        _ name: String, optional: Bool = false, maximumBytes: Int = defaultMaximumBytes
    ) throws(AccountsError) -> String? {
        guard let value = fields[name], value != .null else {
            if optional { return nil }
            throw AccountsError(.invalidRequest, "\"\(name)\" is missing; expected a string")
        }
        guard case .string(let text) = value else {
            throw AccountsError(.invalidRequest, "\"\(name)\" is \(value.typeName); expected a string")
        }
        guard text.utf8.count <= maximumBytes else {
            throw AccountsError(.invalidRequest, "\"\(name)\" is longer than \(maximumBytes) bytes")
        }
        guard !text.utf8.contains(0) else {
            throw AccountsError(.invalidRequest, "\"\(name)\" contains a NUL character")
        }
        return text
    }

    /// The string member `name`, which must be present.
    package func requiredString(_ name: String, maximumBytes: Int = defaultMaximumBytes) throws(AccountsError)
        -> String
    {
        guard let text = try string(name, maximumBytes: maximumBytes) else {
            throw AccountsError(.invalidRequest, "\"\(name)\" is missing; expected a string")
        }
        return text
    }

    /// The boolean member `name`, if present.
    package func bool(_ name: String) throws(AccountsError) -> Bool? {
        guard let value = fields[name], value != .null else { return nil }
        guard case .bool(let flag) = value else {
            throw AccountsError(.invalidRequest, "\"\(name)\" is \(value.typeName); expected true or false")
        }
        return flag
    }

    /// The raw member `name` (for a nested object such as custom claims).
    package func value(_ name: String) -> JSONValue? {
        fields[name].flatMap { $0 == .null ? nil : $0 }
    }

    /// A member name as it may be shown: at most 64 characters, control characters replaced.
    private static func printable(_ name: String) -> String {
        let shown = String(
            name.unicodeScalars.prefix(64).map { $0.properties.generalCategory == .control ? "?" : Character($0) })
        return name.unicodeScalars.count > 64 ? shown + "…" : shown
    }
}
