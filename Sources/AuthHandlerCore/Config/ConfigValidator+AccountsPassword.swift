import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerSystem
import Foundation

/// Backend `accounts`'s `password` and `email` sections (CONFIG.md `backend`, docs/ACCOUNTS.md).
extension ConfigValidator {
    /// `password`: the policy (NIST SP 800-63B-4 §3.1.1.2), Argon2id's cost (OWASP Password Storage Cheat Sheet) and
    /// the hashing budget.
    mutating func password(_ value: JSONValue, at path: ConfigPath) -> PasswordSettings {
        var settings = PasswordSettings()
        guard let fields = object(value, at: path, allowedKeys: Self.passwordKeys) else { return settings }
        if let enabled = fields["enabled"].flatMap({ boolean($0, at: path.key("enabled")) }) {
            settings.enabled = enabled
        }
        if let length = fields["minLength"].flatMap({
            integer($0, in: 1...PasswordSettings.maximumLength, at: path.key("minLength"), counting: "characters")
        }) {
            settings.minLength = length
            if length < PasswordSettings.refusedBelow {
                fail(
                    path.key("minLength"),
                    "is \(length); NIST SP 800-63B-4 requires at least \(PasswordSettings.refusedBelow) characters")
            } else if length < PasswordSettings.warnedBelow {
                warn(
                    path.key("minLength"),
                    "is \(length); NIST SP 800-63B-4 asks \(PasswordSettings.warnedBelow) for a password that is the "
                        + "only factor")
            }
        }
        if let value = fields["argon2id"] { settings.argon2id = argon2id(value, at: path.key("argon2id")) }
        if let value = fields["blockList"] { settings.blockListFile = blockList(value, at: path.key("blockList")) }
        if let value = fields["rateLimit"],
            let limits = object(value, at: path.key("rateLimit"), allowedKeys: ["perMinute", "burst"])
        {
            if let perMinute = limits["perMinute"].flatMap({
                positiveInteger($0, at: path.key("rateLimit").key("perMinute"), counting: "hashes per minute")
            }) {
                settings.rateLimit.perMinute = perMinute
            }
            if let burst = limits["burst"].flatMap({
                positiveInteger($0, at: path.key("rateLimit").key("burst"), counting: "hashes")
            }) {
                settings.rateLimit.burst = burst
            }
        }
        return settings
    }

    private mutating func argon2id(_ value: JSONValue, at path: ConfigPath) -> Argon2id.Parameters {
        let defaults = PasswordSettings().argon2id
        guard let fields = object(value, at: path, allowedKeys: Self.argon2idKeys) else { return defaults }
        func read(_ key: String, _ range: ClosedRange<Int>, _ unit: String) -> UInt32? {
            fields[key].flatMap { integer($0, in: range, at: path.key(key), counting: unit) }.map(UInt32.init)
        }
        let parameters = Argon2id.Parameters(
            memoryKiB: read("memoryKiB", 8...4_194_304, "KiB") ?? defaults.memoryKiB,
            iterations: read("iterations", 1...64, "passes") ?? defaults.iterations,
            parallelism: read("parallelism", 1...64, "lanes") ?? defaults.parallelism)
        if !PasswordSettings.meetsOWASP(parameters) {
            let rows = PasswordSettings.owaspMinimums.map { "m=\($0.memoryKiB)/t=\($0.iterations)" }
            fail(
                path,
                "\(parameters) is weaker than every row of OWASP's Password Storage table "
                    + "(\(rows.joined(separator: ", ")), p=1); expected at least one of them")
        }
        return parameters
    }

    /// `blockList`: `{"file": ...}`, which must be readable now.
    private mutating func blockList(_ value: JSONValue, at path: ConfigPath) -> String? {
        guard let fields = object(value, at: path, allowedKeys: ["file"]) else { return nil }
        guard let fileValue = fields["file"] else {
            return refuse(path.key("file"), "required in blockList; expected the path of a file, one password a line")
        }
        guard let name = string(fileValue, at: path.key("file")) else { return nil }
        let file = absolutePath(name)
        if !FileManager.default.isReadableFile(atPath: file) {
            return refuse(path.key("file"), "\(Self.quote(file)) cannot be read; expected a file, one password a line")
        }
        return file
    }

    /// `email`: `from` and exactly one of `smtp` and `outbox`.
    mutating func email(_ value: JSONValue, at path: ConfigPath) -> EmailSettings? {
        guard let fields = object(value, at: path, allowedKeys: Self.emailKeys) else { return nil }
        guard let fromValue = fields["from"] else {
            return refuse(
                path.key("from"), "required in email; expected a sender such as \"Example App <no-reply@example.com>\"")
        }
        let from = mailFrom(fromValue, at: path.key("from"))
        let delivery: MailDelivery?
        switch (fields["smtp"], fields["outbox"]) {
        case (let smtp?, nil): delivery = self.smtp(smtp, at: path.key("smtp"))
        case (nil, let outbox?):
            delivery = string(outbox, at: path.key("outbox")).map { .outbox(directory: absolutePath($0)) }
        case (.some, .some): return refuse(path, "has smtp and outbox; expected exactly one of them")
        case (nil, nil): return refuse(path, "has neither smtp nor outbox; expected exactly one of them")
        }
        guard let from, let delivery else { return nil }
        return EmailSettings(from: from, delivery: delivery)
    }

    /// A `From` value: printable, on one line, ending in an address in angle brackets or being one.
    private mutating func mailFrom(_ value: JSONValue, at path: ConfigPath) -> String? {
        guard let text = string(value, at: path) else { return nil }
        let expected = "expected a sender such as \"Example App <no-reply@example.com>\" or \"no-reply@example.com\""
        if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return refuse(path, "contains a control character (a line break, say); \(expected)")
        }
        let address: Substring
        if text.hasSuffix(">"), let open = text.lastIndex(of: "<") {
            address = text[text.index(after: open)..<text.index(before: text.endIndex)]
        } else {
            address = Substring(text)
        }
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !address.contains(" ") else {
            return refuse(path, "\(Self.quote(text)) has no address; \(expected)")
        }
        return text
    }

    private mutating func smtp(_ value: JSONValue, at path: ConfigPath) -> MailDelivery? {
        guard let fields = object(value, at: path, allowedKeys: Self.smtpKeys) else { return nil }
        guard let urlValue = fields["url"] else {
            return refuse(path.key("url"), "required in smtp; expected a URL such as \"smtps://mail.example.com:465\"")
        }
        guard let text = string(urlValue, at: path.key("url")) else { return nil }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["smtp", "smtps"].contains(scheme),
            let host = url.host, !host.isEmpty, url.user == nil, url.password == nil
        else {
            return refuse(
                path.key("url"),
                "\(Self.quote(Redaction.target(text))) is not an smtp:// or smtps:// URL with a host and no "
                    + "credentials; expected such as \"smtps://mail.example.com:465\" (credentials in username and "
                    + "password)")
        }
        let username = fields["username"].flatMap { string($0, at: path.key("username")) }
        let password = fields["password"].flatMap { secret($0, at: path.key("password")) }
        if (username == nil) != (password == nil) {
            fail(path, "has one of username and password; expected both or neither")
        }
        return .smtp(url: url, username: username, password: password)
    }
}
