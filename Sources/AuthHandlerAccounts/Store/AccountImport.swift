/// One user of an import (`auth-handler accounts import`, docs/ACCOUNTS.md "Imported users") with the identities it
/// brings, as ``AccountStore/importUsers(_:)`` takes it: the identities name the user's ``AccountUser/localID``.
package struct AccountImport: Sendable, Equatable {
    package var user: AccountUser
    package var identities: [AccountIdentity]

    package init(user: AccountUser, identities: [AccountIdentity] = []) {
        self.user = user
        self.identities = identities
    }
}

/// What ``AccountStore/importUsers(_:)`` did: every new user inserted, or nothing at all and the first row refused.
package enum AccountImportResult: Sendable, Equatable {
    /// `inserted` users were new; `skipped` had a `localId` already stored and were left as stored.
    case imported(inserted: Int, skipped: Int)
    /// Nothing was written: the row at `index` (0-based, in the order given) was refused for `field`: `"localId"`
    /// (the batch names it twice), `"email"` (another user, stored or earlier in the batch, has its normalised
    /// e-mail), `"identity"` (another user has one of its identities, or the batch names one twice), `"provider"` (it
    /// names two identities of one provider) or `"user"` (an identity names another user).
    case refused(index: Int, field: String)
}

extension AccountImport {
    /// The first refusal a batch earns on its own, before any stored record is consulted: a `localId`, normalised
    /// e-mail or identity named twice, two identities of one provider on a user, an identity naming another user. The
    /// engines share it, so each has only the stored records left to check.
    package static func firstRefusalWithin(_ batch: [AccountImport]) -> AccountImportResult? {
        var localIDs = Set<LocalID>()
        var emails = Set<String>()
        var identities = Set<[String]>()
        for (index, row) in batch.enumerated() {
            guard localIDs.insert(row.user.localID).inserted else { return .refused(index: index, field: "localId") }
            if let email = row.user.normalizedEmail, !emails.insert(email).inserted {
                return .refused(index: index, field: "email")
            }
            var providers = Set<String>()
            for identity in row.identities {
                guard identity.localID == row.user.localID else { return .refused(index: index, field: "user") }
                guard providers.insert(identity.providerID).inserted else {
                    return .refused(index: index, field: "provider")
                }
                guard identities.insert([identity.providerID, identity.providerUserID]).inserted else {
                    return .refused(index: index, field: "identity")
                }
            }
        }
        return nil
    }
}
