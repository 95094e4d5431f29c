import Foundation
import Testing

@testable import AuthHandlerCore
@testable import auth_handler

struct APIErrorCodeTests {
    /// The codes in the table of docs/HTTP-API.md §5: the first cell of each row, between backticks.
    static func documentedCodes() throws -> [String] {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        let text = try String(contentsOf: root.appendingPathComponent("docs/HTTP-API.md"), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex { $0.hasPrefix("## 5. Error codes") }, "no §5 in HTTP-API.md")
        let section = lines[(start + 1)...].prefix { !$0.hasPrefix("## ") }
        return section.compactMap { line -> String? in
            guard line.hasPrefix("| `") else { return nil }
            let cell = line.dropFirst(3)
            guard let end = cell.firstIndex(of: "`") else { return nil }
            return String(cell[..<end])
        }
    }

    @Test func everyCodeIsDocumentedAndEveryDocumentedCodeExists() throws {
        let documented = try Self.documentedCodes()
        #expect(documented.count > 0)
        #expect(Set(documented).count == documented.count, "a code is listed twice in §5")
        let declared = APIError.Code.allCases.map(\.rawValue)
        #expect(Set(declared).count == declared.count, "two cases share a raw value")
        #expect(Set(declared).subtracting(documented).sorted() == [], "codes missing from HTTP-API.md §5")
        #expect(Set(documented).subtracting(declared).sorted() == [], "§5 codes missing from APIError.Code")
    }

    @Test func jsonAndHTMLCarryTheRawValue() throws {
        let audience = PageAudience(productName: nil, starter: .app)
        let json = ResponseRendering.error(
            APIError(.invalidState, "start again"), accept: "application/json", audience: audience)
        #expect(json.status == 400)
        #expect(
            String(decoding: json.body, as: UTF8.self) == #"{"error":{"code":"invalid-state","message":"start again"}}"#
        )
        let html = ResponseRendering.error(APIError(.internalError, "x"), accept: nil, audience: audience)
        #expect(html.status == 500)
        #expect(String(decoding: html.body, as: UTF8.self).contains(#"<code id="error-code">internal-error</code>"#))
    }

    @Test func backendErrorsMapToTheirCodes() {
        #expect(BackendError.emailExists(email: nil).code == .emailAlreadyInUse)
        #expect(BackendError.rejected(reason: "r").code == .backendError)
        #expect(APIError(.backendError, "b").description == "502 backend-error: b")
    }
}
