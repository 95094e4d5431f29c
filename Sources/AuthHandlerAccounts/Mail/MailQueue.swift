import AuthHandlerStore

/// How `MailQueue` retries and limits (docs/ACCOUNTS.md "E-mail addresses and mail").
package struct MailRetryPolicy: Sendable, Equatable {
    /// The wait after the first failure; each further failure doubles it.
    package var firstDelay: Duration
    /// The longest wait between two attempts.
    package var maximumDelay: Duration
    /// How long after its first attempt a mail is given up, with a report, rather than tried again.
    package var giveUpAfter: Duration
    /// How many mails of one limit group one recipient (its normalised address) gets per `limitWindow`.
    package var perRecipientLimit: Int
    /// The window of the per-recipient limit.
    package var limitWindow: Duration

    package init(
        firstDelay: Duration = .seconds(5), maximumDelay: Duration = .seconds(600),
        giveUpAfter: Duration = .seconds(86400),
        perRecipientLimit: Int = 3, limitWindow: Duration = .seconds(3600)
    ) {
        self.firstDelay = firstDelay
        self.maximumDelay = maximumDelay
        self.giveUpAfter = giveUpAfter
        self.perRecipientLimit = perRecipientLimit
        self.limitWindow = limitWindow
    }

    /// The wait after failed attempt number `attempt` (1 for the first): `firstDelay` doubled `attempt - 1` times, at
    /// most `maximumDelay`.
    package func delay(afterFailure attempt: Int) -> Duration {
        var delay = firstDelay
        var doublings = attempt - 1
        while doublings > 0, delay < maximumDelay {
            delay *= 2
            doublings -= 1
        }
        return min(delay, maximumDelay)
    }
}

/// What happened to one mail, for the caller to log and count. It names the kind and the recipient's domain only:
/// never the address, never the body, which holds a one-time code.
package struct MailReport: Sendable, CustomStringConvertible {
    package enum Event: Sendable {
        /// Handed on after `attempts` attempts.
        case delivered(attempts: Int)
        /// Attempt `attempt` failed; the next comes after `retryIn`.
        case failed(attempt: Int, error: MailDeliveryError, retryIn: Duration)
        /// The last of `attempts` attempts failed and the next would come after the policy's `giveUpAfter`.
        case gaveUp(attempts: Int, error: MailDeliveryError)
        /// Not queued: the recipient had its limit of mails of this group in the window (the next may go after
        /// `retryAfter`).
        case droppedOverLimit(retryAfter: Duration)
        /// Not queued: the limit could not be counted (the store failed), so the mail was not sent.
        case droppedLimitUnavailable(StoreError)
        /// The queue shut down before the mail went out, after `attempts` attempts.
        case abandoned(attempts: Int)
    }

    package let kind: MailKind
    /// The recipient's domain in A-labels.
    package let recipientDomain: String
    package let event: Event

    /// Whether the mail will never go out: the events a log should raise.
    package var isLoss: Bool {
        switch event {
        case .delivered, .failed: false
        case .gaveUp, .droppedOverLimit, .droppedLimitUnavailable, .abandoned: true
        }
    }

    package var description: String {
        let subject = "\(kind) mail to a recipient at \(recipientDomain)"
        switch event {
        case .delivered(let attempts): return "\(subject) delivered after \(attempts) attempt(s)"
        case .failed(let attempt, let error, let retryIn):
            return "\(subject): attempt \(attempt) failed, next in \(retryIn.components.seconds) s: \(error)"
        case .gaveUp(let attempts, let error):
            return "\(subject) given up after \(attempts) attempts: \(error)"
        case .droppedOverLimit(let retryAfter):
            return "\(subject) dropped: the recipient's limit of mails per hour was reached (next in "
                + "\(retryAfter.components.seconds) s)"
        case .droppedLimitUnavailable(let error):
            return "\(subject) dropped: its recipient's limit could not be counted: \(error)"
        case .abandoned(let attempts): return "\(subject) abandoned at shutdown after \(attempts) attempt(s)"
        }
    }
}

/// Sends mail in the background: a queued mail is handed to the `Mailer` at once, and a failure is reported and
/// retried with exponential back-off until it goes out or `giveUpAfter` has passed (docs/ACCOUNTS.md "E-mail
/// addresses and mail"). Each mail first counts against its recipient's limit, in the store's `CounterStore`, so
/// that every instance on one store limits together; a mail over the limit is dropped and reported.
///
/// The waits are on `clock`, a monotonic clock in production (`ContinuousClock`) and `TestClock` in tests, where a
/// wait takes no real time.
package actor MailQueue<C: Clock> where C.Duration == Duration {
    private let mailer: any Mailer
    private let limits: any CounterStore
    private let clock: C
    private let policy: MailRetryPolicy
    private let report: @Sendable (MailReport) -> Void
    private var deliveries: [Int: Task<Void, Never>] = [:]
    private var nextDelivery = 0
    private var isShutDown = false

    /// A queue that hands mail to `mailer`, counts recipients in `limits` and tells `report` what happened to each
    /// mail (on any thread).
    package init(
        mailer: any Mailer, limits: any CounterStore, clock: C, policy: MailRetryPolicy = MailRetryPolicy(),
        report: @escaping @Sendable (MailReport) -> Void
    ) {
        self.mailer = mailer
        self.limits = limits
        self.clock = clock
        self.policy = policy
        self.report = report
    }

    /// Counts `message` against its recipient's limit and, within it, starts its delivery; returns whether it was
    /// queued. The caller waits for the count only, never for the mail.
    @discardableResult
    package func enqueue(_ message: MailMessage) async -> Bool {
        let key = "mail-recipient:\(message.kind.limitGroup.rawValue):\(message.recipient.normalized)"
        let reading: CounterReading
        do {
            reading = try await limits.incrementCounter(key: key, window: policy.limitWindow)
        } catch {
            report(Self.report(message, .droppedLimitUnavailable(error)))
            return false
        }
        guard reading.count <= policy.perRecipientLimit else {
            report(Self.report(message, .droppedOverLimit(retryAfter: reading.remaining)))
            return false
        }
        guard !isShutDown else {
            report(Self.report(message, .abandoned(attempts: 0)))
            return false
        }
        let number = nextDelivery
        nextDelivery += 1
        let (mailer, clock, policy, report) = (self.mailer, self.clock, self.policy, self.report)
        deliveries[number] = Task {
            await Self.deliver(message, mailer: mailer, clock: clock, policy: policy, report: report)
            self.finished(number)
        }
        return true
    }

    /// Waits until every mail queued so far has been delivered, given up or abandoned.
    package func drain() async {
        while let delivery = deliveries.values.first {
            await delivery.value
        }
    }

    /// Stops retrying: each mail still waiting is reported abandoned; one being handed on finishes that attempt.
    package func shutDown() async {
        isShutDown = true
        for delivery in deliveries.values { delivery.cancel() }
        await drain()
    }

    private func finished(_ number: Int) {
        deliveries[number] = nil
    }

    /// Attempts until the mail goes out, the policy gives up, or the task is cancelled.
    private static func deliver(
        _ message: MailMessage, mailer: any Mailer, clock: C, policy: MailRetryPolicy,
        report: @Sendable (MailReport) -> Void
    ) async {
        let start = clock.now
        var attempt = 0
        while !Task.isCancelled {
            attempt += 1
            let failure: MailDeliveryError
            do {
                try await mailer.deliver(message)
                report(Self.report(message, .delivered(attempts: attempt)))
                return
            } catch {
                failure = error
            }
            let delay = policy.delay(afterFailure: attempt)
            guard start.duration(to: clock.now) + delay <= policy.giveUpAfter else {
                report(Self.report(message, .gaveUp(attempts: attempt, error: failure)))
                return
            }
            report(Self.report(message, .failed(attempt: attempt, error: failure, retryIn: delay)))
            do {
                try await clock.sleep(until: clock.now.advanced(by: delay), tolerance: nil)
            } catch {
                break
            }
        }
        report(Self.report(message, .abandoned(attempts: attempt)))
    }

    private static func report(_ message: MailMessage, _ event: MailReport.Event) -> MailReport {
        MailReport(kind: message.kind, recipientDomain: message.recipient.domain, event: event)
    }
}

extension MailQueue where C == ContinuousClock {
    /// A queue whose waits are on the monotonic `ContinuousClock`.
    package init(
        mailer: any Mailer, limits: any CounterStore, policy: MailRetryPolicy = MailRetryPolicy(),
        report: @escaping @Sendable (MailReport) -> Void
    ) {
        self.init(mailer: mailer, limits: limits, clock: ContinuousClock(), policy: policy, report: report)
    }
}
