import Foundation
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerCrypto
@testable import AuthHandlerHTTP
@testable import AuthHandlerSystem
@testable import auth_handler

/// `/__/auth/client.js`, `/__/auth/popup` and `/__/auth/popup.js` (HTTP-API.md §3.8).
struct BrowserClientTests {
    /// The repository's `clients/js/auth-handler.js`, read from the source tree.
    static func repositoryModule() throws -> [UInt8] {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return Array(try Data(contentsOf: repository.appendingPathComponent("clients/js/auth-handler.js")))
    }

    static func get(_ path: String, headers: HTTPHeaders = [:]) -> ServerResponse {
        switch BrowserClient.response(ServerRequest(method: "GET", path: path, headers: headers)) {
        case .success(let response): response
        case .failure(let error): ServerResponse.text(error.description, status: error.status)
        }
    }

    @Test func theModuleIsTheRepositoryFileByteForByte() throws {
        let file = try Self.repositoryModule()
        #expect(!file.isEmpty)
        #expect(BrowserClient.module == file)
        #expect(Self.get(BrowserClient.modulePath).body == file)
    }

    /// The module's first line names the version `auth-handler --version` prints (`auth-handler VERSION`).
    @Test func theModuleCarriesTheDaemonsVersion() throws {
        let firstLine = String(decoding: try Self.repositoryModule(), as: UTF8.self).prefix { $0 != "\n" }
        #expect(firstLine.hasPrefix("// auth-handler \(AuthHandlerVersion.string): "))
    }

    @Test func theModuleIsCacheableJavaScriptWithAnETag() throws {
        let response = Self.get(BrowserClient.modulePath)
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "text/javascript; charset=utf-8")
        #expect(response.headers["X-Content-Type-Options"] == "nosniff")
        #expect(response.headers["Cache-Control"] == "public, max-age=3600")
        #expect(response.headers["Cross-Origin-Opener-Policy"] == nil)
        let tag = try #require(response.headers["ETag"])
        let digest = try SHA256.hash(try Self.repositoryModule())
        #expect(tag == "\"" + Base64.urlEncode(Array(digest.prefix(16))) + "\"")
    }

    @Test(arguments: [
        ("ETAG", 304), ("W/ETAG", 304), ("\"other\", ETAG", 304), (" \"a\" ,ETAG ", 304), ("*", 304),
        ("\"other\"", 200), ("", 200),
    ])
    func ifNoneMatchAnswers304ForTheCurrentTag(field: String, status: Int) throws {
        let tag = try #require(BrowserClient.moduleETag)
        let response = Self.get(
            BrowserClient.modulePath, headers: ["If-None-Match": field.replacingOccurrences(of: "ETAG", with: tag)])
        #expect(response.status == status)
        #expect(response.headers["ETag"] == tag)
        #expect(response.headers["Cache-Control"] == "public, max-age=3600")
        #expect(response.body.isEmpty == (status == 304))
    }

    /// The popup page runs no inline script (§3.5's CSP forbids it): it loads popup.js, allowed by its own CSP.
    @Test func thePopupPageLoadsItsScriptFromThisOrigin() throws {
        let page = Self.get(BrowserClient.popupPath)
        #expect(page.status == 200)
        #expect(page.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(page.headers["Cache-Control"] == "no-store")
        let sectionPolicy = try #require(ResponseRendering.securityHeaders["Content-Security-Policy"])
        #expect(page.headers["Content-Security-Policy"] == sectionPolicy + "; script-src 'self'")
        #expect(!sectionPolicy.contains("script-src"))
        #expect(page.headers["Cross-Origin-Opener-Policy"] == nil)
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(html.contains(#"<script type="module" src="popup.js"></script>"#))
        #expect(html.components(separatedBy: "<script").count == 2)
        let script = Self.get(BrowserClient.popupScriptPath)
        #expect(script.headers["Content-Type"] == "text/javascript; charset=utf-8")
        #expect(script.headers["ETag"] != nil)
        #expect(
            String(decoding: script.body, as: UTF8.self)
                == "import { AuthHandler } from \"./client.js\";\nAuthHandler.completePopup();\n")
    }

    @Test(arguments: ["POST", "PUT", "DELETE"])
    func otherMethodsThanGETAndHEADAre405(method: String) {
        for path in BrowserClient.paths {
            guard case .failure(let error) = BrowserClient.response(ServerRequest(method: method, path: path)) else {
                Issue.record("\(method) \(path) was answered")
                continue
            }
            #expect(error.code == .methodNotAllowed)
            #expect(error.status == 405)
        }
        for path in BrowserClient.paths {
            guard case .success(let response) = BrowserClient.response(ServerRequest(method: "HEAD", path: path)) else {
                Issue.record("HEAD \(path) was refused")
                continue
            }
            #expect(response.status == 200)
        }
    }
}
