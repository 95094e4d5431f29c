import Foundation
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerHTTP
@testable import AuthHandlerProtocols

/// A fresh temporary directory, removed by ``remove()``.
struct ConfigTemporaryDirectory {
    let path: String

    init() throws {
        let base = FileManager.default.temporaryDirectory.path
        path = (base as NSString).appendingPathComponent("auth-handler-config-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Writes `contents` to `name` inside the directory and returns its path.
    @discardableResult
    func write(_ name: String, _ contents: String, permissions: Int? = nil) throws -> String {
        let file = (path as NSString).appendingPathComponent(name)
        try Data(contents.utf8).write(to: URL(fileURLWithPath: file))
        if let permissions {
            try FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: file)
        }
        return file
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Shared fixtures for the config tests.
enum ConfigFixture {
    /// The repository root, found from this file's location.
    static let repositoryRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// `Config/example.json`.
    static var examplePath: String { (repositoryRoot as NSString).appendingPathComponent("Config/example.json") }

    /// The secret value every fixture secret resolves to; tests assert it appears in no message.
    static let secretValue = "s3cr3t-VALUE-that-must-never-print"

    /// The environment fixtures resolve `{"env": "FIXTURE_SECRET"}` in.
    static let environment = SecretEnvironment(variables: ["FIXTURE_SECRET": secretValue])

    /// A small valid config, as a JSON object.
    static let baseJSON = """
        {
          "listen": ["127.0.0.1:8080"],
          "publicURL": "https://auth.example.com",
          "allowedRedirectURLs": ["https://app.example.com/signed-in"],
          "providers": {
            "github.com": {"clientId": "c", "clientSecret": {"env": "FIXTURE_SECRET"}}
          }
        }
        """

    /// The base config with top-level keys replaced by those in `overridesJSON` (a JSON object).
    static func document(overriding overridesJSON: String) throws -> Data {
        let base = try JSONSerialization.jsonObject(with: Data(baseJSON.utf8)) as? [String: Any] ?? [:]
        let overrides = try JSONSerialization.jsonObject(with: Data(overridesJSON.utf8)) as? [String: Any] ?? [:]
        let merged = base.merging(overrides) { _, new in new }
        return try JSONSerialization.data(withJSONObject: merged, options: [.sortedKeys])
    }

    /// Validates `data` against the fixture environment.
    static func report(_ data: Data, baseDirectory: String = "/") -> ConfigReport {
        ConfigLoader(environment: environment).load(data: data, baseDirectory: baseDirectory)
    }

    /// Validates the base config with `overridesJSON` applied.
    static func report(overriding overridesJSON: String) throws -> ConfigReport {
        report(try document(overriding: overridesJSON))
    }
}
