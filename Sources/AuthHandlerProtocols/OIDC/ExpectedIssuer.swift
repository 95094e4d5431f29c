/// The `iss` an ID token (and an RFC 9207 `iss` callback parameter) must carry for a provider.
package enum ExpectedIssuer: Sendable, Hashable, CustomStringConvertible {
    /// Exactly this string (OIDC Core §3.1.3.7: simple string comparison, no normalisation).
    case exact(String)
    /// A multi-tenant issuer such as Microsoft's `https://login.microsoftonline.com/{tenantid}/v2.0`:
    /// `{tenantid}` is replaced by the token's `tid` claim before an exact comparison.
    case tenantTemplate(String)

    /// The placeholder a tenant template carries.
    package static let tenantPlaceholder = "{tenantid}"

    /// The issuer to compare with: the exact one, or the template filled with `tenantID`; nil when the
    /// template needs a tenant id and `tenantID` is missing or not `[A-Za-z0-9-]` (1–64 characters).
    package func resolved(tenantID: String?) -> String? {
        switch self {
        case .exact(let issuer):
            return issuer
        case .tenantTemplate(let template):
            guard let tenantID, !tenantID.isEmpty, tenantID.utf8.count <= 64,
                tenantID.utf8.allSatisfy({ byte in
                    byte == UInt8(ascii: "-") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                        || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
                })
            else { return nil }
            return template.replacing(Self.tenantPlaceholder, with: tenantID)
        }
    }

    /// Whether `issuer` is acceptable; `tenantID` is the token's `tid` claim, used by a tenant template.
    package func accepts(_ issuer: String, tenantID: String? = nil) -> Bool {
        guard let expected = resolved(tenantID: tenantID) else { return false }
        return issuer.utf8.elementsEqual(expected.utf8)
    }

    package var description: String {
        switch self {
        case .exact(let issuer): issuer
        case .tenantTemplate(let template): template
        }
    }
}
