import Foundation
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP
@testable import AuthHandlerStore
@testable import auth_handler

/// `state.key`: generated once, kept 0600, reused, and refused when it is not a private regular file.
struct CLIStateKeyFileTests {
    private func withDirectory<T>(_ body: (String) throws -> T) throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("statekey-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try body(directory.path)
    }

    @Test func createsA0600KeyOnceAndReadsTheSameOneBack() throws {
        try withDirectory { directory in
            let path = StateKeyFile.path(besideStore: directory + "/state.sqlite")
            #expect(path == directory + "/state.key")
            let first = try StateKeyFile.loadOrCreate(at: path)
            #expect(first.count == 32)
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            #expect(try StateKeyFile.loadOrCreate(at: path) == first)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0 != "state.key" }
            #expect(leftovers.isEmpty, "no temporary file is left: \(leftovers)")
        }
    }

    @Test func concurrentCreatorsAgreeOnOneKey() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("statekey-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.path + "/state.key"
        let keys = await withTaskGroup(of: [UInt8]?.self) { group in
            for _ in 0..<16 { group.addTask { try? StateKeyFile.loadOrCreate(at: path) } }
            var keys: [[UInt8]?] = []
            for await key in group { keys.append(key) }
            return keys
        }
        #expect(Set(keys.map { $0 ?? [] }).count == 1)
        #expect(keys.allSatisfy { $0?.count == 32 })
    }

    @Test func refusesAKeyOthersCanRead() throws {
        try withDirectory { directory in
            let path = directory + "/state.key"
            _ = try StateKeyFile.loadOrCreate(at: path)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
            #expect(throws: ServiceStartError.self) { try StateKeyFile.loadOrCreate(at: path) }
            let refusal = #expect(throws: ServiceStartError.self) { try StateKeyFile.loadOrCreate(at: path) }
            #expect(refusal?.exitCode == .config)
            #expect(refusal?.message.contains("readable by other users") == true)
        }
    }

    @Test func refusesAFIFOWithoutHangingAndASymlinkAndGarbage() throws {
        try withDirectory { directory in
            let fifo = directory + "/fifo.key"
            #expect(mkfifo(fifo, 0o600) == 0)
            #expect(throws: ServiceStartError.self) { try StateKeyFile.loadOrCreate(at: fifo) }

            let real = directory + "/real.key"
            _ = try StateKeyFile.loadOrCreate(at: real)
            let link = directory + "/link.key"
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
            #expect(throws: ServiceStartError.self) { try StateKeyFile.loadOrCreate(at: link) }

            let garbage = directory + "/garbage.key"
            #expect(
                FileManager.default.createFile(
                    atPath: garbage, contents: Data("not a key\n".utf8), attributes: [.posixPermissions: 0o600]))
            #expect(throws: ServiceStartError.self) { try StateKeyFile.loadOrCreate(at: garbage) }
        }
    }
}
