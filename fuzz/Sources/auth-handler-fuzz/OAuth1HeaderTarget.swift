import AuthHandlerCore
import AuthHandlerProtocols

/// The `Authorization: OAuth` header parser: a parsed header written out again parses to the same header.
enum OAuth1HeaderTarget {
    static func run(_ input: [UInt8]) {
        guard let header = try? OAuth1AuthorizationHeader(parsing: String(decoding: input, as: UTF8.self)) else {
            return
        }
        _ = header.timestamp
        expect(
            (try? OAuth1AuthorizationHeader(parsing: header.value)) == header,
            "a parsed header does not parse again from its own value")
    }
}
