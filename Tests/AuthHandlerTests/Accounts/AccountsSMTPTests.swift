import AuthHandlerHTTP
import Foundation
import TestSupport
import Testing

@testable import AuthHandlerAccounts

/// The SMTP client and `SMTPMailer` against a real SMTP server (`SMTPSink`, aiosmtpd) on loopback.
@Suite(.serialized) struct AccountsSMTPTests {
    static let date = Date(timeIntervalSince1970: 1_700_000_000)

    static func content(_ kind: MailKind) -> MailContent {
        let link = "https://app.example/__/auth/action?mode=\(kind.rawValue)&oobCode=C0DE-\(kind.rawValue)"
        return switch kind {
        case .resetPassword: .resetPassword(link: link)
        case .verifyEmail: .verifyEmail(link: link)
        case .verifyNewEmail: .verifyNewEmail(link: link)
        case .emailChanged: .emailChanged(recoverLink: link, newAddress: "new@example.org")
        case .identityLinked: .identityLinked(providerName: "Google", link: link)
        }
    }

    static func message(_ kind: MailKind, to recipient: String = "Alice@Example.com", displayName: String? = "Alice")
        throws -> MailMessage
    {
        try MailMessage(
            content: content(kind), from: try MailSender(parsing: "Example App <no-reply@example.com>"),
            to: try EmailAddress(parsing: recipient), appName: "Example App", displayName: displayName, date: date)
    }

    @Test("every kind of mail arrives with its envelope and header fields, and parses without defects")
    func eachKind() async throws {
        let sink = try await SMTPSink.start()
        try await withCleanup({ await sink.stop() }) {
            let mailer = try SMTPMailer(configuration: SMTPClientConfiguration(url: sink.url))
            for kind in MailKind.allCases {
                let message = try Self.message(kind)
                try await mailer.deliver(message)
                let mail = try await sink.nextMail()
                #expect(mail.mailFrom == "no-reply@example.com")
                #expect(mail.recipients == ["Alice@example.com"])
                #expect(mail.header("From") == ["Example App <no-reply@example.com>"])
                #expect(mail.header("To") == ["Alice@example.com"])
                #expect(mail.header("Subject") == [kind.subject])
                #expect(mail.header("Date") == ["Tue, 14 Nov 2023 22:13:20 +0000"])
                #expect(mail.header("Message-ID") == [message.messageID])
                #expect(mail.header("MIME-Version") == ["1.0"])
                #expect(mail.header("Content-Type") == ["text/plain; charset=\"utf-8\""])
                #expect(mail.headers.count == 9)
                #expect(mail.defects.isEmpty)
                #expect(mail.body.contains("\nhttps://app.example/__/auth/action?mode=\(kind.rawValue)&oobCode=C0DE-"))
                #expect(mail.body.hasPrefix("Hello Alice,\n"))
                #expect(mail.raw == message.data)
            }
        }
    }

    @Test("an IDN recipient's envelope and To field are in A-labels; a Unicode local part goes with SMTPUTF8")
    func idnRecipient() async throws {
        let sink = try await SMTPSink.start()
        try await withCleanup({ await sink.stop() }) {
            let mailer = try SMTPMailer(configuration: SMTPClientConfiguration(url: sink.url))
            try await mailer.deliver(try Self.message(.verifyEmail, to: "user@BÜCHER.example"))
            let ascii = try await sink.nextMail()
            #expect(ascii.recipients == ["user@xn--bcher-kva.example"])
            #expect(ascii.header("To") == ["user@xn--bcher-kva.example"])
            #expect(!ascii.mailOptions.contains("SMTPUTF8"))

            try await mailer.deliver(try Self.message(.verifyEmail, to: "Jösé@Bücher.example"))
            let unicode = try await sink.nextMail()
            #expect(unicode.recipients == ["Jösé@xn--bcher-kva.example"])
            #expect(unicode.mailOptions.contains("SMTPUTF8"))
            #expect(unicode.rawText.contains("\r\nTo: Jösé@xn--bcher-kva.example\r\n"))
        }
    }

    @Test("libcurl dot-stuffs a line that is a single dot, so the message arrives whole")
    func dotStuffing() async throws {
        let sink = try await SMTPSink.start()
        try await withCleanup({ await sink.stop() }) {
            let client = try SMTPClient(configuration: SMTPClientConfiguration(url: sink.url))
            // Raw, not quoted-printable: a line that is ".", one that starts with a dot, and one with two.
            let text =
                "From: a@example.com\r\nTo: b@example.com\r\nSubject: dots\r\n\r\nbefore\r\n.\r\n.hidden\r\n..two\r\n.\r\nafter\r\n"
            try await client.send(from: "a@example.com", to: "b@example.com", message: Array(text.utf8))
            let mail = try await sink.nextMail()
            #expect(mail.rawText == text)
        }
    }

    @Test("SMTP AUTH: the right credentials send, wrong or none are refused, and the password is in no error")
    func authentication() async throws {
        let sink = try await SMTPSink.start(["--auth", "mailer:s3cret-Passw0rd"])
        try await withCleanup({ await sink.stop() }) {
            let good = try SMTPClient(
                configuration: SMTPClientConfiguration(url: sink.url, username: "mailer", password: "s3cret-Passw0rd"))
            try await good.send(
                from: "a@example.com", to: "b@example.com", message: Array("Subject: x\r\n\r\nx\r\n".utf8))
            #expect(try await sink.nextMail().login == "mailer")

            let wrong = try SMTPClient(
                configuration: SMTPClientConfiguration(url: sink.url, username: "mailer", password: "wrong-Passw0rd"))
            let refused = await #expect(throws: SMTPClientError.self) {
                try await wrong.send(from: "a@example.com", to: "b@example.com", message: Array("x\r\n".utf8))
            }
            #expect(refused?.reply == 535)
            #expect(refused.map { !"\($0)".contains("wrong-Passw0rd") } == true)
            #expect(!"\(wrong)".contains("Passw0rd"))
            #expect(
                !String(reflecting: SMTPClientConfiguration(url: sink.url, password: "wrong-Passw0rd")).contains(
                    "Passw0rd"))

            let anonymous = try SMTPClient(configuration: SMTPClientConfiguration(url: sink.url))
            let unauthenticated = await #expect(throws: SMTPClientError.self) {
                try await anonymous.send(from: "a@example.com", to: "b@example.com", message: Array("x\r\n".utf8))
            }
            #expect(unauthenticated?.reply == 530)
            #expect(try sink.messageNames().count == 1)
        }
    }

    @Test("smtps: TLS from the first byte, the peer verified against the CA file and the host name checked")
    func implicitTLS() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("smtps-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificate = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        // A self-signed certificate for the name localhost only (no IP address in it).
        let openssl = try TestProcess(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
                "-out", certificate, "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
            ], package: "openssl")
        #expect(await openssl.exitCode() == 0)
        let sink = try await SMTPSink.start(["--tls", "\(certificate):\(key)"])
        try await withCleanup({ await sink.stop() }) {
            let message = Array("Subject: tls\r\n\r\nover TLS\r\n".utf8)
            let trusted = try SMTPClient(
                configuration: SMTPClientConfiguration(url: "smtps://localhost:\(sink.port)", caFile: certificate))
            #expect(trusted.server.security == .implicitTLS)
            try await trusted.send(from: "a@example.com", to: "b@example.com", message: message)
            #expect(try await sink.nextMail().rawText == String(decoding: message, as: UTF8.self))

            for (url, caFile) in [
                ("smtps://localhost:\(sink.port)", nil),  // the system store does not trust it
                ("smtps://127.0.0.1:\(sink.port)", certificate),  // trusted, but not for this host name
            ] as [(String, String?)] {
                let client = try SMTPClient(configuration: SMTPClientConfiguration(url: url, caFile: caFile))
                let error = await #expect(throws: SMTPClientError.self) {
                    try await client.send(from: "a@example.com", to: "b@example.com", message: message)
                }
                guard case .transfer(let code, _, _, _)? = error?.kind else {
                    Issue.record("not a transfer error: \(String(describing: error))")
                    continue
                }
                #expect(code == 60)  // CURLE_PEER_FAILED_VERIFICATION
            }
            #expect(try sink.messageNames().count == 1)
        }
    }

    @Test(
        "the TLS rule: smtps is TLS, smtp to any host but loopback requires STARTTLS",
        arguments: [
            ("smtps://mail.example.com", SMTPTransportSecurity.implicitTLS),
            ("smtps://127.0.0.1:465", .implicitTLS),
            ("smtp://mail.example.com:587", .startTLSRequired),
            ("SMTP://MAIL.EXAMPLE.COM", .startTLSRequired),
            ("smtp://192.0.2.10:25", .startTLSRequired),
            ("smtp://128.0.0.1", .startTLSRequired),
            ("smtp://[2001:db8::1]:587", .startTLSRequired),
            ("smtp://[::2]", .startTLSRequired),
            ("smtp://localhost.example.com", .startTLSRequired),
            ("smtp://mail.localhost", .startTLSRequired),
            ("smtp://127.0.0.1.nip.io", .startTLSRequired),
            ("smtp://127.0.0.1:2525", .plainOnLoopback),
            ("smtp://127.9.8.7", .plainOnLoopback),
            ("smtp://[::1]:25", .plainOnLoopback),
            ("smtp://localhost:25", .plainOnLoopback),
            ("smtp://LocalHost", .plainOnLoopback),
            // libcurl's parser normalises the shorthand to 127.0.0.1, and it connects to what it parsed.
            ("smtp://127.1", .plainOnLoopback),
        ])
    func transportSecurity(_ url: String, _ expected: SMTPTransportSecurity) throws {
        #expect(try SMTPServerURL(url).security == expected)
    }

    @Test(
        "URLs the client refuses: other schemes, credentials, paths, queries",
        arguments: [
            "http://mail.example.com", "mail.example.com:25", "", "ftp://127.0.0.1",
            "smtp://user:password@mail.example.com", "smtp://user@mail.example.com",
            "smtp://mail.example.com/ehlo.name",
            "smtp://mail.example.com?x=1", "smtp://mail.example.com#f", "smtp://mail example.com",
        ])
    func refusedURL(_ url: String) {
        #expect(throws: SMTPClientError.self) { try SMTPServerURL(url) }
        #expect(throws: SMTPClientError.self) { try SMTPClient(configuration: SMTPClientConfiguration(url: url)) }
    }

    @Test("a non-loopback smtp:// URL can only be configured with STARTTLS required")
    func noPlainRemote() throws {
        // There is no setting that allows plain text: the decision takes only the scheme and host.
        for host in ["mail.example.com", "192.0.2.1", "[2001:db8::25]", "10.0.0.1", "0.0.0.0", "[::ffff:192.0.2.1]"] {
            #expect(SMTPTransportSecurity.decide(scheme: "smtp", host: host) == .startTLSRequired)
        }
        #expect(SMTPTransportSecurity.decide(scheme: "http", host: "127.0.0.1") == nil)
        #expect(!SMTPTransportSecurity.isLoopback("localhost."))
        #expect(SMTPTransportSecurity.isLoopback("[::ffff:127.0.0.1]"))
    }

    @Test("an error names the server, carries curl's code, and says nothing of the credentials")
    func connectionRefused() async throws {
        let port = try freeLoopbackPort()
        let client = try SMTPClient(
            configuration: SMTPClientConfiguration(
                url: "smtp://127.0.0.1:\(port)", username: "mailer", password: "s3cret-Passw0rd"))
        let error = await #expect(throws: SMTPClientError.self) {
            try await client.send(from: "a@example.com", to: "b@example.com", message: Array("x\r\n".utf8))
        }
        guard case .transfer(let code, _, _, _)? = error?.kind else {
            Issue.record("not a transfer error: \(String(describing: error))")
            return
        }
        #expect(code == 7)  // CURLE_COULDNT_CONNECT
        #expect(error.map { "\($0)".contains("smtp://127.0.0.1:\(port)") } == true)
        #expect(error.map { !"\($0)".contains("s3cret") && !"\($0)".contains("mailer") } == true)
    }

    @Test("a server that never answers fails the transfer at the time-out")
    func timeout() async throws {
        let silent = try TestProcess(
            SMTPSink.python,
            [
                "-I", "-c",
                "import signal, socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(); "
                    + "print('port', s.getsockname()[1], flush=True); signal.pause()",
            ])
        try await withCleanup({ await silent.kill() }) {
            guard let port = await silent.waitForLine(startingWith: "port ") else {
                Issue.record("no port")
                return
            }
            let client = try SMTPClient(
                configuration: SMTPClientConfiguration(url: "smtp://127.0.0.1:\(port)", timeout: .milliseconds(300)))
            let started = ContinuousClock.now
            let error = await #expect(throws: SMTPClientError.self) {
                try await client.send(from: "a@example.com", to: "b@example.com", message: Array("x\r\n".utf8))
            }
            guard case .transfer(let code, _, _, _)? = error?.kind else {
                Issue.record("not a transfer error: \(String(describing: error))")
                return
            }
            #expect(code == 28)  // CURLE_OPERATION_TIMEDOUT
            #expect(ContinuousClock.now - started < .seconds(5))
        }
    }

    @Test(
        "an envelope address with a line break or bracket is refused before anything is sent",
        arguments: [
            ("a@example.com\r\nRCPT TO:<x@example.net>", "b@example.com"), ("a@example.com", "b@example.com>"),
            ("", "b@example.com"), ("a@example.com", "<b@example.com"),
        ])
    func invalidEnvelope(_ sender: String, _ recipient: String) async throws {
        let client = try SMTPClient(configuration: SMTPClientConfiguration(url: "smtp://127.0.0.1:9"))
        let error = await #expect(throws: SMTPClientError.self) {
            try await client.send(from: sender, to: recipient, message: Array("x\r\n".utf8))
        }
        guard case .invalidEnvelope? = error?.kind else {
            Issue.record("not an envelope error: \(String(describing: error))")
            return
        }
    }
}
