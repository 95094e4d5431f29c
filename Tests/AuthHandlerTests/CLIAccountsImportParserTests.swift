import Testing

@testable import AuthHandlerCore
@testable import auth_handler

/// `auth-handler accounts import` and `export` on the command line (HTTP-API.md §1.8): the format, the Firebase hash
/// flags checked for their form, and the hash key never repeated in a message.
struct CLIAccountsImportParserTests {
    private func parse(_ arguments: [String]) throws(CommandLineUsageError) -> AccountsAction {
        guard case .accounts(let options) = try CommandLineParser(environment: [:]).parse(["accounts"] + arguments)
        else { throw CommandLineUsageError("not an accounts command") }
        return options.action
    }

    private func refusal(_ arguments: [String]) -> String {
        do {
            _ = try parse(arguments)
            return ""
        } catch {
            return error.description
        }
    }

    @Test func importAndExportWithTheirFlags() throws {
        #expect(
            try parse(["import", "users.json", "--format", "firebase"])
                == .importUsers(file: "users.json", format: .firebase, firebase: .init()))
        let flags = AccountsAction.FirebaseHashFlags(
            hashKey: [0x8f, 0x1b], saltSeparator: [7], rounds: 8, memCost: 14)
        #expect(
            try parse([
                "import", "--format=firebase", "-", "--hash-key", "jxs=", "--salt-separator", "Bw==", "--rounds", "8",
                "--mem-cost", "14",
            ]) == .importUsers(file: "-", format: .firebase, firebase: flags))
        #expect(
            try parse(["import", "u.csv", "--format", "bcrypt-csv"])
                == .importUsers(file: "u.csv", format: .bcryptCSV, firebase: .init()))
        #expect(try parse(["export"]) == .export(file: nil))
        #expect(try parse(["export", "-"]) == .export(file: nil))
        #expect(try parse(["export", "users.json"]) == .export(file: "users.json"))
    }

    @Test func badFlagsAreRefusedByName() {
        #expect(refusal(["import", "f.json"]).contains("needs '--format firebase or bcrypt-csv'"))
        #expect(refusal(["import", "f.json", "--format", "csv"]).contains("'--format' expects"))
        let badKey = refusal(["import", "f.json", "--format", "firebase", "--hash-key", "not*base64"])
        #expect(badKey.contains("'--hash-key' expects standard base64"))
        #expect(!badKey.contains("not*base64"))
        #expect(refusal(["import", "f", "--format", "firebase", "--rounds", "0"]).contains("'--rounds' expects"))
        #expect(refusal(["import", "f", "--format", "bcrypt-csv", "--mem-cost", "14"]).contains("--format firebase"))
        #expect(refusal(["export", "--format", "firebase"]).contains("applies to 'accounts import' only"))
        #expect(refusal(["export", "a.json", "b.json"]).contains("takes [FILE], got 2 argument(s)"))
    }
}
