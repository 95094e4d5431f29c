import AuthHandlerCore
import AuthHandlerHTTP

/// Query and form decoding: decoding never traps, and what decodes survives an encode/decode round trip.
enum FormTarget {
    static func run(_ input: [UInt8]) {
        guard let fields = try? FormURLEncoding.decode(bytes: input) else { return }
        let encoded = FormURLEncoding.encode(fields)
        expect((try? FormURLEncoding.decode(encoded)) == fields, "encode then decode changed the fields")
        if let text = String(validating: input, as: UTF8.self) {
            expect((try? FormURLEncoding.decode(text)) == fields, "decoding the text and its bytes differ")
        }
    }
}
