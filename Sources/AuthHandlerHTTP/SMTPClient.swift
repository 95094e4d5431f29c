import AuthHandlerSystem
import Foundation
import Synchronization

/// Settings of `SMTPClient`. Printing them never shows the password.
package struct SMTPClientConfiguration: Sendable, CustomStringConvertible, CustomReflectable {
    /// `smtps://host[:port]` or `smtp://host[:port]` (docs/ACCOUNTS.md "E-mail addresses and mail").
    package var url: String
    /// The SMTP AUTH user name, when the server wants one.
    package var username: String?
    /// The SMTP AUTH password; never printed, logged or put in an error.
    package var password: String?
    /// A PEM file of CA certificates to trust instead of the system store (CURLOPT_CAINFO).
    package var caFile: String?
    /// How long connecting, TLS included, may take (CURLOPT_CONNECTTIMEOUT_MS).
    package var connectTimeout: Duration
    /// How long one whole transfer may take (CURLOPT_TIMEOUT_MS).
    package var timeout: Duration

    package init(
        url: String, username: String? = nil, password: String? = nil, caFile: String? = nil,
        connectTimeout: Duration = .seconds(10), timeout: Duration = .seconds(60)
    ) {
        self.url = url
        self.username = username
        self.password = password
        self.caFile = caFile
        self.connectTimeout = connectTimeout
        self.timeout = timeout
    }

    package var description: String {
        let user = username.map { " as \($0)" } ?? ""
        return "SMTP \(Redaction.target(url))\(user)"
    }

    package var customMirror: Mirror { Mirror(self, children: ["url": Redaction.target(url)]) }
}

/// Sends one message to one recipient through libcurl's SMTP (CURLOPT_MAIL_FROM(3), CURLOPT_MAIL_RCPT(3)), with TLS
/// as `SMTPTransportSecurity` decides: `smtps://` is TLS, `smtp://` must upgrade with STARTTLS unless the server is on
/// loopback. Protocols are limited to SMTP, the peer and host name are verified, and an error is a value whose text
/// never holds the credentials.
///
/// Why a thread of its own with blocking transfers rather than `HTTPClient`'s event loop: mail is rare (a handful an
/// hour per user), an SMTP dialogue is a dozen round trips to one slow server, and a thread that does nothing else
/// keeps that wait off the listener's threads, off Swift's cooperative pool and off the HTTP loop, whose transfers
/// are HTTP requests and answers. The transfers run one at a time, in the order they were asked for; each is bounded
/// by the configured time-outs, so a queue behind a stalled server drains at that pace. The thread ends when the
/// client is released, after the transfers already queued.
package final class SMTPClient: Sendable {
    /// The server, as libcurl parsed it.
    package let server: SMTPServerURL
    private let configuration: SMTPClientConfiguration
    private let jobs = SMTPJobQueue()

    /// Checks the configuration (the URL and its TLS rule) and starts the thread; nothing is contacted yet.
    package init(configuration: SMTPClientConfiguration) throws(SMTPClientError) {
        server = try SMTPServerURL(configuration.url)
        self.configuration = configuration
        do {
            try CurlGlobalSetup.ensureInitialized()
        } catch {
            throw SMTPClientError(
                kind: .setup(operation: "curl_global_init", code: 0, text: error.description),
                target: Redaction.target(server.url))
        }
        let jobs = self.jobs
        let thread = Thread {
            while let job = jobs.next() { job() }
        }
        thread.name = "auth-handler-smtp"
        thread.start()
    }

    deinit { jobs.stop() }

    /// Sends `message` (RFC 5322, CRLF line ends) from `sender` to `recipient` (`MAIL FROM`, `RCPT TO`; addresses
    /// without angle brackets). The calling task waits, suspended, not blocked.
    package func send(from sender: String, to recipient: String, message: [UInt8]) async throws(SMTPClientError) {
        let server = self.server
        let configuration = self.configuration
        let outcome: Result<Void, SMTPClientError> = await withCheckedContinuation { continuation in
            let accepted = jobs.append {
                let result = Result { () throws(SMTPClientError) in
                    let transfer = try SMTPTransfer(
                        server: server, configuration: configuration, from: sender, to: recipient, message: message)
                    try transfer.perform().get()
                }
                continuation.resume(returning: result)
            }
            if !accepted {
                continuation.resume(
                    returning: .failure(SMTPClientError(kind: .shutDown, target: Redaction.target(server.url))))
            }
        }
        try outcome.get()
    }
}

/// Transfers waiting for the client's thread; `next()` blocks on a semaphore counting them.
private final class SMTPJobQueue: Sendable {
    typealias Job = @Sendable () -> Void

    private let state = Mutex<(jobs: [Job], stopping: Bool)>(([], false))
    private let available = DispatchSemaphore(value: 0)

    /// Queues `job`; false once the queue is stopping.
    func append(_ job: @escaping Job) -> Bool {
        let accepted = state.withLock { state in
            guard !state.stopping else { return false }
            state.jobs.append(job)
            return true
        }
        if accepted { available.signal() }
        return accepted
    }

    func stop() {
        state.withLock { $0.stopping = true }
        available.signal()
    }

    /// The next job, waiting for one; nil once stopped and every queued job has run.
    func next() -> Job? {
        while true {
            available.wait()
            let (job, finished) = state.withLock { state -> (Job?, Bool) in
                guard state.jobs.isEmpty else { return (state.jobs.removeFirst(), false) }
                return (nil, state.stopping)
            }
            if let job { return job }
            if finished { return nil }
        }
    }
}
