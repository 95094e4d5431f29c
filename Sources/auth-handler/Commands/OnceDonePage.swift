import AuthHandlerCore
import AuthHandlerCrypto
import AuthHandlerHTTP
import FakeIdP
import Foundation
import Synchronization

/// How a `--once` sign-in ended at its done page.
enum OnceOutcome: Sendable {
    /// Signed in: the redemption JSON (HTTP-API.md §3.3).
    case signedIn(result: [UInt8])
    /// Cancelled or failed: the exit code, the stderr line, and (for a backend answer an app can act on, such as
    /// `account-exists-with-different-credential`) the JSON error document for the output.
    case failed(AuthHandlerExitCode, message: String, document: [UInt8]?)
}

/// `GET /__/auth/done`, served in `--once` only: the page the handler sends the browser back to. It accepts only
/// the sign-in this run started (its random `eventId`), redeems the result through the flow, shows the outcome
/// (never a token), and reports it once.
final class OnceDonePage: Sendable {
    let providerID: String
    private let eventID: String
    private let idToken: String?
    /// The verifier of the start's `resultChallenge`.
    private let verifier: String
    private let finished = Mutex(false)
    private let continuation: AsyncStream<OnceOutcome>.Continuation
    /// The one outcome, when it arrives.
    let outcomes: AsyncStream<OnceOutcome>

    init(providerID: String, eventID: String, verifier: String, idToken: String?) {
        self.providerID = providerID
        self.eventID = eventID
        self.verifier = verifier
        self.idToken = idToken
        (outcomes, continuation) = AsyncStream<OnceOutcome>.makeStream(bufferingPolicy: .bufferingOldest(1))
    }

    /// The route.
    func respond(_ request: ServerRequest, flow: SignInFlow) async -> ServerResponse {
        let accept = request.headers["Accept"]
        let audience = PageAudience(productName: flow.settings.productName, starter: .terminal)
        guard request.method == "GET" else {
            return ResponseRendering.error(
                APIError(.methodNotAllowed, "use GET"), accept: accept, audience: audience)
        }
        let fields = request.queryItems
        // Only the browser coming back from this run's sign-in knows the eventId; anything else is ignored.
        guard fields.all(named: "eventId").count == 1, let presented = fields.first(named: "eventId"),
            ConstantTime.equals(presented, eventID)
        else {
            return ResponseRendering.error(
                APIError(
                    .invalidRequest, "this page only takes the result of the sign-in this auth-handler --once started"),
                accept: accept, audience: audience)
        }
        let error = fields.first(named: "error")
        let code = fields.first(named: "code")
        guard error != nil || code != nil else {
            return ResponseRendering.error(
                APIError(.invalidRequest, "neither code nor error is given"), accept: accept, audience: audience)
        }
        guard claim() else {
            return .html(
                HTMLPage(
                    heading: "This sign-in has already finished",
                    content: HTMLPage.paragraph(
                        "Its result went to your terminal. You can close this window.", id: "outcome", class: "next")
                ).render())
        }
        if let error {
            return failed(
                error: error, description: fields.first(named: "error_description") ?? "", accept: accept,
                audience: audience)
        }
        var form = [URLFormField(name: "code", value: code ?? ""), URLFormField(name: "verifier", value: verifier)]
        if let idToken { form.append(URLFormField(name: "idToken", value: idToken)) }
        do {
            let answer = try await flow.redeem(form)
            finish(.signedIn(result: answer.serialized(sortingKeys: true)))
            return .html(Self.signedInPage(providerName: flow.providers[providerID]?.displayName, audience: audience))
        } catch {
            finish(
                .failed(
                    .providerError, message: Self.redemptionMessage(error, providerID: providerID),
                    document: Self.errorDocument(error)))
            return ResponseRendering.error(error, accept: accept, audience: audience)
        }
    }

    /// The handler sent the browser back with `error=`: `user-cancelled` exits 1, anything else (`interaction-required`
    /// included) 2.
    private func failed(error: String, description: String, accept: String?, audience: PageAudience)
        -> ServerResponse
    {
        let code = SignInFlow.safeErrorCode(error)
        let detail = Self.printable(description)
        let known = APIError.Code(rawValue: code)
        let cancelled = known == .userCancelled
        let message: String
        switch known {
        case .userCancelled:
            message =
                "the sign-in with \(providerID) was cancelled or denied (\(code): \(detail)); run the command again to sign in"
        case .interactionRequired:
            message = "the sign-in with \(providerID) needs the user at the provider (\(code): \(detail))"
        default:
            message =
                "the sign-in with \(providerID) failed (\(code): \(detail)); check the provider's settings and try again"
        }
        finish(.failed(cancelled ? .cancelled : .providerError, message: message, document: nil))
        // The codes the user can act on keep their own status (HTTP-API.md §5); any other failure is the provider's.
        let status: Int
        switch known {
        case .userCancelled?: status = 403
        case .interactionRequired?: status = 401
        default: status = 502
        }
        guard let known else {
            // Not a code the handler sends: the URL was edited by hand. Shown as it came, like any other.
            return ResponseRendering.error(
                status: status, echoedCode: code, message: detail, accept: accept, audience: audience)
        }
        return ResponseRendering.error(APIError(known, detail, status: status), accept: accept, audience: audience)
    }

    /// True for the first request that may end the run.
    private func claim() -> Bool {
        finished.withLock { done in
            if done { return false }
            done = true
            return true
        }
    }

    private func finish(_ outcome: OnceOutcome) {
        continuation.yield(outcome)
        continuation.finish()
    }

    /// The stderr line for a failed redemption.
    static func redemptionMessage(_ error: APIError, providerID: String) -> String {
        let advice =
            switch error.code {
            case .invalidIDToken: "check that --id-token-file holds the user's current ID token"
            case .accountExistsWithDifferentCredential, .secondFactorRequired, .credentialAlreadyInUse:
                "the error object, written to the output, says how to go on"
            default: "check the backend settings and try again"
            }
        return "\(providerID) signed the user in, but redeeming the result failed (\(error.code.rawValue): "
            + "\(printable(error.message))); \(advice)"
    }

    /// The JSON error object when it carries more than code and message (HTTP-API.md §3.3, §3.5), else nil.
    static func errorDocument(_ error: APIError) -> [UInt8]? {
        guard !error.details.isEmpty else { return nil }
        var members = error.details
        members["code"] = .string(error.code.rawValue)
        members["message"] = .string(error.message)
        return JSONValue.object(["error": .object(members)]).serialized(sortingKeys: true)
    }

    /// A value from the URL cut to printable ASCII and 300 characters, safe for a terminal line.
    static func printable(_ text: String) -> String {
        let kept = text.unicodeScalars.prefix(300).map { $0.value >= 0x20 && $0.value < 0x7f ? Character($0) : "?" }
        return String(kept)
    }

    /// The page that ends a sign-in that worked; it names the provider, never a token.
    static func signedInPage(providerName: String?, audience: PageAudience) -> String {
        let outcome =
            providerName.map { "You signed in with \($0). The result is in your terminal." }
            ?? "The result is in your terminal."
        return HTMLPage(
            heading: audience.successHeading(), tone: .success,
            content: [
                HTMLPage.paragraph(outcome, id: "outcome", class: "lead"),
                HTMLPage.paragraph(audience.nextStepAfterSuccess, id: "next-step", class: "next"),
            ].joined(separator: "\n")
        ).render()
    }
}
