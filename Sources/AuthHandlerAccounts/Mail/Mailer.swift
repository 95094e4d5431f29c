import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerSystem

/// Hands one message on: to an SMTP server (`SMTPMailer`) or to a directory (`OutboxMailer`). `MailQueue` calls it,
/// in the background, and retries what fails.
package protocol Mailer: Sendable {
    /// Delivers `message` once; an error is worth retrying later.
    func deliver(_ message: MailMessage) async throws(MailDeliveryError)
}

/// A message that could not be handed on. Its text names the server or the file, never the message's body (which
/// holds a one-time code) and never the SMTP credentials.
package struct MailDeliveryError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
        /// The SMTP transfer failed (a refused connection, a 4xx or 5xx reply, a TLS failure).
        case smtp(SMTPClientError)
        /// Writing the outbox file failed.
        case outbox(SystemCallError)
        /// The CSPRNG failed while naming the outbox file.
        case random(CryptoError)
    }

    package let kind: Kind

    package init(_ kind: Kind) {
        self.kind = kind
    }

    package var description: String {
        switch kind {
        case .smtp(let error): "\(error)"
        case .outbox(let error): "the outbox file could not be written: \(error)"
        case .random(let error): "the outbox file could not be named: \(error)"
        }
    }
}

/// Sends each message through `SMTPClient` (libcurl): `MAIL FROM` the configured sender, `RCPT TO` the stored
/// address with its domain in A-labels.
package struct SMTPMailer: Mailer {
    private let client: SMTPClient

    package init(client: SMTPClient) {
        self.client = client
    }

    /// A mailer with a client of its own; the configuration's URL is checked here (its TLS rule included).
    package init(configuration: SMTPClientConfiguration) throws(SMTPClientError) {
        client = try SMTPClient(configuration: configuration)
    }

    package func deliver(_ message: MailMessage) async throws(MailDeliveryError) {
        do {
            try await client.send(from: message.envelopeSender, to: message.envelopeRecipient, message: message.data)
        } catch {
            throw MailDeliveryError(.smtp(error))
        }
    }
}
