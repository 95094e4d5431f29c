import AuthHandlerAccounts
import AuthHandlerCore
import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerStore
import AuthHandlerSystem
import Foundation

/// `accounts import` and `accounts export` (docs/ACCOUNTS.md "Imported users", HTTP-API.md §1.8).
extension AccountsCommand {
    /// The largest import file read: 1 GiB, far above 100,000 users (about 60 MB of Firebase JSON).
    static let maximumImportBytes = 1 << 30

    /// Reads `path` in `format` and imports its users in one transaction (``AccountStore/importUsers(_:)``): a bad
    /// row is exit 64 naming its place and field, with nothing imported; users whose localId exists are skipped.
    func importUsers(_ path: String, format: AccountsAction.ImportFormat, flags: AccountsAction.FirebaseHashFlags)
        async throws(CommandFailure)
    {
        let bytes = try readImportFile(path)
        let at = now()
        var batch: [AccountImport]
        var lines: [Int] = []
        var skippedByEmail = 0
        do {
            switch format {
            case .firebase:
                let cost = try firebaseCost(flags)
                batch = try FirebaseExport.parse(bytes, cost: cost, at: at)
                if config.importedFirebase == nil,
                    batch.contains(where: { $0.user.legacyPasswordHash?.hasPrefix("$firescrypt$") == true })
                {
                    throw CommandFailure(.config, missingFirebaseConfig(flags))
                }
            case .bcryptCSV:
                (batch, lines, skippedByEmail) = try await bcryptBatch(try BcryptCSV.parse(bytes), at: at)
            }
        } catch let error as ImportRowError {
            throw CommandFailure(.usage, "\(path): \(error); nothing was imported")
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure(.usage, "\(path): \(error); nothing was imported")
        }
        let result = try await storing { () throws(StoreError) in try await store.importUsers(batch) }
        switch result {
        case .refused(let index, let field):
            let location = index < lines.count ? "line \(lines[index])" : "users[\(index)]"
            throw CommandFailure(
                .usage, "\(path): \(location), \(field): \(Self.refusalReason(field)); nothing was imported")
        case .imported(let inserted, let skipped):
            let skipped = skipped + skippedByEmail
            if options.json {
                output.line(
                    Self.text(.object(["imported": .integer(Int64(inserted)), "skipped": .integer(Int64(skipped))])))
            } else {
                output.line(
                    "imported \(inserted) user(s); skipped \(skipped) already stored (never overwritten)")
            }
        }
    }

    /// Every user, one page of the store at a time, as `firebase auth:export --format=json` writes them: on standard
    /// output, or into `file`, which is checked before the database is read, then written whole as a new file of mode
    /// 0600 that replaces what had the name (``ResultFile/replace(_:at:label:)``: a redirection `>` would write into
    /// the file as the umask or its old mode says, often readable by all, and it holds every hash).
    func export(to file: String?) async throws(CommandFailure) {
        let label = file.map { "the export file \($0)" }
        if let file, let problem = ResultFile.problem(at: file, label: label, replacing: true) {
            throw CommandFailure(.usage, problem)
        }
        var collected: [UInt8] = []
        let write: (String) -> Void = { text in
            if file == nil { output.writeOutput(text) } else { collected += Array(text.utf8) }
        }
        write("{\"users\": [")
        var after: LocalID?
        var count = 0
        while true {
            let page = try await storing { () throws(StoreError) in try await store.listUsers(after: after, limit: 1000)
            }
            guard let firstUser = page.first, let lastUser = page.last else { break }
            // One query for the page's identities, not one per user (a round trip each on PostgreSQL).
            let identities = try await storing { () throws(StoreError) in
                try await store.identities(localIDsFrom: firstUser.localID, through: lastUser.localID)
            }
            let byUser = Dictionary(grouping: identities, by: \.localID)
            for user in page {
                let text = Self.text(AccountExport.json(user, identities: byUser[user.localID] ?? []))
                write((count == 0 ? "\n" : ",\n") + text)
                count += 1
            }
            guard page.count == 1000, let last = page.last else { break }
            after = last.localID
        }
        write("\n]}\n")
        guard let file, let label else { return }
        if let problem = ResultFile.replace(collected, at: file, label: label) {
            throw CommandFailure(.providerError, problem)
        }
        if options.json {
            output.line(Self.text(.object(["exported": .integer(Int64(count)), "file": .string(file)])))
        } else {
            output.line(
                "exported \(count) user(s) to \(file) (mode 0600; it holds every password hash: keep it secret)")
        }
    }

    private func readImportFile(_ path: String) throws(CommandFailure) -> [UInt8] {
        if path == "-" {
            do {
                return try StandardInput.readAll(maximumBytes: Self.maximumImportBytes)
            } catch {
                throw CommandFailure(.usage, "standard input: \(error.description)")
            }
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure(.usage, "cannot read the import file \(path); check the path and its permissions")
        }
        return [UInt8](data)
    }

    /// The cost of the file's Firebase hashes: the config's, which every given flag must equal; else the flags'.
    private func firebaseCost(_ flags: AccountsAction.FirebaseHashFlags) throws(CommandFailure)
        -> FirebaseExport.HashCost?
    {
        guard let configured = config.importedFirebase else {
            guard let rounds = flags.rounds, let memCost = flags.memCost else { return nil }
            return FirebaseExport.HashCost(memCost: memCost, rounds: rounds)
        }
        let key = "backend.importedHashes.firebase"
        func differs(_ flag: String, _ name: String) -> CommandFailure {
            CommandFailure(
                .usage,
                "'\(flag)' differs from \(key).\(name) in the config; the daemon checks the imported hashes "
                    + "with the config's, so leave the option out or correct the config")
        }
        if let rounds = flags.rounds, rounds != configured.rounds { throw differs("--rounds", "rounds") }
        if let memCost = flags.memCost, memCost != configured.memCost { throw differs("--mem-cost", "memCost") }
        if let separator = flags.saltSeparator, separator != configured.saltSeparator {
            throw differs("--salt-separator", "saltSeparator")
        }
        if let hashKey = flags.hashKey {
            let parameters: FirebaseScrypt.Parameters
            do {
                parameters = try configured.parameters(in: environment)
            } catch {
                throw CommandFailure(.config, error.description)
            }
            if !ConstantTime.equals(hashKey, parameters.signerKey) { throw differs("--hash-key", "signerKey") }
        }
        return FirebaseExport.HashCost(memCost: configured.memCost, rounds: configured.rounds)
    }

    /// The refusal of Firebase hashes the daemon could not check, with the section to add.
    private func missingFirebaseConfig(_ flags: AccountsAction.FirebaseHashFlags) -> String {
        let separator = flags.saltSeparator.map { Base64.encode($0) } ?? "SEPARATOR"
        return "the file has Firebase scrypt password hashes, which the daemon checks at sign-in with the project's "
            + "parameters: add to the backend section of \(options.config.path) \"importedHashes\": {\"firebase\": "
            + "{\"signerKey\": {\"file\": \"/etc/auth-handler/firebase-signer-key\"}, \"saltSeparator\": "
            + "\"\(separator)\", \"rounds\": \(flags.rounds.map(String.init) ?? "N"), \"memCost\": "
            + "\(flags.memCost.map(String.init) ?? "N")}} (the key file holding base64_signer_key), then import again"
    }

    /// The CSV's rows as users; a row without a localId whose e-mail is stored is skipped (it was imported before),
    /// the others get a new random localId.
    private func bcryptBatch(_ rows: [BcryptCSV.Row], at: Date) async throws -> ([AccountImport], [Int], Int) {
        var batch: [AccountImport] = []
        var lines: [Int] = []
        var skipped = 0
        for row in rows {
            var localID = row.localID
            if localID == nil {
                let normalized = row.email.normalized
                let stored = try await storing { () throws(StoreError) in
                    try await store.user(normalizedEmail: normalized)
                }
                if stored != nil {
                    skipped += 1
                    continue
                }
                localID = try LocalID.generate()
            }
            guard let localID else { continue }
            lines.append(row.line)
            batch.append(
                AccountImport(
                    user: AccountUser(
                        localID: localID, email: row.email.given, normalizedEmail: row.email.normalized,
                        passwordVersion: 1, createdAt: at, validSince: at, legacyPasswordHash: row.hash)))
        }
        return (batch, lines, skipped)
    }

    private static func refusalReason(_ field: String) -> String {
        switch field {
        case "localId": "the file names this localId twice"
        case "email": "another user (stored, or earlier in the file) has this e-mail address"
        case "identity": "another user (stored, or earlier in the file) has this provider account"
        case "provider": "two accounts of one provider on one user"
        default: "an identity names another user"
        }
    }
}
