import Foundation
import Testing

@testable import AuthHandlerCore
@testable import AuthHandlerStore
@testable import AuthHandlerSystem

/// What `ResultSeal` derives from a result code besides its sealing key: the result id backends see (HTTP-API.md §2.8).
struct FlowResultSealTests {
    /// Known answers from OpenSSL's own HKDF: `openssl kdf -keylen 16 -kdfopt digest:SHA256 -kdfopt key:code-1
    /// -kdfopt "salt:auth-handler result v1" -kdfopt "info:result id" HKDF`.
    @Test func resultIDIsHKDFOfTheCodeUnderItsOwnInfo() throws {
        #expect(try ResultSeal.resultID("code-1") == "b115f946cbe75ab71902ca20621ccab2")
        #expect(try ResultSeal.resultID("code-2") == "eea8a6ba058ffe1904973c04776dbcd9")
        // Stable: every redemption of one code gets the same id.
        #expect(try ResultSeal.resultID("code-1") == ResultSeal.resultID("code-1"))
    }

    /// The id is neither the store's index (SHA-256 of the code) nor a piece of it, nor does it open the sealed result.
    @Test func resultIDIsNotTheStoreIndexAndDoesNotOpenTheResult() throws {
        let code = "a-result-code"
        let id = try ResultSeal.resultID(code)
        #expect(!Hex.lowercase(try StoreKeyDigest.of(code)).contains(id))
        let sealed = try ResultSeal.seal(Array("payload".utf8), code: code)
        #expect(ResultSeal.open(sealed, code: id) == nil)
        #expect(ResultSeal.open(sealed, code: code) == Array("payload".utf8))
    }
}
