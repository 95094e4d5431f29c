/// What a new password must be (docs/ACCOUNTS.md "Passwords"; NIST SP 800-63B-4 §3.1.1.2): at least `minLength` and
/// at most 256 Unicode code points after NFKC, and not on the block list. No composition rules (no "a digit and a
/// symbol"), as NIST requires. It applies when a password is set — sign-up, change, reset, the operator's
/// `set-password` — and never at sign-in, where a password set under an older policy must keep working.
package struct PasswordPolicy: Sendable {
    /// The most code points a password may have (issue 25 §3; NIST asks verifiers to allow at least 64).
    package static let maximumLength = 256
    /// The fewest code points a configuration may ask (NIST SP 800-63B-4 §3.1.1.2: 8 with another factor).
    package static let lowestMinimumLength = 8
    /// NIST SP 800-63B-4 §3.1.1.2's minimum for a password that is the only factor, the default.
    package static let recommendedMinimumLength = 15

    /// `password.minLength`.
    package let minimumLength: Int
    /// `password.blockList`, empty when none is configured.
    package let blockList: PasswordBlockList

    /// - Parameters:
    ///   - minimumLength: raised to ``lowestMinimumLength`` and capped at ``maximumLength`` (`check-config` refuses
    ///     values outside that range before this is made).
    ///   - blockList: the passwords refused whatever their length.
    package init(minimumLength: Int = recommendedMinimumLength, blockList: PasswordBlockList = .empty) {
        self.minimumLength = min(max(minimumLength, Self.lowestMinimumLength), Self.maximumLength)
        self.blockList = blockList
    }

    /// `raw` normalised, if it may be set as a password; else why not, for `400 weak-password`.
    package func check(_ raw: String) throws(WeakPassword) -> NormalizedPassword {
        let password: NormalizedPassword
        do {
            password = try NormalizedPassword(raw)
        } catch {
            throw .tooLong(max: Self.maximumLength)
        }
        try check(password)
        return password
    }

    /// Whether an already normalised password may be set.
    package func check(_ password: NormalizedPassword) throws(WeakPassword) {
        if password.codePointCount < minimumLength { throw .tooShort(min: minimumLength) }
        if password.codePointCount > Self.maximumLength { throw .tooLong(max: Self.maximumLength) }
        if blockList.contains(password) { throw .blockListed }
    }
}

/// Why a new password is refused: the reason of `400 weak-password` (issue 25 §3), safe to show the user.
package enum WeakPassword: Error, Sendable, Hashable, CustomStringConvertible {
    /// Fewer than `min` characters (code points after NFKC).
    case tooShort(min: Int)
    /// More than `max` characters.
    case tooLong(max: Int)
    /// On the block list of common, expected or compromised passwords.
    case blockListed

    /// A short machine-readable reason for the error body.
    package var reason: String {
        switch self {
        case .tooShort: "too-short"
        case .tooLong: "too-long"
        case .blockListed: "block-listed"
        }
    }

    package var description: String {
        switch self {
        case .tooShort(let min): "the password must have at least \(min) characters"
        case .tooLong(let max): "the password must have at most \(max) characters"
        case .blockListed: "the password is too common: it is on the list of passwords that are refused"
        }
    }
}
