import AuthHandlerClient
import Foundation
import Testing

/// The session stores (docs/CLIENTS.md "Accounts in Swift"): the memory one, and the file one's 0600 file in a 0700
/// directory, written by rename, refused when others can read it.
struct SessionStoreTests {
    static let session = AccountSession(refreshToken: "refresh-1", idToken: "header.payload.signature")

    /// A fresh directory under the system's temporary one, removed after `body`.
    static func withDirectory(_ body: (URL) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("session-store-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory)
    }

    static func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try #require(attributes[.posixPermissions] as? Int) & 0o777
    }

    @Test("the memory store loads what it saved, and nothing after clear")
    func memory() {
        let store = MemorySessionStore()
        #expect(store.load() == nil)
        store.save(Self.session)
        #expect(store.load() == Self.session)
        store.clear()
        #expect(store.load() == nil)
    }

    @Test("the file store writes a 0600 file in a 0700 directory it creates, and reads it back")
    func fileRoundTrip() throws {
        try Self.withDirectory { directory in
            let path = directory.appendingPathComponent("nested/session.json").path
            let store = FileSessionStore(path: path)
            #expect(try store.load() == nil)
            try store.save(Self.session)
            #expect(try Self.mode(path) == 0o600)
            #expect(try Self.mode(directory.appendingPathComponent("nested").path) == 0o700)
            #expect(try FileSessionStore(path: path).load() == Self.session)
            let next = AccountSession(refreshToken: "refresh-2", idToken: "h.p.s")
            try store.save(next)
            #expect(try store.load() == next)
            // The rename left no temporary file behind.
            let names = try FileManager.default.contentsOfDirectory(
                atPath: directory.appendingPathComponent("nested").path)
            #expect(names == ["session.json"])
            try store.clear()
            #expect(try store.load() == nil)
            try store.clear()
        }
    }

    @Test("the file store replaces the file by rename: a hard link to the old file keeps the old session")
    func fileIsReplacedNotRewritten() throws {
        try Self.withDirectory { directory in
            let path = directory.appendingPathComponent("session.json").path
            let store = FileSessionStore(path: path)
            try store.save(Self.session)
            let old = directory.appendingPathComponent("old.json").path
            try FileManager.default.linkItem(atPath: path, toPath: old)
            try store.save(AccountSession(refreshToken: "refresh-2", idToken: "h.p.s"))
            #expect(try FileSessionStore(path: old).load() == Self.session, "the file was written in place")
        }
    }

    @Test("the file store refuses a session file that others can read", arguments: [0o640, 0o604, 0o620])
    func fileReadableByOthers(mode: Int) throws {
        try Self.withDirectory { directory in
            let path = directory.appendingPathComponent("session.json").path
            let store = FileSessionStore(path: path)
            try store.save(Self.session)
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
            #expect {
                try store.load()
            } throws: { error in
                guard case .sessionStore(let message)? = error as? AuthHandlerClientError else { return false }
                return message.contains("readable or writable by others")
            }
        }
    }

    @Test("printing a session shows no token")
    func redacted() {
        let text = "\(Self.session) \(String(reflecting: Self.session))"
        #expect(!text.contains("refresh-1") && !text.contains("payload"), "\(text)")
    }
}
