import CIDN2
import Foundation

/// An e-mail address as a user gave it, and the one normal form addresses are compared in (docs/ACCOUNTS.md
/// "E-mail addresses and mail").
///
/// Only plain `local@domain` is accepted: the local part a dot-atom (RFC 5322 §3.4.1) of `atext` and non-ASCII
/// characters (RFC 6532 §3.2), no quoted local part, no comment, no whitespace, no control character; the domain a
/// host name of at least two labels, each label valid IDNA2008 (RFC 5891) once libidn2 has mapped it.
///
/// The normal form: the local part in NFC with only the ASCII letters lowercased, `@`, the domain as IDNA2008 A-labels
/// in lowercase. No `+tag` or dot is stripped and there is no full case folding (`ß` stays `ß`), because what a mailbox
/// treats as one is up to its own server; the normal form only removes differences that can never name two mailboxes.
/// Two values are equal when their normal forms are.
package struct EmailAddress: Sendable, Hashable, CustomStringConvertible {
    /// The longest address, in UTF-8 bytes: a path is at most 256 octets with its angle brackets (RFC 5321
    /// §4.5.3.1.3).
    package static let maximumLength = 254
    /// The longest local part, in UTF-8 bytes (RFC 5321 §4.5.3.1.1).
    package static let maximumLocalPartLength = 64
    /// The longest domain in A-labels, without a trailing dot (RFC 1035 §2.3.4's 255 octets on the wire).
    package static let maximumDomainLength = 253

    /// The address exactly as given: what is shown.
    package let given: String
    /// The local part as given, what mail is sent to.
    package let localPart: String
    /// The domain as IDNA2008 A-labels, lowercased, as the normal form and the SMTP envelope carry it.
    package let domain: String
    /// The normal form: unique per account, what addresses are compared by.
    package let normalized: String

    /// The address mail goes to: the local part as given at the domain in A-labels, so that a server without
    /// SMTPUTF8 (RFC 6531) still takes any address whose local part is ASCII.
    package var mailbox: String { localPart + "@" + domain }

    /// Reads `text` as given by a user, a configuration or the store; a refusal says which rule failed and never
    /// repeats the address.
    package init(parsing text: String) throws(EmailAddressError) {
        // Lengths first, so that a huge input is refused before any of it is read (a native string knows its
        // UTF-8 length).
        let length = text.utf8.count
        guard length > 0 else { throw .empty }
        guard length <= Self.maximumLength else { throw .tooLong }
        try Self.checkCharacters(text)
        // On scalars, not characters: a combining mark after "@" must not hide it inside one character.
        let parts = text.unicodeScalars.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count > 1 else { throw .missingAt }
        guard parts.count == 2 else { throw .multipleAt }
        let local = String(String.UnicodeScalarView(parts[0]))
        let givenDomain = String(String.UnicodeScalarView(parts[1]))
        guard !local.isEmpty else { throw .emptyLocalPart }
        guard !givenDomain.isEmpty else { throw .emptyDomain }
        let composedLocal = local.precomposedStringWithCanonicalMapping
        guard local.utf8.count <= Self.maximumLocalPartLength,
            composedLocal.utf8.count <= Self.maximumLocalPartLength
        else { throw .localPartTooLong }
        try Self.checkDotAtom(composedLocal)
        let domain = try Self.aLabels(givenDomain)
        let normalized = Self.asciiLowercased(composedLocal) + "@" + domain
        guard normalized.utf8.count <= Self.maximumLength,
            local.utf8.count + 1 + domain.utf8.count <= Self.maximumLength
        else { throw .tooLong }
        given = text
        localPart = local
        self.domain = domain
        self.normalized = normalized
    }

    package var description: String { given }

    package static func == (lhs: EmailAddress, rhs: EmailAddress) -> Bool { lhs.normalized == rhs.normalized }

    package func hash(into hasher: inout Hasher) { hasher.combine(normalized) }

    /// Refuses control characters, whitespace of any kind, and format, private-use and unassigned code points
    /// anywhere in the address.
    private static func checkCharacters(_ text: String) throws(EmailAddressError) {
        for scalar in text.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control: throw .controlCharacter
            case .spaceSeparator, .lineSeparator, .paragraphSeparator: throw .whitespace
            case .format, .privateUse, .unassigned, .surrogate: throw .invalidCharacter
            default: continue
            }
        }
    }

    /// A dot-atom (RFC 5322 §3.2.3): `atext` runs, or non-ASCII characters (RFC 6532 §3.2), separated by single dots,
    /// with no dot first or last.
    private static func checkDotAtom(_ local: String) throws(EmailAddressError) {
        let bytes = Array(local.utf8)
        guard bytes.first != UInt8(ascii: "."), bytes.last != UInt8(ascii: ".") else {
            throw .invalidLocalPart("it starts or ends with a dot")
        }
        var previous: UInt8 = 0
        for byte in bytes {
            if byte == UInt8(ascii: "."), previous == UInt8(ascii: ".") {
                throw .invalidLocalPart("it has two dots in a row")
            }
            if byte < 0x80, byte != UInt8(ascii: "."), !isAtext(byte) {
                throw .invalidLocalPart("\"\(Character(Unicode.Scalar(byte)))\" is not allowed unquoted")
            }
            previous = byte
        }
    }

    /// RFC 5322 §3.2.3's `atext` among ASCII bytes: letters, digits and ``!#$%&'*+-/=?^_`{|}~``.
    private static func isAtext(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: "!#$%&'*+-/=?^_`{|}~".utf8.contains(byte)
        }
    }

    /// The domain as lowercase A-labels through libidn2: `idn2_lookup_u8` with NFC input and UTS #46 non-transitional
    /// processing (idn2_lookup_u8(3)), so `Bücher.example` is `xn--bcher-kva.example` and `ß` stays distinct from
    /// `ss`. libidn2 passes ASCII labels through unchecked, so the result is then held to the host-name rules.
    private static func aLabels(_ domain: String) throws(EmailAddressError) -> String {
        guard domain.utf8.first != UInt8(ascii: "[") else { throw .addressLiteral }
        var output: UnsafeMutablePointer<UInt8>?
        let code = domain.withCString { input in
            input.withMemoryRebound(to: UInt8.self, capacity: domain.utf8.count + 1) { bytes in
                idn2_lookup_u8(bytes, &output, Int32(IDN2_NFC_INPUT.rawValue | IDN2_NONTRANSITIONAL.rawValue))
            }
        }
        defer { idn2_free(output) }
        guard code == Int32(IDN2_OK.rawValue), let output else {
            throw .invalidDomain(String(cString: idn2_strerror(code)))
        }
        let labels = asciiLowercased(String(cString: output))
        try checkHostName(labels)
        return labels
    }

    /// Letters, digits and hyphens (RFC 1123 §2.1), 1 to 63 bytes a label with no hyphen first or last, at least two
    /// labels, a top-level label that is not all digits (that would be an IPv4 address), and no name under
    /// `localhost` (RFC 6761 §6.3: it is this machine, not a mail domain).
    private static func checkHostName(_ domain: String) throws(EmailAddressError) {
        guard domain.utf8.count <= maximumDomainLength else { throw .domainTooLong }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        for label in labels {
            let bytes = label.utf8
            guard let first = bytes.first, let last = bytes.last else { throw .invalidDomain("it has an empty label") }
            guard bytes.count <= 63 else { throw .invalidDomain("a label is longer than 63 bytes") }
            guard bytes.allSatisfy(isLetterDigitHyphen) else {
                throw .invalidDomain("a label has a character other than a letter, digit or hyphen")
            }
            guard first != UInt8(ascii: "-"), last != UInt8(ascii: "-") else {
                throw .invalidDomain("a label starts or ends with a hyphen")
            }
        }
        guard labels.count >= 2, let topLevel = labels.last else { throw .domainWithoutDot }
        guard topLevel != "localhost" else { throw .reservedDomain }
        guard !topLevel.utf8.allSatisfy({ UInt8(ascii: "0")...UInt8(ascii: "9") ~= $0 }) else {
            throw .invalidDomain("the top-level label is all digits")
        }
    }

    private static func isLetterDigitHyphen(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"): true
        default: false
        }
    }

    /// `text` with `A`–`Z` lowered and every other character, ASCII or not, left as it is.
    private static func asciiLowercased(_ text: String) -> String {
        String(decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}

/// Why a text is not an e-mail address this daemon accepts; the message never repeats the address.
package enum EmailAddressError: Error, Sendable, Equatable, CustomStringConvertible {
    case empty
    case tooLong
    case controlCharacter
    case whitespace
    case invalidCharacter
    case missingAt
    case multipleAt
    case emptyLocalPart
    case localPartTooLong
    case invalidLocalPart(String)
    case emptyDomain
    case addressLiteral
    case domainTooLong
    case domainWithoutDot
    case reservedDomain
    case invalidDomain(String)

    package var description: String {
        switch self {
        case .empty: "the e-mail address is empty"
        case .tooLong: "the e-mail address is longer than \(EmailAddress.maximumLength) bytes"
        case .controlCharacter: "the e-mail address contains a control character"
        case .whitespace: "the e-mail address contains whitespace"
        case .invalidCharacter: "the e-mail address contains an invisible, private-use or unassigned character"
        case .missingAt: "the e-mail address has no \"@\""
        case .multipleAt: "the e-mail address has more than one \"@\" (quoted local parts are not accepted)"
        case .emptyLocalPart: "the e-mail address has nothing before the \"@\""
        case .localPartTooLong:
            "the part before the \"@\" is longer than \(EmailAddress.maximumLocalPartLength) bytes"
        case .invalidLocalPart(let reason): "the part before the \"@\" is not valid: \(reason)"
        case .emptyDomain: "the e-mail address has no domain after the \"@\""
        case .addressLiteral: "the e-mail address has an address literal for a domain"
        case .domainTooLong: "the e-mail domain is longer than \(EmailAddress.maximumDomainLength) bytes"
        case .domainWithoutDot: "the e-mail domain has no dot"
        case .reservedDomain: "the e-mail domain is localhost"
        case .invalidDomain(let reason): "the e-mail domain is not valid: \(reason)"
        }
    }
}
