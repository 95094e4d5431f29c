import AuthHandlerHTTP
import Foundation

/// Who reads a page and where they go from it (HTTP-API.md §3.7): the operator's product name and who started the
/// sign-in, which decides the next step a page names.
package struct PageAudience: Sendable {
    /// Who started the sign-in the page belongs to.
    package enum Starter: Sendable {
        /// An app (`serve`): a person goes back to it and starts again.
        case app
        /// `auth-handler --once` in a terminal: a person returns there.
        case terminal
    }

    /// The product name (HTTP-API.md §2.11 `branding`); nil for pages that name none.
    package var productName: String?
    package var starter: Starter

    package init(productName: String?, starter: Starter) {
        self.productName = productName
        self.starter = starter
    }

    /// "Sign in to Acme", or "Sign in" without a product name.
    func signInHeading() -> String {
        productName.map { "Sign in to \($0)" } ?? "Sign in"
    }

    /// The heading of an error page.
    func failureHeading() -> String {
        productName.map { "Couldn’t sign in to \($0)" } ?? "Couldn’t sign in"
    }

    /// The heading of the page that ends a sign-in that worked.
    package func successHeading() -> String {
        productName.map { "Signed in to \($0)" } ?? "Signed in"
    }

    /// What to do after a failure.
    var nextStepAfterFailure: String {
        switch starter {
        case .app: "Go back to the app and try signing in again."
        case .terminal: "Return to your terminal; it says what happened. Run the command again to retry."
        }
    }

    /// What to do after a sign-in that worked.
    package var nextStepAfterSuccess: String {
        switch starter {
        case .app: "You can close this window and go back to the app."
        case .terminal: "You can close this window and return to your terminal."
        }
    }
}

extension APIError.Code {
    /// What happened, for the person in front of the browser; the code and the message stay for apps and developers
    /// (HTTP-API.md §3.5).
    var explanationForPeople: String {
        switch self {
        case .invalidRequest, .invalidProvider, .unauthorizedRedirectURL, .unsupportedAuthType,
            .reservedCustomParameter, .methodNotAllowed:
            "The app sent a sign-in request that this service cannot accept."
        case .invalidState:
            "This sign-in has expired or was already finished, or it was opened in another browser than the one "
                + "that started it."
        case .navigationRequired:
            "A sign-in can only be started by opening its page, not from inside another page. Go back to the app and "
                + "start again."
        case .invalidResultCode, .redemptionInProgress:
            "This sign-in has expired or was already used."
        case .invalidIDToken:
            "Your session in the app has expired, so this sign-in could not be added to your account."
        case .secondFactorRequired:
            "Your account needs a second step to sign in."
        case .userDisabled:
            "This account has been disabled."
        case .userCancelled:
            "The sign-in was cancelled."
        case .interactionRequired:
            "The service you sign in with needs you to sign in there yourself first."
        case .notFound:
            "There is nothing at this address."
        case .accountExistsWithDifferentCredential:
            "An account with this email address already exists and uses another way to sign in."
        case .credentialAlreadyInUse:
            "This sign-in already belongs to another account."
        case .emailAlreadyInUse:
            "This email address already belongs to another account."
        case .tooManyRequests:
            "Too many sign-ins were started from your network. Wait a minute, then try again."
        case .internalError:
            "Something went wrong on our side."
        case .providerError:
            "The service you signed in with did not answer as expected."
        case .backendError:
            "Your account could not be reached to finish the sign-in."
        case .unavailable:
            "The sign-in service is busy. Wait a moment, then try again."
        case .invalidEmail:
            "That email address does not look right."
        case .weakPassword:
            "That password cannot be used. Choose a longer or less common one."
        case .invalidCredential:
            "The email address or the password is wrong."
        case .requiresRecentLogin:
            "For this change, sign in again first."
        case .emailNotVerified:
            "Confirm your email address first, using the link we sent you."
        case .providerAlreadyLinked:
            "Your account already has a sign-in of this kind."
        case .userMismatch:
            "This sign-in belongs to another account than the one you are signed in to."
        case .lastSignInMethod:
            "This is the only way left to sign in to your account, so it cannot be removed."
        case .invalidPendingCredential:
            "This sign-in took too long or was already used. Start again."
        case .invalidActionCode:
            "This link has expired or was already used. Ask for a new one."
        case .operationNotAllowed:
            "This way of signing in is not offered here."
        }
    }
}
