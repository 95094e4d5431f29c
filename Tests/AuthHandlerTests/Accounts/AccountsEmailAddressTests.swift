import Testing

@testable import AuthHandlerAccounts

@Suite struct AccountsEmailAddressTests {
    /// Given → normal form (docs/ACCOUNTS.md "E-mail addresses and mail").
    static let normalized: [(String, String)] = [
        ("alice@example.com", "alice@example.com"),
        ("Alice@Example.COM", "alice@example.com"),
        // No +tag or dot stripping: those are the mailbox's own rules, not the address's.
        ("Alice.Smith+news@example.com", "alice.smith+news@example.com"),
        ("a.b.c@example.com", "a.b.c@example.com"),
        // Only ASCII letters are lowered: no full case folding, so ß stays ß and É stays É.
        ("Straße@X.org", "straße@x.org"),
        ("ÉLODIE@example.com", "Élodie@example.com"),
        // NFC: a decomposed é becomes the precomposed one.
        ("jose\u{301}@example.com", "jos\u{E9}@example.com"),
        ("jos\u{E9}@example.com", "jos\u{E9}@example.com"),
        ("用户@例子.广告", "用户@xn--fsqu00a.xn--4rr70v"),
        // The domain as lowercase A-labels, uppercase and U-labels alike (UTS #46 maps case, IDNA2008 encodes).
        ("user@Bücher.example", "user@xn--bcher-kva.example"),
        ("user@BÜCHER.EXAMPLE", "user@xn--bcher-kva.example"),
        ("user@xn--BCHER-KVA.example", "user@xn--bcher-kva.example"),
        // Non-transitional: ß in a domain is its own A-label, not "ss".
        ("user@straße.de", "user@xn--strae-oqa.de"),
        // Full-width letters are mapped to ASCII by UTS #46 before the A-label conversion.
        ("user@ＥＸＡＭＰＬＥ.com", "user@example.com"),
        ("o'brien!#$%&*/=?^_`{|}~-@example.co.uk", "o'brien!#$%&*/=?^_`{|}~-@example.co.uk"),
    ]

    @Test("the normal form of an address", arguments: normalized)
    func normalForm(_ given: String, _ expected: String) throws {
        let address = try EmailAddress(parsing: given)
        #expect(address.normalized == expected)
        #expect(address.given == given)
    }

    @Test("the mailbox mail goes to: the local part as given, the domain in A-labels")
    func mailbox() throws {
        let address = try EmailAddress(parsing: "Jösé.Ñ@Bücher.Example")
        #expect(address.mailbox == "Jösé.Ñ@xn--bcher-kva.example")
        #expect(address.domain == "xn--bcher-kva.example")
        #expect(address.localPart == "Jösé.Ñ")
        #expect(address.description == "Jösé.Ñ@Bücher.Example")
    }

    @Test("spellings of one address are equal; different addresses are not")
    func equality() throws {
        #expect(
            try EmailAddress(parsing: "Alice@Bücher.example") == EmailAddress(parsing: "alice@xn--bcher-kva.example"))
        #expect(try EmailAddress(parsing: "Straße@X.org") != EmailAddress(parsing: "strasse@x.org"))
        #expect(try EmailAddress(parsing: "alice+a@example.com") != EmailAddress(parsing: "alice@example.com"))
        #expect(try EmailAddress(parsing: "a.lice@example.com") != EmailAddress(parsing: "alice@example.com"))
        #expect(try EmailAddress(parsing: "Élodie@example.com") != EmailAddress(parsing: "élodie@example.com"))
        let set: Set = [try EmailAddress(parsing: "A@example.com"), try EmailAddress(parsing: "a@EXAMPLE.com")]
        #expect(set.count == 1)
    }

    /// Refused input → the reason.
    static let refused: [(String, EmailAddressError)] = [
        ("", .empty),
        (
            String(repeating: "a", count: 64) + "@" + String(repeating: "b", count: 63) + "."
                + String(repeating: "c", count: 63)
                + "." + String(repeating: "d", count: 63), .tooLong
        ),
        (String(repeating: "a", count: 65) + "@example.com", .localPartTooLong),
        ("alice.example.com", .missingAt),
        ("alice@bob@example.com", .multipleAt),
        ("\"alice@bob\"@example.com", .multipleAt),
        ("@example.com", .emptyLocalPart),
        ("alice@", .emptyDomain),
        ("ali\u{0}ce@example.com", .controlCharacter),
        ("alice@example.com\u{0}", .controlCharacter),
        ("alice@example.com\r\nBcc: eve@example.net", .controlCharacter),
        ("alice\t@example.com", .controlCharacter),
        ("\u{7F}alice@example.com", .controlCharacter),
        ("\u{85}alice@example.com", .controlCharacter),
        ("alice smith@example.com", .whitespace),
        (" alice@example.com", .whitespace),
        ("alice@example.com ", .whitespace),
        ("alice\u{A0}@example.com", .whitespace),
        ("alice\u{2028}@example.com", .whitespace),
        ("alice\u{200B}@example.com", .invalidCharacter),
        ("alice@a\u{200C}b.example", .invalidCharacter),
        ("alice\u{202E}@example.com", .invalidCharacter),
        ("alice\u{E000}@example.com", .invalidCharacter),
        ("alice(comment)@example.com", .invalidLocalPart("\"(\" is not allowed unquoted")),
        ("\"alice\"@example.com", .invalidLocalPart("\"\"\" is not allowed unquoted")),
        ("<alice@example.com>", .invalidLocalPart("\"<\" is not allowed unquoted")),
        ("Alice <alice@example.com>", .whitespace),
        ("ali,ce@example.com", .invalidLocalPart("\",\" is not allowed unquoted")),
        (".alice@example.com", .invalidLocalPart("it starts or ends with a dot")),
        ("alice.@example.com", .invalidLocalPart("it starts or ends with a dot")),
        ("al..ice@example.com", .invalidLocalPart("it has two dots in a row")),
        ("alice@[192.0.2.1]", .addressLiteral),
        ("alice@localhost", .domainWithoutDot),
        ("alice@LOCALHOST", .domainWithoutDot),
        ("alice@com", .domainWithoutDot),
        ("alice@mail.localhost", .reservedDomain),
        ("alice@192.0.2.1", .invalidDomain("the top-level label is all digits")),
        ("alice@example..com", .invalidDomain("it has an empty label")),
        ("alice@.example.com", .invalidDomain("it has an empty label")),
        ("alice@example.com.", .invalidDomain("it has an empty label")),
        ("alice@exa_mple.com", .invalidDomain("a label has a character other than a letter, digit or hyphen")),
        ("alice@exa$mple.com", .invalidDomain("a label has a character other than a letter, digit or hyphen")),
        ("alice@exam:ple.com", .invalidDomain("a label has a character other than a letter, digit or hyphen")),
        (
            "alice@" + String(repeating: "a", count: 64) + ".com",
            .invalidDomain("domain label longer than 63 characters")
        ),
    ]

    @Test("refused addresses, each with its reason", arguments: refused)
    func refusals(_ given: String, _ reason: EmailAddressError) {
        #expect(throws: reason) { try EmailAddress(parsing: given) }
    }

    /// Domains libidn2 refuses as IDNA2008 (RFC 5891/5892): the reason is libidn2's own text.
    static let invalidIDNA = [
        "alice@☃.example",  // a symbol: DISALLOWED
        "alice@xn--n3h.example",  // the same as an A-label
        "alice@xn--zz.example",  // not Punycode
        "alice@xn--a.example",  // decodes to something non-transitional processing refuses
        "alice@\u{301}abc.example",  // a label that starts with a combining mark
        "alice@xn--1ug.example",  // a lone ZWNJ, outside its CONTEXTJ rule (RFC 5892 Appendix A.1)
        "alice@-abc.example",  // a hyphen first
        "alice@abc-.example",  // a hyphen last
        "alice@ab--c.example",  // hyphens in the 3rd and 4th position
    ]

    @Test("invalid IDNA domains are refused", arguments: invalidIDNA)
    func invalidDomain(_ given: String) {
        #expect {
            try EmailAddress(parsing: given)
        } throws: { error in
            guard case .invalidDomain = error as? EmailAddressError else { return false }
            return true
        }
    }

    @Test("a 10 MB string is refused at once, before it is read")
    func hugeInput() {
        let huge = String(repeating: "a", count: 10 * 1024 * 1024) + "@example.com"
        let clock = ContinuousClock()
        // The fastest of three: load on the machine only ever makes a run slower, while reading the 10 MB would make
        // every run slow.
        let fastest =
            (0..<3).map { _ in
                clock.measure {
                    #expect(throws: EmailAddressError.tooLong) { try EmailAddress(parsing: huge) }
                }
            }.min() ?? .zero
        #expect(fastest < .milliseconds(50), "the fastest of three took \(fastest)")
    }

    @Test("the longest addresses are accepted, one byte more is not")
    func limits() throws {
        let local = String(repeating: "a", count: 64)
        let domain = [63, 63, 61].map { String(repeating: "b", count: $0) }.joined(separator: ".")
        let longest = local + "@" + domain
        #expect(longest.utf8.count == 254)
        #expect(try EmailAddress(parsing: longest).normalized == longest)
        #expect(throws: EmailAddressError.tooLong) { try EmailAddress(parsing: longest + "b") }
        // A 2-byte character counts twice: 32 of them fill the local part.
        #expect(
            try EmailAddress(parsing: String(repeating: "é", count: 32) + "@example.com").localPart.utf8.count == 64)
        #expect(throws: EmailAddressError.localPartTooLong) {
            try EmailAddress(parsing: String(repeating: "é", count: 32) + "a@example.com")
        }
    }

    @Test("an error never repeats the address")
    func errorText() {
        for (given, reason) in Self.refused where given.count > 3 {
            #expect(!reason.description.contains(given))
        }
    }
}
