import AuthHandlerCrypto
import AuthHandlerHTTP
import Foundation
import Testing

@testable import AuthHandlerAccounts

/// The accounts' signing keys: the key file (created 0600 once, race-free, never overwritten), P-256 only, the
/// RFC 7638 `kid`, and the ring.
@Suite struct AccountsSigningKeyTests {
    @Test("RFC 7638 §3.1's example key has the thumbprint the RFC gives")
    func thumbprintKnownAnswer() throws {
        let jwk = JWK(
            kty: "RSA", kid: "2011-04-29", alg: "RS256",
            n:
                "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4"
                + "n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0"
                + "zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-cs"
                + "FCur-kEgU8awapJzKnqDKgw",
            e: "AQAB")
        #expect(try JWKThumbprint.sha256(of: jwk) == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
    }

    @Test("an EC key's kid is the thumbprint over crv, kty, x and y only, in that order")
    func ecKeyID() throws {
        let key = try AccountSigningKey.generate()
        let jwk = key.publicKey.jwk
        let x = try #require(jwk.x)
        let y = try #require(jwk.y)
        let canonical = #"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"#
        #expect(key.keyID == Base64.urlEncode(try SHA256.hash(Array(canonical.utf8))))
        #expect(key.keyID.count == 43)
        #expect(jwk.kid == key.keyID)
        #expect(jwk.alg == "ES256")
        #expect(key.signingKey.algorithm == .es256)
    }

    @Test("a missing key file is created once, 0600, and read back as the same key")
    func createdOnce() throws {
        try AccountsTokenFixture.withDirectory { directory in
            let path = directory + "/signing.pem"
            let first = try SigningKeyFile.loadOrCreate(at: path)
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
            #expect(try SigningKeyFile.loadOrCreate(at: path).keyID == first.keyID)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory).filter {
                $0 != "signing.pem"
            }
            #expect(leftovers.isEmpty, "no temporary file is left: \(leftovers)")
        }
    }

    @Test("creators racing for one missing file all end with the one key on disk")
    func racingCreatorsAgree() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("accounts-keys-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.path + "/signing.pem"
        let keyIDs = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<16 { group.addTask { try? SigningKeyFile.loadOrCreate(at: path).keyID } }
            var keyIDs: [String?] = []
            for await keyID in group { keyIDs.append(keyID) }
            return keyIDs
        }
        #expect(keyIDs.allSatisfy { $0 != nil })
        #expect(Set(keyIDs).count == 1)
        #expect(try SigningKeyFile.loadOrCreate(at: path).keyID == keyIDs.first ?? nil)
    }

    @Test("a creator that lost the race keeps the winner's key, and the file is not overwritten")
    func loserReadsTheWinner() throws {
        try AccountsTokenFixture.withDirectory { directory in
            let path = directory + "/signing.pem"
            let winner = try SigningKeyFile.loadOrCreate(at: path)
            let before = try String(contentsOfFile: path, encoding: .utf8)
            // The loser found no file, made its key, and reaches the link after the winner's.
            let kept = try SigningKeyFile.keep(try AccountSigningKey.generate(), at: path)
            #expect(kept.keyID == winner.keyID)
            let after = try String(contentsOfFile: path, encoding: .utf8)
            #expect(after == before)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory).filter {
                $0 != "signing.pem"
            }
            #expect(leftovers.isEmpty, "no temporary file is left: \(leftovers)")
        }
    }

    @Test("an existing file is never overwritten, even when it holds no usable key")
    func neverOverwritten() throws {
        try AccountsTokenFixture.withDirectory { directory in
            let path = directory + "/signing.pem"
            #expect(
                FileManager.default.createFile(
                    atPath: path, contents: Data("not a key\n".utf8), attributes: [.posixPermissions: 0o600]))
            let refusal = #expect(throws: AccountSigningKeyError.self) { try SigningKeyFile.loadOrCreate(at: path) }
            #expect(refusal?.message.contains(path) == true)
            let kept = try String(contentsOfFile: path, encoding: .utf8)
            #expect(kept == "not a key\n")
        }
    }

    @Test("keys that are not P-256 are refused with an error naming the file")
    func notP256Refused() throws {
        let rsa = try SigningKey.generate(.rs256).pkcs8PEM()
        try AccountsTokenFixture.withDirectory { directory in
            for (name, pem, found) in [
                ("rsa.pem", rsa, "an RSA key"), ("p384.pem", AccountsTokenFixture.p384PEM, "another type or curve"),
            ] {
                let path = directory + "/" + name
                #expect(
                    FileManager.default.createFile(
                        atPath: path, contents: Data(pem.utf8), attributes: [.posixPermissions: 0o600]))
                let refusal = #expect(throws: AccountSigningKeyError.self) { try SigningKeyFile.loadOrCreate(at: path) }
                #expect(refusal?.message.contains(path) == true, "\(refusal?.message ?? "")")
                #expect(refusal?.message.contains(found) == true, "\(refusal?.message ?? "")")
                #expect(refusal?.message.contains("P-256") == true)
            }
        }
        let inline = #expect(throws: AccountSigningKeyError.self) {
            try AccountSigningKey(pem: Secret(rsa), source: "backend.signingKey")
        }
        #expect(inline?.message.hasPrefix("backend.signingKey holds an RSA key") == true)
    }

    @Test("a key file others can read, a symlink and a FIFO are refused")
    func unsafeFilesRefused() throws {
        try AccountsTokenFixture.withDirectory { directory in
            let path = directory + "/signing.pem"
            _ = try SigningKeyFile.loadOrCreate(at: path)
            try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
            let readable = #expect(throws: AccountSigningKeyError.self) { try SigningKeyFile.loadOrCreate(at: path) }
            #expect(readable?.message.contains("readable by other users") == true)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)

            let link = directory + "/link.pem"
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
            #expect(throws: AccountSigningKeyError.self) { try SigningKeyFile.loadOrCreate(at: link) }
            let fifo = directory + "/fifo.pem"
            #expect(mkfifo(fifo, 0o600) == 0)
            #expect(throws: AccountSigningKeyError.self) { try SigningKeyFile.loadOrCreate(at: fifo) }
        }
    }

    @Test("a ring publishes current, next and previous keys, and refuses one key named twice")
    func ring() throws {
        let current = try AccountSigningKey.generate()
        let next = try AccountSigningKey.generate()
        let previous = try AccountSigningKey.generate()
        let ring = try SigningKeyRing(current: current, next: next, previous: [previous])
        #expect(ring.published.map(\.keyID) == [current.keyID, next.keyID, previous.keyID])
        for key in [current, next, previous] { #expect(ring.verificationKey(keyID: key.keyID) != nil) }
        #expect(ring.verificationKey(keyID: try AccountSigningKey.generate().keyID) == nil)
        #expect(throws: AccountSigningKeyError.self) {
            try SigningKeyRing(current: current, previous: [previous, current])
        }
        #expect(throws: AccountSigningKeyError.self) { try SigningKeyRing(current: current, next: current) }
    }
}
