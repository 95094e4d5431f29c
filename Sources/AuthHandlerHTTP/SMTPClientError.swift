/// A mail the SMTP client could not hand to the server. Names the server by its URL (`smtp://host:port`), never the
/// credentials, and libcurl's message only after they were scrubbed from it.
package struct SMTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What failed.
    package enum Kind: Sendable, Equatable {
        /// The client's settings cannot work: a URL that is not `smtp://` or `smtps://`, user info in the URL.
        case invalidConfiguration(String)
        /// The envelope cannot be sent as given (an address with a line break or angle bracket, an empty message).
        case invalidEnvelope(String)
        /// libcurl could not be set up (init or setopt failed).
        case setup(operation: String, code: Int, text: String)
        /// The transfer failed: the `CURLcode`, `curl_easy_strerror`'s text, curl's detail message (scrubbed), and
        /// the server's last reply code (`CURLINFO_RESPONSE_CODE`, e.g. 451 or 550; 0 when none came).
        case transfer(code: Int, text: String, detail: String, reply: Int)
        /// The client was released before the mail was sent.
        case shutDown
    }

    package let kind: Kind
    /// The server's URL without user info, path or query (`Redaction.target`).
    package let target: String

    package init(kind: Kind, target: String) {
        self.kind = kind
        self.target = target
    }

    /// The server's reply code when it answered with an error, e.g. 451; nil otherwise.
    package var reply: Int? {
        if case .transfer(_, _, _, let reply) = kind, reply > 0 { return reply }
        return nil
    }

    package var description: String {
        switch kind {
        case .invalidConfiguration(let reason):
            return "SMTP server \(target) cannot be used: \(reason)"
        case .invalidEnvelope(let reason):
            return "mail to \(target) not sent: \(reason)"
        case .setup(let operation, let code, let text):
            return "mail to \(target) not sent: \(operation) failed with code \(code): \(text)"
        case .transfer(let code, let text, let detail, let reply):
            let more = detail.isEmpty || detail == text ? "" : " (\(detail))"
            let server = reply > 0 ? ", server reply \(reply)" : ""
            return "mail to \(target) failed: CURLcode \(code): \(text)\(more)\(server)"
        case .shutDown:
            return "mail to \(target) not sent: the SMTP client was shut down"
        }
    }
}
