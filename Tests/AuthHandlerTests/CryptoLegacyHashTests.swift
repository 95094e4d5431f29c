import Foundation
import Testing

@testable import AuthHandlerAccounts
@testable import AuthHandlerCrypto

/// The imported hashes (docs/ACCOUNTS.md "Imported users"): Firebase's modified scrypt against the vector firebase/scrypt
/// publishes, bcrypt through libcrypt against crypt_blowfish's published vectors, the PHC-like text both are kept in,
/// and the bounds an import is held to.
struct CryptoLegacyHashTests {
    /// firebase/scrypt's README: the project's hash parameters and one user.
    static let vector = FirebaseScrypt.Parameters(
        signerKey: Base64.decode(
            "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==") ?? [],
        saltSeparator: Base64.decode("Bw==") ?? [], rounds: 8, memCost: 14)
    static let salt = Base64.decode("42xEC+ixf3L2lw==") ?? []
    static let hash =
        "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ=="

    @Test func firebaseScryptGivesThePublishedVector() throws {
        let made = try FirebaseScrypt.hash(Array("user1password".utf8), salt: Self.salt, parameters: Self.vector)
        #expect(Base64.encode(made) == Self.hash)
        let expected = try #require(Base64.decode(Self.hash))
        #expect(
            try FirebaseScrypt.verify(
                Array("user1password".utf8), salt: Self.salt, expected: expected,
                parameters: Self.vector))
        #expect(
            !(try FirebaseScrypt.verify(
                Array("user1Password".utf8), salt: Self.salt, expected: expected,
                parameters: Self.vector)))
        var otherKey = Self.vector
        otherKey.signerKey[0] ^= 1
        #expect(
            !(try FirebaseScrypt.verify(
                Array("user1password".utf8), salt: Self.salt, expected: expected,
                parameters: otherKey)))
    }

    @Test func theStoredFormReadsBackAndChecksThePassword() throws {
        let text = "$firescrypt$ln=14,r=8,p=1$42xEC+ixf3L2lw==$\(Self.hash)"
        let legacy = try LegacyPasswordHash(encoded: text)
        #expect(legacy.encoded == text)
        #expect(try legacy.verify(Array("user1password".utf8), firebase: Self.vector))
        #expect(!(try legacy.verify(Array("user1password ".utf8), firebase: Self.vector)))
        // Without the project's parameters nothing matches.
        #expect(!(try legacy.verify(Array("user1password".utf8), firebase: nil)))
    }

    /// crypt_blowfish's own test vectors (Openwall, wrapper.c), `$2a$`, cost 5.
    @Test func bcryptChecksPublishedVectors() throws {
        let uu = "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"
        #expect(try Bcrypt.verify(Array("U*U".utf8), hash: uu))
        #expect(!(try Bcrypt.verify(Array("U*U*".utf8), hash: uu)))
        #expect(
            try Bcrypt.verify(
                Array("U*U*".utf8), hash: "$2a$05$CCCCCCCCCCCCCCCCCCCCC.VGOzA784oUp/Z0DY336zx7pLYAy0lwK"))
        // $2b$ and $2y$ are the same algorithm for passwords under 256 bytes (crypt(5) "bcrypt").
        #expect(try Bcrypt.verify(Array("U*U".utf8), hash: "$2b$" + uu.dropFirst(4)))
        #expect(try Bcrypt.verify(Array("U*U".utf8), hash: "$2y$" + uu.dropFirst(4)))
        #expect(!(try Bcrypt.verify(Array("U*U\u{0}".utf8), hash: uu)))
        #expect(try LegacyPasswordHash(encoded: uu) == .bcrypt(uu))
    }

    @Test func boundsAreRefusedByName() {
        #expect(FirebaseScrypt.boundsViolation(rounds: 8, memCost: 15) == nil)  // 128 · 2^15 · 8 = 32 MiB
        #expect(FirebaseScrypt.boundsViolation(rounds: 8, memCost: 16)?.contains("32 MiB") == true)
        #expect(FirebaseScrypt.boundsViolation(rounds: 0, memCost: 14) != nil)
        #expect(Bcrypt.refusal(of: "$2b$14$" + String(repeating: "a", count: 53)) == nil)
        #expect(Bcrypt.refusal(of: "$2b$15$" + String(repeating: "a", count: 53))?.contains("cost 15") == true)
        #expect(Bcrypt.refusal(of: "$2x$10$" + String(repeating: "a", count: 53)) != nil)
        #expect(Bcrypt.refusal(of: "$2b$10$short") != nil)
        for text in [
            "$firescrypt$ln=16,r=8,p=1$c2FsdA==$aGFzaA==", "$firescrypt$ln=14,r=8,p=2$c2FsdA==$aGFzaA==",
            "$firescrypt$ln=14,r=8,p=1$c2FsdA$aGFzaA==", "$scrypt$ln=14,r=8,p=1$c2FsdA==$aGFzaA==", "plain",
        ] {
            #expect(throws: LegacyPasswordHash.Refusal.self) { try LegacyPasswordHash(encoded: text) }
        }
    }

    /// Any `Int` may reach the bound (a row written into the database by hand): it answers, never traps.
    @Test func theBoundCannotOverflow() {
        #expect(FirebaseScrypt.boundsViolation(rounds: 99_999_999_999, memCost: 30) != nil)
        #expect(FirebaseScrypt.boundsViolation(rounds: Int.max, memCost: 14) != nil)
        #expect(FirebaseScrypt.boundsViolation(rounds: 8, memCost: Int.max) != nil)
        #expect(FirebaseScrypt.boundsViolation(rounds: -8, memCost: 14) != nil)
        #expect(FirebaseScrypt.boundsViolation(rounds: 8, memCost: -1) != nil)
        #expect(FirebaseScrypt.boundsViolation(rounds: 65, memCost: 1) != nil)  // past r's range though within 32 MiB
        #expect(FirebaseScrypt.boundsViolation(rounds: 64, memCost: 11) == nil)  // 128 · 2^11 · 64 = 16 MiB
    }

    /// ln, r and p are one or two digits (p exactly 1) before any number is made of them.
    @Test func theFirescryptParametersAreSmallNumbers() throws {
        for parameters in [
            "ln=30,r=99999999999,p=1", "ln=99999999999999999999,r=8,p=1", "ln=14,r=-8,p=1", "ln=-14,r=8,p=1",
            "ln=14,r=+8,p=1", "ln=+9,r=8,p=1", "ln=14,r=8,p=+1", "ln=14,r=8,p=01", "ln=14,r=008,p=1",
            "ln=14,r=0,p=1", "ln=0,r=8,p=1", "ln=31,r=1,p=1", "ln=14,r= 8,p=1", "ln=14,r=8,p=1,", "ln=14,,r=8,p=1",
            "ln=14,r=8,r=8,p=1", "ln=14,r=8", "ln=14,r=8,p=1,x=1", "ln=14,r=,p=1",
        ] {
            #expect(throws: LegacyPasswordHash.Refusal.self, "\(parameters)") {
                try LegacyPasswordHash(encoded: "$firescrypt$\(parameters)$AAAA$AAAA")
            }
        }
        // The published row still reads, in any order of its parameters.
        let reordered = try LegacyPasswordHash(encoded: "$firescrypt$p=1,r=8,ln=14$42xEC+ixf3L2lw==$\(Self.hash)")
        #expect(reordered.encoded == "$firescrypt$ln=14,r=8,p=1$42xEC+ixf3L2lw==$\(Self.hash)")
        // A hash made past the bound (not through the parser) matches nothing, rather than deriving.
        let costly = LegacyPasswordHash.firebaseScrypt(memCost: 30, rounds: 99_999_999_999, salt: [1], hash: [1])
        #expect(!(try costly.verify(Array("x".utf8), firebase: Self.vector)))
    }

    /// The cost is exactly two ASCII digits and the rest bcrypt's shape, at import and at every check: `Int("+9")`
    /// is 9, and libcrypt refuses such a hash at each sign-in.
    @Test func bcryptNeedsItsExactShape() throws {
        let tail = "CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"
        for hash in [
            "$2b$+9$" + tail, "$2b$ 9$" + tail, "$2b$-9$" + tail, "$2b$9$" + tail, "$2b$009$" + tail,
            "$2b$٠٩$" + tail, "$2b$03$" + tail, "$2b$32$" + tail, "$2b$05$" + tail.dropLast(), "$2b$05$" + tail + "C",
            "$2b$05$" + tail.dropLast() + "=", "$2c$05$" + tail, "$2b$05" + tail,
        ] {
            #expect(Bcrypt.cost(of: hash) == nil, "\(hash)")
            #expect(Bcrypt.refusal(of: hash) != nil, "\(hash)")
            #expect(throws: LegacyPasswordHash.Refusal.self, "\(hash)") { try LegacyPasswordHash(encoded: hash) }
            #expect(!(try Bcrypt.verify(Array("U*U".utf8), hash: hash)), "\(hash)")
        }
        #expect(Bcrypt.cost(of: "$2a$05$" + tail) == 5)
        #expect(Bcrypt.cost(of: "$2a$31$" + tail) == 31)
    }
}
