import AuthHandlerSystem
import Foundation
import TestSupport
import Testing

@testable import AuthHandlerCrypto

/// `Argon2id` (RFC 9106) through libargon2: known answers from Debian's `argon2` command, verification, and the
/// parameters read back from a PHC string.
struct CryptoArgon2idTests {
    /// `printf %s password | argon2 somesaltsomesalt -id -t 2 -m 10 -p 1 -e` (Debian's argon2 0~20171227).
    static let knownAnswer =
        "$argon2id$v=19$m=1024,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$CKGe5/bX9YnCq2rxjW5yQXKxn31v1GKzhDCrMc6r6vA"
    static let small = Argon2id.Parameters(memoryKiB: 1024, iterations: 2, parallelism: 1)

    @Test func theHashIsTheArgon2CommandsKnownAnswer() throws {
        let encoded = try Argon2id.hash(
            Array("password".utf8), salt: Array("somesaltsomesalt".utf8), parameters: Self.small)
        #expect(encoded == Self.knownAnswer)
    }

    /// A random password and salt at OWASP's minimum (m=19456, t=2, p=1), hashed by us and by the `argon2` command.
    @Test func aRandomPasswordHashesAsTheArgon2CommandHashesIt() async throws {
        let command = "/usr/bin/argon2"
        guard FileManager.default.isExecutableFile(atPath: command) else {
            Issue.record("\(command) not found: run scripts/install-deps.sh test (apt-get install argon2)")
            return
        }
        let password = Hex.lowercase(try SecureRandom.bytes(12))
        let salt = Hex.lowercase(try SecureRandom.bytes(8))
        let process = try TestProcess(
            "/bin/sh", ["-c", #"printf %s "$1" | \#(command) "$2" -id -t 2 -k 19456 -p 1 -e"#, "sh", password, salt])
        #expect(await process.exitCode() == 0, "\(process.standardError)")
        let theirs = process.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let ours = try Argon2id.hash(
            Array(password.utf8), salt: Array(salt.utf8),
            parameters: Argon2id.Parameters(memoryKiB: 19456, iterations: 2, parallelism: 1))
        #expect(ours == theirs)
    }

    @Test func theRightPasswordVerifiesAndNoOtherDoes() throws {
        let encoded = try Argon2id.hash(Array("correct horse battery staple".utf8), parameters: Self.small)
        #expect(try Argon2id.verify(Array("correct horse battery staple".utf8), encoded: encoded))
        #expect(try !Argon2id.verify(Array("correct horse battery stapl".utf8), encoded: encoded))
        #expect(try !Argon2id.verify([], encoded: encoded))
        #expect(try Argon2id.verify(Array("password".utf8), encoded: Self.knownAnswer))
    }

    @Test func eachHashDrawsItsOwnSalt() throws {
        let first = try Argon2id.hash(Array("same".utf8), parameters: Self.small)
        let second = try Argon2id.hash(Array("same".utf8), parameters: Self.small)
        #expect(first != second)
        #expect(first.split(separator: "$")[3].count == 22, "16 bytes of salt, base64 without padding")
    }

    @Test func theParametersAreReadBackSoAWeakerHashCanBeMadeAgain() throws {
        #expect(Argon2id.Parameters(encoded: Self.knownAnswer) == Self.small)
        let owasp = Argon2id.Parameters(memoryKiB: 19456, iterations: 2, parallelism: 1)
        #expect(Argon2id.Parameters(encoded: try Argon2id.hash(Array("x".utf8), parameters: owasp)) == owasp)
        for bad in [
            "", "$argon2i$v=19$m=1024,t=2,p=1$c29tZQ$aGFzaA", "$argon2id$v=16$m=1024,t=2,p=1$c29tZQ$aGFzaA",
            "$argon2id$v=19$m=1024,t=2$c29tZQ$aGFzaA", "$argon2id$v=19$m=1024,m=2,p=1$c29tZQ$aGFzaA",
            "$2b$12$abcdefghijklmnopqrstuv",
        ] {
            #expect(Argon2id.Parameters(encoded: bad) == nil, "\(bad)")
        }
    }

    @Test func aStringThatIsNoArgon2idHashIsAnErrorNeverAMatch() {
        #expect(throws: CryptoError.self) {
            try Argon2id.verify(Array("x".utf8), encoded: "$2b$12$abcdefghijklmnopqrstuv")
        }
        #expect(throws: CryptoError.self) {
            try Argon2id.verify(Array("x".utf8), encoded: "$argon2id$v=19$m=1024,t=2,p=1$!!!$!!!")
        }
    }
}
