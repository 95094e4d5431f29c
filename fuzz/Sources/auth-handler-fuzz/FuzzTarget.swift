import AuthHandlerCore
import AuthHandlerHTTP
import AuthHandlerProtocols
import Foundation

/// One parser of outside input, fuzzed from its own corpus in `fuzz/corpus/<rawValue>/` (CONTRIBUTING.md "Fuzzing").
///
/// A target feeds the input to the same function the daemon calls on it. Any crash, hang or sanitizer report is a
/// finding; so is a broken invariant, which ``expect(_:_:)`` turns into an abort that libFuzzer records.
enum FuzzTarget: String, CaseIterable {
    /// Query strings and form bodies (`FormURLEncoding`).
    case form
    /// The `Authorization: OAuth` header (`OAuth1AuthorizationHeader`).
    case oauth1Header = "oauth1-header"
    /// The OAuth 1.0a request-token and access-token answers (`OAuth1Client`).
    case oauth1TokenResponse = "oauth1-token-response"
    /// A compact JWS ID token: `CompactJWS`, then the validator's header and claims checks.
    case jws
    /// A JWKS document (`JSONWebKeySet`).
    case jwks
    /// A `redirectUrl` against `allowedRedirectURLs` (`RedirectURLPolicy`).
    case redirectURL = "redirect-url"
    /// The pending sign-in cookie: `Cookie` header, sealed value and its plaintext (`SignInCookie`, `StateKeyRing`).
    case cookie
    /// A config document (`ConfigLoader`, `ConfigValidator`).
    case config
    /// A request head: the listener's target, framing and `Host` checks (`HTTPRequestChecks`).
    case listener
    /// An accounts endpoint's JSON body (`JSONRequestBody`).
    case accountsJSONBody = "accounts-json-body"
    /// An e-mail address and its normal form (`EmailAddress`).
    case emailAddress = "email-address"
    /// The pending credential of a linking conflict: its text and its sealed plaintext (`PendingCredential`).
    case pendingCredential = "pending-credential"

    func run(_ input: [UInt8]) {
        switch self {
        case .form: FormTarget.run(input)
        case .oauth1Header: OAuth1HeaderTarget.run(input)
        case .oauth1TokenResponse: OAuth1TokenResponseTarget.run(input)
        case .jws: JWSTarget.run(input)
        case .jwks: JWKSTarget.run(input)
        case .redirectURL: RedirectURLTarget.run(input)
        case .cookie: CookieTarget.run(input)
        case .config: ConfigTarget.run(input)
        case .listener: ListenerTarget.run(input)
        case .accountsJSONBody: AccountsJSONBodyTarget.run(input)
        case .emailAddress: EmailAddressTarget.run(input)
        case .pendingCredential: PendingCredentialTarget.run(input)
        }
    }
}

/// Aborts with `message` when an invariant does not hold, so that libFuzzer saves the input as a crash.
func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
    guard !condition else { return }
    report("auth-handler-fuzz: invariant broken: \(message())\n")
    abort()
}

/// Writes one line of the harness's own on standard error, next to libFuzzer's.
func report(_ line: String) {
    FileHandle.standardError.write(Data(line.utf8))
}
