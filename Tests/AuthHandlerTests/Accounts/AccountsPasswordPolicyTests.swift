import AuthHandlerSystem
import Foundation
import Testing

@testable import AuthHandlerAccounts

/// `PasswordPolicy`, `NormalizedPassword` and `PasswordBlockList` (NIST SP 800-63B-4 §3.1.1.2; docs/ACCOUNTS.md
/// "Passwords").
@Suite struct AccountsPasswordPolicyTests {
    @Test("a full-width password is its ASCII form after NFKC, and a decomposed é its composed form")
    func nfkc() throws {
        let fullWidth = try NormalizedPassword("ｃｏｒｒｅｃｔ ｈｏｒｓｅ")
        let ascii = try NormalizedPassword("correct horse")
        #expect(fullWidth.utf8 == ascii.utf8)
        #expect(try NormalizedPassword("e\u{301}").utf8 == NormalizedPassword("\u{e9}").utf8)
    }

    @Test("length is counted in code points after NFKC, not bytes and not code points before")
    func codePoints() throws {
        let policy = PasswordPolicy(minimumLength: 15)
        // 15 two-byte characters: 30 bytes, 15 code points.
        _ = try policy.check(String(repeating: "é", count: 15))
        // 14 four-byte characters: 56 bytes, still 14 code points.
        #expect(throws: WeakPassword.tooShort(min: 15)) { try policy.check(String(repeating: "😀", count: 14)) }
        // 14 decomposed é: 28 code points as typed, 14 after NFKC.
        #expect(throws: WeakPassword.tooShort(min: 15)) {
            try policy.check(String(repeating: "e\u{301}", count: 14))
        }
    }

    @Test("at most 256 code points; a 4,097-byte input is refused before normalising")
    func maximum() throws {
        let policy = PasswordPolicy(minimumLength: 8)
        _ = try policy.check(String(repeating: "a", count: 256))
        _ = try policy.check(String(repeating: "😀", count: 256))
        #expect(throws: WeakPassword.tooLong(max: 256)) { try policy.check(String(repeating: "a", count: 257)) }
        #expect(throws: PasswordTooLong()) {
            try NormalizedPassword(String(repeating: "a", count: NormalizedPassword.maximumInputBytes + 1))
        }
        #expect(throws: PasswordTooLong()) { try NormalizedPassword(String(repeating: "x", count: 10 << 20)) }
        #expect(throws: WeakPassword.tooLong(max: 256)) { try policy.check(String(repeating: "a", count: 10 << 20)) }
    }

    @Test("no composition rules: lower-case letters alone pass")
    func noCompositionRules() throws {
        _ = try PasswordPolicy().check("all lower case letters here")
    }

    @Test("the minimum length is kept within 8 and 256")
    func minimumClamped() {
        #expect(PasswordPolicy(minimumLength: 3).minimumLength == 8)
        #expect(PasswordPolicy().minimumLength == 15)
    }

    @Test("the block list compares after NFKC and without case")
    func blockList() throws {
        let list = PasswordBlockList(passwords: ["correcthorse", "ＴＲＯＵＢＡＤＯＵＲ"])
        let policy = PasswordPolicy(minimumLength: 8, blockList: list)
        for refused in ["correcthorse", "CorrectHorse", "ＣＯＲＲＥＣＴＨＯＲＳＥ", "troubadour", "Troubadour"] {
            #expect(throws: WeakPassword.blockListed) { try policy.check(refused) }
        }
        _ = try policy.check("correcthorse2")
        _ = try PasswordPolicy(minimumLength: 8).check("correcthorse")
    }

    @Test("a block-list file: one password a line, CRLF and blank lines accepted")
    func blockListFile() throws {
        let path = try Self.temporaryFile(Array("Password1\r\n\r\nletmein123\n\nqwertyuiop".utf8))
        defer { unlink(path) }
        let list = try PasswordBlockList(contentsOfFile: path)
        #expect(list.count == 3)
        let policy = PasswordPolicy(minimumLength: 8, blockList: list)
        for refused in ["password1", "LETMEIN123", "qwertyuiop"] {
            #expect(throws: WeakPassword.blockListed) { try policy.check(refused) }
        }
    }

    @Test("an unreadable block list names the file; a line that is not UTF-8 names the line, not its text")
    func blockListErrors() throws {
        let missing = "/nonexistent/blocklist.txt"
        #expect(throws: PasswordBlockListError.self) { try PasswordBlockList(contentsOfFile: missing) }
        do {
            _ = try PasswordBlockList(contentsOfFile: missing)
        } catch {
            #expect(error.description.contains(missing))
            #expect(error.description.contains("No such file"))
        }
        let path = try Self.temporaryFile(Array("first\nsecond\n".utf8) + [0x73, 0x65, 0x63, 0xff, 0x72] + [0x0a])
        defer { unlink(path) }
        do {
            _ = try PasswordBlockList(contentsOfFile: path)
            Issue.record("a line that is not UTF-8 was accepted")
        } catch {
            #expect(error.line == 3)
            #expect(error.description.contains("\(path), line 3,"))
            #expect(!error.description.contains("sec"))
        }
    }

    @Test("a password never shows in its descriptions")
    func redacted() throws {
        let password = try NormalizedPassword("hunter2hunter2hunter2")
        #expect("\(password)" == Redaction.marker)
        #expect(!String(reflecting: password).contains("hunter"))
        var dumped = ""
        dump(password, to: &dumped)
        #expect(!dumped.contains("hunter"))
    }

    static func temporaryFile(_ bytes: [UInt8]) throws -> String {
        let path = NSTemporaryDirectory() + "blocklist-\(UUID().uuidString).txt"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }
}
