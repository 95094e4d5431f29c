import AuthHandlerCrypto
import AuthHandlerSystem
import Foundation

/// One mail, ready to send: an RFC 5322 message with a MIME (RFC 2045) text body, and its SMTP envelope.
///
/// Every header field is built from the configuration, the stored address and fixed text; nothing a user typed goes
/// into one (docs/ACCOUNTS.md "E-mail addresses and mail"). The body is quoted-printable, so no line is longer than
/// 76 characters. Its description names the kind and the recipient's domain only: the body holds a one-time code.
package struct MailMessage: Sendable, CustomStringConvertible {
    /// What the mail is.
    package let kind: MailKind
    /// The configured sender.
    package let sender: MailSender
    /// The stored address the mail goes to.
    package let recipient: EmailAddress
    /// `<random@sender-domain>` (RFC 5322 §3.6.4).
    package let messageID: String
    /// The whole message, CRLF line ends, as it is sent or written to the outbox.
    package let data: [UInt8]

    /// Composes `content` from `sender` to `recipient`, dated `date`; `appName` and `displayName` go into the body
    /// only. Throws when the CSPRNG fails for the Message-ID.
    package init(
        content: MailContent, from sender: MailSender, to recipient: EmailAddress, appName: String,
        displayName: String?, date: Date
    ) throws(CryptoError) {
        let unique = Hex.lowercase(try SecureRandom.bytes(16))
        self.init(
            content: content, from: sender, to: recipient, appName: appName, displayName: displayName, date: date,
            messageID: "<\(unique)@\(sender.address.domain)>")
    }

    init(
        content: MailContent, from sender: MailSender, to recipient: EmailAddress, appName: String,
        displayName: String?, date: Date, messageID: String
    ) {
        kind = content.kind
        self.sender = sender
        self.recipient = recipient
        self.messageID = messageID
        let fields = [
            "From: \(sender.fieldValue)",
            "To: \(recipient.mailbox)",
            "Subject: \(content.kind.subject)",
            "Date: \(MailHeaderEncoding.dateTime(date))",
            "Message-ID: \(messageID)",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: quoted-printable",
            // RFC 3834 §5: an automatic message, so that vacation responders do not answer it.
            "Auto-Submitted: auto-generated",
        ]
        let body = QuotedPrintable.encode(content.body(appName: appName, displayName: displayName))
        data = Array((fields.joined(separator: "\r\n") + "\r\n\r\n" + body).utf8)
    }

    /// `MAIL FROM`: the sender's address.
    package var envelopeSender: String { sender.address.mailbox }
    /// `RCPT TO`: the stored address, its domain in A-labels.
    package var envelopeRecipient: String { recipient.mailbox }

    package var description: String { "\(kind) mail to a recipient at \(recipient.domain)" }
}
