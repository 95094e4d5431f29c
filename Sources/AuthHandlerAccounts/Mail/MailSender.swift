/// The configured sender, `email.from` (docs/ACCOUNTS.md "E-mail addresses and mail"): `no-reply@example.com`,
/// `Example App <no-reply@example.com>` or `"Example, Inc." <no-reply@example.com>`, checked when the configuration is
/// read, so that a message's `From` field and SMTP envelope are always well formed.
package struct MailSender: Sendable, Equatable, CustomStringConvertible {
    /// The longest display name, in characters: the `From` field stays far below RFC 5322's 998-byte line.
    package static let maximumDisplayNameLength = 100

    /// The display name, unquoted; nil when the value is an address alone.
    package let displayName: String?
    /// The address, as the `From` field and `MAIL FROM` carry it (``EmailAddress/mailbox``).
    package let address: EmailAddress

    /// Reads a configured `from` value; a refusal says what is wrong with it.
    package init(parsing value: String) throws(MailSenderError) {
        guard !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .controlCharacter
        }
        let trimmed = value.trimmingSpaces
        var addressText = trimmed
        var name: String?
        if trimmed.hasSuffix(">") {
            guard let open = trimmed.lastIndex(of: "<") else { throw .unbalancedAngleBrackets }
            addressText = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
            let phrase = String(trimmed[..<open]).trimmingSpaces
            name = phrase.isEmpty ? nil : try Self.unquoted(phrase)
        }
        guard !addressText.contains("<"), !addressText.contains(">") else { throw .unbalancedAngleBrackets }
        do {
            address = try EmailAddress(parsing: addressText)
        } catch {
            throw .address(error)
        }
        if let name, name.count > Self.maximumDisplayNameLength { throw .displayNameTooLong }
        displayName = name
    }

    /// The `From` field's value (RFC 5322 §3.4): the display name as a plain phrase, a quoted string, or RFC 2047
    /// encoded words when it is not ASCII, then the address in angle brackets. An encoded name is folded onto lines
    /// of at most 76 characters (RFC 2047 §2).
    package var fieldValue: String {
        guard let displayName else { return address.mailbox }
        let angle = "<\(address.mailbox)>"
        if displayName.utf8.allSatisfy({ $0 < 0x80 }) {
            let phrase =
                displayName.utf8.allSatisfy(Self.isPhraseByte)
                ? displayName
                : "\"" + displayName.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
            return phrase + " " + angle
        }
        return MailHeaderEncoding.encodedWords(displayName).joined(separator: "\r\n ") + "\r\n " + angle
    }

    package var description: String { fieldValue }

    /// A quoted display name without its quotes and escapes, or a plain one as it is; refuses stray quotes.
    private static func unquoted(_ phrase: String) throws(MailSenderError) -> String {
        guard phrase.hasPrefix("\"") else {
            guard !phrase.contains("\"") else { throw .invalidDisplayName }
            return phrase
        }
        guard phrase.count >= 2, phrase.hasSuffix("\"") else { throw .invalidDisplayName }
        var result = ""
        var escaped = false
        for character in phrase.dropFirst().dropLast() {
            if escaped {
                result.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                throw .invalidDisplayName
            } else {
                result.append(character)
            }
        }
        guard !escaped else { throw .invalidDisplayName }
        return result
    }

    /// `atext` and space: what a display name may hold without quotes (RFC 5322 §3.2.5, `phrase`).
    private static func isPhraseByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: " "):
            true
        default: "!#$%&'*+-/=?^_`{|}~".utf8.contains(byte)
        }
    }
}

/// Why a configured `from` value is refused.
package enum MailSenderError: Error, Sendable, Equatable, CustomStringConvertible {
    case controlCharacter
    case unbalancedAngleBrackets
    case invalidDisplayName
    case displayNameTooLong
    case address(EmailAddressError)

    package var description: String {
        switch self {
        case .controlCharacter: "the sender contains a control character (a line break, a tab or a NUL)"
        case .unbalancedAngleBrackets: "the sender's address must be alone or in one pair of angle brackets"
        case .invalidDisplayName: "the sender's display name has an unbalanced or unescaped quote"
        case .displayNameTooLong:
            "the sender's display name is longer than \(MailSender.maximumDisplayNameLength) characters"
        case .address(let error): "the sender's address is not valid: \(error)"
        }
    }
}

extension String {
    /// Without leading and trailing spaces.
    fileprivate var trimmingSpaces: String {
        guard let start = firstIndex(where: { $0 != " " }), let end = lastIndex(where: { $0 != " " }) else {
            return ""
        }
        return String(self[start...end])
    }
}
