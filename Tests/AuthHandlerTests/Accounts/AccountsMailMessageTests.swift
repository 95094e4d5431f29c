import Foundation
import Testing

@testable import AuthHandlerAccounts

@Suite struct AccountsMailMessageTests {
    static let date = Date(timeIntervalSince1970: 1_700_000_000)

    static func message(
        _ content: MailContent, to recipient: String = "alice@example.com", displayName: String? = "Alice",
        from sender: String = "Example App <no-reply@example.com>"
    ) throws -> MailMessage {
        MailMessage(
            content: content, from: try MailSender(parsing: sender), to: try EmailAddress(parsing: recipient),
            appName: "Example App", displayName: displayName, date: date, messageID: "<0123abcd@example.com>")
    }

    /// The header block and the body of a message's text.
    static func split(_ message: MailMessage) -> (header: String, body: String) {
        let text = String(decoding: message.data, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { return (text, "") }
        return (String(text[..<end.lowerBound]), String(text[end.upperBound...]))
    }

    @Test("the header block: the configured From, the stored To, fixed Subject, Date, Message-ID, MIME")
    func header() throws {
        let message = try Self.message(.resetPassword(link: "https://app.example/__/auth/action?oobCode=x"))
        #expect(
            Self.split(message).header
                == """
                From: Example App <no-reply@example.com>\r
                To: alice@example.com\r
                Subject: Reset your password\r
                Date: Tue, 14 Nov 2023 22:13:20 +0000\r
                Message-ID: <0123abcd@example.com>\r
                MIME-Version: 1.0\r
                Content-Type: text/plain; charset=utf-8\r
                Content-Transfer-Encoding: quoted-printable\r
                Auto-Submitted: auto-generated
                """)
        #expect(message.envelopeSender == "no-reply@example.com")
        #expect(message.envelopeRecipient == "alice@example.com")
        #expect(message.kind == .resetPassword)
    }

    @Test("each kind has its fixed subject", arguments: MailKind.allCases)
    func subjects(_ kind: MailKind) throws {
        let content: MailContent =
            switch kind {
            case .resetPassword: .resetPassword(link: "https://a.example/r")
            case .verifyEmail: .verifyEmail(link: "https://a.example/v")
            case .verifyNewEmail: .verifyNewEmail(link: "https://a.example/n")
            case .emailChanged: .emailChanged(recoverLink: "https://a.example/c", newAddress: "new@example.org")
            case .identityLinked: .identityLinked(providerName: "Google", link: "https://a.example/l")
            }
        let message = try Self.message(content)
        #expect(message.kind == kind)
        #expect(Self.split(message).header.contains("\r\nSubject: \(kind.subject)\r\n"))
        #expect(QuotedPrintableDecoder.decode(Self.split(message).body).contains("https://a.example/"))
    }

    @Test("the To field and envelope carry the stored address with its domain in A-labels")
    func idnRecipient() throws {
        let message = try Self.message(.verifyEmail(link: "https://a.example/v"), to: "Jösé@Bücher.example")
        #expect(Self.split(message).header.contains("\r\nTo: Jösé@xn--bcher-kva.example\r\n"))
        #expect(message.envelopeRecipient == "Jösé@xn--bcher-kva.example")
        #expect(message.description == "verify-email mail to a recipient at xn--bcher-kva.example")
    }

    @Test("a display name with CR LF and a Bcc field ends up on one body line, in no header")
    func headerInjection() throws {
        let message = try Self.message(
            .identityLinked(providerName: "Evil\r\nBcc: x@example.net", link: "https://a.example/l"),
            displayName: "Eve\r\nBcc: victim@example.net\r\n\r\nInjected")
        let (header, body) = Self.split(message)
        #expect(!header.contains("Bcc"))
        #expect(!header.contains("Eve"))
        #expect(!header.contains("Injected"))
        let text = QuotedPrintableDecoder.decode(body)
        #expect(text.contains("Hello EveBcc: victim@example.netInjected,\r\n"))
        #expect(text.contains("EvilBcc: x@example.net was added"))
    }

    @Test("every line ends in CRLF and is at most 76 characters, whatever the body holds")
    func lineLengths() throws {
        let link =
            "https://app.example/__/auth/action?mode=resetPassword&oobCode=" + String(repeating: "Ab1-", count: 300)
        let message = try Self.message(
            .resetPassword(link: link), displayName: String(repeating: "Ünïcödé ", count: 40),
            from: "Bücher Verlag für Straßenkarten und Sehr Lange Namen <no-reply@Bücher.example>")
        let text = String(decoding: message.data, as: UTF8.self)
        #expect(!text.replacing("\r\n", with: "").contains("\n"))
        #expect(!text.replacing("\r\n", with: "").contains("\r"))
        for line in text.split(separator: "\r\n", omittingEmptySubsequences: false) {
            #expect(line.utf8.count <= 76, "\(line)")
        }
        #expect(QuotedPrintableDecoder.decode(Self.split(message).body).contains(link))
    }

    @Test(
        "the configured sender, as the From field writes it",
        arguments: [
            ("no-reply@example.com", nil, "no-reply@example.com"),
            ("Example App <no-reply@example.com>", "Example App", "Example App <no-reply@example.com>"),
            ("  Example App   <no-reply@Example.COM>  ", "Example App", "Example App <no-reply@example.com>"),
            ("<no-reply@example.com>", nil, "no-reply@example.com"),
            ("\"Example, Inc.\" <no-reply@example.com>", "Example, Inc.", "\"Example, Inc.\" <no-reply@example.com>"),
            ("\"Say \\\"hi\\\"\" <no-reply@example.com>", "Say \"hi\"", "\"Say \\\"hi\\\"\" <no-reply@example.com>"),
            (
                "Bücher <no-reply@Bücher.example>", "Bücher",
                "=?utf-8?B?QsO8Y2hlcg==?=\r\n <no-reply@xn--bcher-kva.example>"
            ),
        ] as [(String, String?, String)])
    func sender(_ value: String, _ name: String?, _ field: String) throws {
        let sender = try MailSender(parsing: value)
        #expect(sender.displayName == name)
        #expect(sender.fieldValue == field)
    }

    @Test(
        "a sender that cannot be written safely is refused when the configuration is read",
        arguments: [
            ("Example\r\nBcc: x@example.net <no-reply@example.com>", MailSenderError.controlCharacter),
            ("Example <no-reply@example.com>\n", .controlCharacter),
            ("Example <no-reply@example.com", .unbalancedAngleBrackets),
            ("Example <<no-reply@example.com>>", .unbalancedAngleBrackets),
            ("no-reply@example.com>", .unbalancedAngleBrackets),
            ("Exa\"mple <no-reply@example.com>", .invalidDisplayName),
            ("\"Example <no-reply@example.com>", .invalidDisplayName),
            ("\"Exa\"mple\" <no-reply@example.com>", .invalidDisplayName),
            (String(repeating: "n", count: 101) + " <no-reply@example.com>", .displayNameTooLong),
            ("Example <no reply@example.com>", .address(.whitespace)),
            ("Example <no-reply@localhost>", .address(.domainWithoutDot)),
            ("", .address(.empty)),
        ] as [(String, MailSenderError)])
    func refusedSender(_ value: String, _ reason: MailSenderError) {
        #expect(throws: reason) { try MailSender(parsing: value) }
    }

    @Test("a long non-ASCII display name is split into encoded words of at most 75 characters")
    func encodedWords() throws {
        let name = String(repeating: "Straße ", count: 14)
        let sender = try MailSender(parsing: "\(name)<no-reply@example.com>")
        let lines = sender.fieldValue.split(separator: "\r\n ")
        #expect(lines.count > 2)
        for word in lines.dropLast() {
            #expect(word.utf8.count <= 75)
            #expect(word.hasPrefix("=?utf-8?B?") && word.hasSuffix("?="))
        }
        let decoded = lines.dropLast().map { word -> String in
            let base64 = word.dropFirst("=?utf-8?B?".count).dropLast(2)
            return String(decoding: Data(base64Encoded: String(base64)) ?? Data(), as: UTF8.self)
        }
        #expect(decoded.joined() == name.trimmingCharacters(in: .whitespaces))
    }

    @Test(
        "the Date field is RFC 5322's, in UTC",
        arguments: [
            (0.0, "Thu, 01 Jan 1970 00:00:00 +0000"),
            (1_700_000_000.9, "Tue, 14 Nov 2023 22:13:20 +0000"),
            (1_798_761_600, "Fri, 01 Jan 2027 00:00:00 +0000"),
            (951_782_400, "Tue, 29 Feb 2000 00:00:00 +0000"),
        ])
    func dateField(_ seconds: Double, _ expected: String) {
        #expect(MailHeaderEncoding.dateTime(Date(timeIntervalSince1970: seconds)) == expected)
    }

    @Test("a generated Message-ID is random, at the sender's domain")
    func messageID() throws {
        let make = {
            try MailMessage(
                content: .verifyEmail(link: "https://a.example/v"),
                from: try MailSender(parsing: "no-reply@Bücher.example"),
                to: try EmailAddress(parsing: "a@example.com"),
                appName: "App", displayName: nil, date: Self.date)
        }
        let first = try make()
        let second = try make()
        #expect(first.messageID != second.messageID)
        #expect(first.messageID.wholeMatch(of: /<[0-9a-f]{32}@xn--bcher-kva\.example>/) != nil)
    }

    @Test(
        "quoted-printable: what the RFC requires, and no line that starts with a dot or From",
        arguments: [
            ("plain", "plain"),
            ("a=b", "a=3Db"),
            ("trailing space ", "trailing space=20"),
            ("tab\t", "tab=09"),
            ("é", "=C3=A9"),
            (".", "=2E"),
            ("..x", "=2E.x"),
            ("a.\n.b", "a.\r\n=2Eb"),
            ("From here", "=46rom here"),
            ("x From here", "x From here"),
            ("Fromage", "Fromage"),
            ("line\r\nnext\n", "line\r\nnext\r\n"),
        ])
    func quotedPrintable(_ text: String, _ encoded: String) {
        #expect(QuotedPrintable.encode(text) == encoded)
    }

    @Test("quoted-printable: soft breaks keep lines at 76 and decode back to the text")
    func quotedPrintableRoundTrip() {
        let samples = [
            String(repeating: "x", count: 200),
            String(repeating: "é", count: 100),
            String(repeating: "a=", count: 80),
            String(repeating: ".", count: 160),
            String(repeating: "y", count: 75) + ".From x",
            String(repeating: " ", count: 90),
            "short\n" + String(repeating: "ü ", count: 60) + "\n\nend ",
        ]
        for text in samples {
            let encoded = QuotedPrintable.encode(text)
            for line in encoded.split(separator: "\r\n", omittingEmptySubsequences: false) {
                #expect(line.utf8.count <= 76)
                #expect(!line.hasPrefix("."))
                #expect(!line.hasPrefix("From "))
                #expect(!line.hasSuffix(" ") && !line.hasSuffix("\t"))
            }
            #expect(QuotedPrintableDecoder.decode(encoded) == text.replacing("\n", with: "\r\n"))
        }
    }
}

/// A quoted-printable decoder for the tests (RFC 2045 §6.7), independent of the encoder.
enum QuotedPrintableDecoder {
    static func decode(_ text: String) -> String {
        var bytes: [UInt8] = []
        let input = Array(text.utf8)
        var index = 0
        while index < input.count {
            let byte = input[index]
            if byte == UInt8(ascii: "="), index + 2 < input.count, input[index + 1] == 0x0D, input[index + 2] == 0x0A {
                index += 3
            } else if byte == UInt8(ascii: "="), index + 2 < input.count,
                let value = UInt8(String(decoding: input[(index + 1)...(index + 2)], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                index += 3
            } else {
                bytes.append(byte)
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
