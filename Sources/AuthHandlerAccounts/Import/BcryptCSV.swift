import AuthHandlerCrypto
import Foundation

/// `--format bcrypt-csv` (docs/ACCOUNTS.md "Imported users"): one user a line, `email,bcrypt_hash[,localId]`, as
/// Supabase and most frameworks' tables give them (`$2a$`, `$2b$`, `$2y$`, cost at most 14). A first line naming the
/// columns (`email,…`) is skipped, as are empty lines and a leading byte order mark (spreadsheets write one, RFC 3629
/// §6); a field is never quoted (neither an address nor a hash has a comma).
package enum BcryptCSV {
    /// One line's user; ``localID`` nil when the line gave none (the caller draws one).
    package struct Row: Sendable, Equatable {
        package var line: Int
        package var email: EmailAddress
        package var hash: String
        package var localID: LocalID?
    }

    package static func parse(_ bytes: [UInt8]) throws(ImportRowError) -> [Row] {
        let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
        let body = bytes.starts(with: byteOrderMark) ? bytes.dropFirst(byteOrderMark.count) : bytes[...]
        guard let text = String(validating: body, as: UTF8.self) else {
            throw ImportRowError("file", field: "", "is not UTF-8 text")
        }
        var rows: [Row] = []
        // `\r\n` is one Character in Swift, and a newline: split on every line end, whichever.
        for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            if line.isEmpty { continue }
            if index == 0, line.lowercased().hasPrefix("email,") { continue }
            rows.append(try row(String(line), number: index + 1))
        }
        return rows
    }

    private static func row(_ line: String, number: Int) throws(ImportRowError) -> Row {
        let location = "line \(number)"
        let fields = line.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard (2...3).contains(fields.count) else {
            throw ImportRowError(
                location, field: "", "expected email,bcrypt_hash[,localId], got \(fields.count) fields")
        }
        let email: EmailAddress
        do {
            email = try EmailAddress(parsing: fields[0])
        } catch {
            throw ImportRowError(location, field: "email", "not a valid address: \(error)")
        }
        if let refusal = Bcrypt.refusal(of: fields[1]) {
            throw ImportRowError(location, field: "bcrypt_hash", refusal)
        }
        var localID: LocalID?
        if fields.count == 3, !fields[2].isEmpty {
            guard let id = LocalID(fields[2]) else {
                throw ImportRowError(location, field: "localId", "1 to 128 letters, digits, '-' or '_'")
            }
            localID = id
        }
        return Row(line: number, email: email, hash: fields[1], localID: localID)
    }
}
