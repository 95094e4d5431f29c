import AuthHandlerAccounts

/// E-mail addresses as users give them (`EmailAddress`, docs/ACCOUNTS.md "E-mail addresses and mail"): parsing never
/// traps, and the normal form is one: it parses to itself, within the length limits, without a control character.
enum EmailAddressTarget {
    static func run(_ input: [UInt8]) {
        guard let text = String(validating: input, as: UTF8.self),
            let address = try? EmailAddress(parsing: text)
        else { return }
        let normalized = address.normalized
        expect(normalized.utf8.count <= EmailAddress.maximumLength, "the normal form is longer than the limit")
        expect(
            !normalized.unicodeScalars.contains { $0.properties.generalCategory == .control },
            "the normal form holds a control character")
        expect(!normalized.utf8.contains { (0x41...0x5A).contains($0) }, "the normal form holds an ASCII capital")
        guard let again = try? EmailAddress(parsing: normalized) else {
            expect(false, "the normal form of an address does not parse")
            return
        }
        expect(again.normalized == normalized, "normalizing twice changed the normal form")
        expect(again == address, "an address and its normal form are not equal")
    }
}
