import Testing

@testable import AuthHandlerAccounts

@Suite struct AccountsLocalIDTests {
    @Test("a new local id is 28 URL-safe characters, and two differ")
    func generated() throws {
        let first = try LocalID.generate()
        let second = try LocalID.generate()
        #expect(first.value.count == LocalID.length)
        #expect(LocalID(first.value) == first)
        #expect(first != second)
    }

    @Test(
        "ids read back: URL-safe, 1 to 128 characters",
        arguments: ["", "a/b", "a b", "é", String(repeating: "a", count: 129)])
    func refused(_ value: String) {
        #expect(LocalID(value) == nil)
    }
}
