import Foundation
import Testing

/// The client's line in docs/ARCHITECTURE.md: it imports Foundation (and FoundationNetworking) only, and nothing of
/// the daemon imports it; of the executable, only the files of `login`, `token` and `logout` that keep an accounts
/// session (HTTP-API.md §1.9), a client's work. Read from the sources, since a module in the build directory can be imported by a target
/// that does not declare it.
struct AuthHandlerClientImportTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    /// The modules each Swift file under `folder` imports, by file name.
    static func imports(under folder: String) throws -> [String: Set<String>] {
        let root = sources.appendingPathComponent(folder)
        let enumerator = try #require(FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil))
        // `import M`, `@testable import M`, `public import M`, `import struct M.T`: the module is M.
        let pattern =
            #"(?m)^\s*(?:@\w+\s+)*(?:(?:public|package|internal)\s+)?import\s+"#
            + #"(?:(?:struct|enum|class|protocol|func|typealias|var|let)\s+)?(\w+)"#
        let regex = try NSRegularExpression(pattern: pattern)
        var found: [String: Set<String>] = [:]
        for case let file as URL in enumerator where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            let matches = regex.matches(in: text, range: NSRange(text.startIndex..., in: text))
            found[file.lastPathComponent] = Set(
                matches.compactMap { Range($0.range(at: 1), in: text).map { String(text[$0]) } })
        }
        return found
    }

    @Test("AuthHandlerClient imports only Foundation and FoundationNetworking, and Security for the keychain store")
    func clientImports() throws {
        let files = try Self.imports(under: "AuthHandlerClient")
        #expect(files.count >= 5, "the client's sources were found: \(files.keys.sorted())")
        for (file, modules) in files {
            // Security only under `#if canImport(Security)`, in the keychain store's file.
            let allowed: Set =
                file == "KeychainSessionStore.swift"
                ? ["Foundation", "Security"] : ["Foundation", "FoundationNetworking"]
            #expect(modules.isSubset(of: allowed), "\(file) imports \(modules)")
        }
    }

    /// The executable's files that are a client of a daemon's accounts.
    static let commandClients: Set<String> = ["SessionFile.swift", "AccountsLogin.swift", "TokenCommand.swift"]

    @Test("nothing of the daemon imports AuthHandlerClient; of the commands, only the session's files")
    func daemonDoesNotImportClient() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.sources.path).filter {
            $0.hasPrefix("AuthHandler") && $0 != "AuthHandlerClient"
        }
        #expect(folders.count >= 6, "the daemon's targets were found: \(folders.sorted())")
        for folder in folders + ["FakeIdP", "auth-handler"] {
            let files = try Self.imports(under: folder)
            #expect(!files.isEmpty, "\(folder)'s sources were found")
            for (file, modules) in files where !(folder == "auth-handler" && Self.commandClients.contains(file)) {
                #expect(!modules.contains("AuthHandlerClient"), "\(folder)/\(file) imports AuthHandlerClient")
            }
        }
        let commands = try Self.imports(under: "auth-handler")
        for file in Self.commandClients {
            #expect(commands[file]?.contains("AuthHandlerClient") == true, "\(file) was renamed: update the list")
        }
    }
}
