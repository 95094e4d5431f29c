import AuthHandlerCrypto
import AuthHandlerSystem
import Foundation

/// The mail the accounts send (docs/ACCOUNTS.md "E-mail addresses and mail"): always to the address the account has
/// stored (or, for a change of address, the new one the account asked for), never to one typed in a request; queued,
/// so a request never waits on SMTP.
package final class AccountsMail: Sendable {
    let queue: MailQueue<ContinuousClock>
    let sender: MailSender
    /// The app's name in the bodies (`branding.name`, or the public host).
    let appName: String
    /// `publicURL`, where the action links point.
    let baseURL: String
    let now: WallClock

    package init(
        queue: MailQueue<ContinuousClock>, sender: MailSender, appName: String, baseURL: String,
        now: @escaping WallClock = systemWallClock
    ) {
        self.queue = queue
        self.sender = sender
        self.appName = appName
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.now = now
    }

    /// The action page's URL for `mode` and a code (HTTP-API.md §3.10, Firebase's action-link shape).
    package func actionLink(mode: String, code: String, continueURL: String? = nil) -> String {
        var link = baseURL + "/__/auth/action?mode=" + mode + "&oobCode=" + code
        if let continueURL { link += "&continueUrl=" + RFC3986.percentEncoded(continueURL) }
        return link
    }

    /// Queues `content` to `address` (a stored address); false when it was not queued (over the recipient's limit,
    /// or the address no longer parses), which the queue has reported.
    @discardableResult
    package func send(_ content: MailContent, to address: String, displayName: String?) async -> Bool {
        guard let recipient = try? EmailAddress(parsing: address),
            let message = try? MailMessage(
                content: content, from: sender, to: recipient, appName: appName, displayName: displayName,
                date: now())
        else { return false }
        return await queue.enqueue(message)
    }

    /// Tells the account's address that `providerID` was linked (docs/ACCOUNTS.md "Who a sign-in is": every link that
    /// adds an identity is mailed).
    package func identityLinked(_ user: AccountUser, providerID: String) async {
        guard let email = user.email else { return }
        await send(
            .identityLinked(providerName: providerID, link: baseURL + "/__/auth/signin"), to: email,
            displayName: user.displayName)
    }
}
