import AuthHandlerStore
import AuthHandlerSystem
import Foundation

/// Sealing a pending sign-in into its `auth-handler-<tag>` cookie, and the browser's oldest such cookies cleared
/// (HTTP-API.md §3.1): what every way to start a sign-in shares (docs/ARCHITECTURE.md, `Flow`).
struct PendingSignInCookies: Sendable {
    let settings: SignInFlow.Settings
    /// For the attributes a cookie was set with, which follow its provider.
    let providers: ProviderRegistry
    let observer: any SignInObserver
    let now: WallClock

    /// Clearing `Set-Cookie`s for the browser's pending sign-ins beyond the newest ``SignInStart/maximumPendingPerBrowser`` − 1
    /// (the new one makes the maximum): cookies that do not open first, then the oldest.
    func evictions(_ cookieHeaders: [String]) -> [String] {
        let pending = SignInCookie.all(in: cookieHeaders)
        guard pending.count >= SignInStart.maximumPendingPerBrowser else { return [] }
        let ranked = pending.map { cookie in
            let session = PendingSession.opening(cookie.value, cookieName: cookie.name, keys: settings.stateKeys)
            let formPost = session.flatMap { providers[$0.providerID] }?.usesFormPost ?? false
            return (name: cookie.name, createdAt: session?.createdAt ?? .distantPast, formPost: formPost)
        }.sorted { $0.createdAt < $1.createdAt }
        return ranked.prefix(pending.count - SignInStart.maximumPendingPerBrowser + 1).map { cookie in
            SignInCookie.clearing(
                name: cookie.name,
                attributes: SignInCookie.Attributes(httpsOrigin: settings.httpsOrigin, crossSitePost: cookie.formPost))
        }
    }

    /// Seals the pending sign-in into its cookie; a session too large for a cookie is the request's fault.
    func seal(_ session: PendingSession, location: String, provider: ProviderDescriptor)
        throws(APIError) -> StartAnswer
    {
        let cookie = try pendingCookie(session)
        let attributes = SignInCookie.Attributes(
            httpsOrigin: settings.httpsOrigin, crossSitePost: provider.usesFormPost)
        observer.pendingStarted(expiresAt: session.expiresAt, now: now())
        return StartAnswer(
            location: location,
            setCookie: cookie.setCookie(maxAge: Int(settings.sessionTTL.components.seconds), attributes: attributes),
            cookiePair: "\(cookie.name)=\(cookie.value)")
    }

    /// The cookie that carries `session`, sealed under the current state key; a session too large for a cookie is
    /// refused with `400 invalid-request` (HTTP-API.md §3.1).
    func pendingCookie(_ session: PendingSession) throws(APIError) -> SignInCookie {
        guard let key = session.lookupKey,
            let name = SignInCookie.name(forState: key, httpsOrigin: settings.httpsOrigin)
        else { throw APIError(.internalError, "the sign-in state could not be made") }
        let value: String
        do {
            value = try settings.stateKeys.seal(session.plaintext, context: name)
        } catch {
            throw APIError(.internalError, "the sign-in state could not be sealed")
        }
        guard name.utf8.count + 1 + value.utf8.count <= SignInCookie.maximumLength else {
            throw APIError(
                .invalidRequest,
                "this sign-in's state does not fit in a \(SignInCookie.maximumLength)-byte cookie; shorten "
                    + "redirectUrl, eventId or scopes")
        }
        return SignInCookie(name: name, value: value)
    }
}
