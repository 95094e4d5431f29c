import AuthHandlerHTTP

/// The custom parameters that ask a provider to answer without showing the person its sign-in and consent screens,
/// which a device sign-in refuses (HTTP-API.md §3.9). Whoever asks for a device code chooses its parameters, and the
/// person who confirms it in a browser did not: the provider's own screens are where they see what they approve.
///
/// OpenID Connect Core §3.1.2.1: `prompt` is a space-delimited list, and with `none` in it the provider "MUST NOT
/// display any authentication or consent user interface pages". So `prompt` is refused when any of its words is
/// `none`; `login`, `consent` and `select_account` ask for more of the person, not less, and stay allowed. The check
/// is wider than the letter of the specification, so that a lenient provider cannot read a value differently than it
/// is checked here: the name is compared ignoring ASCII case (as ``ReservedParameters`` compares names), the value's
/// words are split at anything but a letter, digit, `_` or `-` (a comma or a tab as well as a space), and `none` is
/// matched ignoring case.
///
/// No built-in provider has another parameter that hides its screens (HTTP-API.md §3.9 names what each offers), so
/// `prompt` is the only one; a configured OpenID Connect provider uses `prompt` too.
enum SilentSignInParameters {
    /// The parameter whose value can ask for no screens (OpenID Connect Core §3.1.2.1).
    static let promptName = "prompt"

    /// Throws `invalid-request`, naming the parameter, when `parameters` ask the provider to show no screens.
    static func refuse(_ parameters: [URLFormField]) throws(APIError) {
        for parameter in parameters where isPrompt(parameter.name) && asksForNoScreens(parameter.value) {
            throw APIError(
                .invalidRequest,
                "customParameters.\(parameter.name) asks the provider to show no screens (none), which a device "
                    + "sign-in may not do: the person who confirms the code must see the provider's own sign-in and "
                    + "consent screens; remove \(parameter.name), or use login, consent or select_account")
        }
    }

    /// Whether `name` is `prompt`, ignoring ASCII case.
    static func isPrompt(_ name: String) -> Bool {
        name.lowercased() == promptName
    }

    /// Whether a `prompt` value holds the word `none`.
    static func asksForNoScreens(_ value: String) -> Bool {
        value.lowercased().split(whereSeparator: { !isWordCharacter($0) }).contains("none")
    }

    /// A letter, digit, `_` or `-` of ASCII: what a word of a `prompt` value is made of.
    private static func isWordCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || character == "_" || character == "-")
    }
}
