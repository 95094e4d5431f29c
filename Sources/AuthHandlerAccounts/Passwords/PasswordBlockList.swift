import AuthHandlerSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The passwords refused whatever their length (`password.blockList.file`; NIST SP 800-63B-4 §3.1.1.2: common,
/// expected or compromised values): a UTF-8 text file, one password a line.
///
/// Each line is taken whole (spaces included, `\r\n` endings accepted); empty lines are skipped; there are no
/// comments, since `#…` is a password like any other. A line and a candidate password compare equal when their NFKC
/// forms (UAX #15) lowercased (Unicode default case mapping, `String.lowercased()`) are equal, so `Password1`,
/// `PASSWORD1` and the full-width `ＰＡＳＳＷＯＲＤ１` are all refused by a line `password1`: a list of lower-case
/// passwords then covers their capitalised variants, which people pick to pass composition rules. Lookup is a hash
/// set: one hash of the candidate.
package struct PasswordBlockList: Sendable {
    /// The largest file read, 64 MiB: a few million passwords. Lists of the most common passwords (a hundred
    /// thousand to a million lines) are what NIST means; a whole breach corpus does not belong in memory.
    package static let maximumFileBytes = 64 << 20

    private let entries: Set<String>

    /// No password refused.
    package static let empty = PasswordBlockList(entries: [])

    /// How many distinct passwords the list refuses.
    package var count: Int { entries.count }

    /// A list of the given passwords (for tests and the operator's tools).
    package init(passwords: some Sequence<String>) {
        self.init(entries: Set(passwords.filter { !$0.isEmpty }.map(Self.key)))
    }

    private init(entries: Set<String>) {
        self.entries = entries
    }

    /// Reads the file at `path`; the error names the file, and the line for a line that is not UTF-8.
    package init(contentsOfFile path: String) throws(PasswordBlockListError) {
        let bytes = try Self.read(path)
        var entries = Set<String>()
        var lineNumber = 0
        for var line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            guard !line.isEmpty else { continue }
            guard let text = String(validating: line, as: UTF8.self) else {
                throw PasswordBlockListError(path: path, line: lineNumber, problem: "is not valid UTF-8")
            }
            entries.insert(Self.key(text))
        }
        self.init(entries: entries)
    }

    /// Whether `password` is on the list.
    package func contains(_ password: NormalizedPassword) -> Bool {
        !entries.isEmpty && entries.contains(password.normalized.lowercased())
    }

    /// The form a line is kept in: NFKC, then lower case.
    private static func key(_ text: String) -> String {
        text.precomposedStringWithCompatibilityMapping.lowercased()
    }

    private static func read(_ path: String) throws(PasswordBlockListError) -> [UInt8] {
        var bytes: [UInt8] = []
        do throws(SystemCallError) {
            let file = try FileDescriptor(opening: path, flags: O_RDONLY | O_CLOEXEC)
            while bytes.count <= maximumFileBytes {
                let chunk = try file.read(upTo: 1 << 16)
                if chunk.isEmpty { break }
                bytes += chunk
            }
        } catch {
            throw PasswordBlockListError(
                path: path, line: nil, problem: "cannot be read: \(error.call) failed: \(error.reason)")
        }
        guard bytes.count <= maximumFileBytes else {
            throw PasswordBlockListError(path: path, line: nil, problem: "is larger than \(maximumFileBytes >> 20) MiB")
        }
        return bytes
    }
}

/// A block list that cannot be loaded: which file, which line when it is one line's fault, and what is wrong. It
/// never quotes the line, which is a password.
package struct PasswordBlockListError: Error, Sendable, Equatable, CustomStringConvertible {
    package let path: String
    package let line: Int?
    package let problem: String

    package var description: String {
        let place = line.map { "\(path), line \($0)," } ?? path
        return "password block list \(place) \(problem)"
    }
}
