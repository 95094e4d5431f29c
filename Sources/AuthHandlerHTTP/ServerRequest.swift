/// A complete HTTP request received by `HTTPServer`, body included.

package struct ServerRequest: Sendable {
    /// The request method as sent, e.g. `"GET"`.
    package var method: String
    /// The request target's path, exactly as sent (not percent-decoded), without the query.
    package var path: String
    /// The raw query string after `?`, without the `?`; empty when there is none.
    package var rawQuery: String
    /// `rawQuery` decoded, in order.
    package var queryItems: [URLFormField]
    /// The request's header fields.
    package var headers: HTTPHeaders
    /// The request body (at most the server's `maxBodyBytes`).
    package var body: [UInt8]
    /// The decoded body when `Content-Type` is `application/x-www-form-urlencoded`, otherwise empty.
    package var formFields: [URLFormField]
    /// The peer's address as `host:port` (`[v6]:port` for IPv6), when known.
    package var remoteAddress: String?

    package init(
        method: String, path: String, rawQuery: String = "", queryItems: [URLFormField] = [],
        headers: HTTPHeaders = [:], body: [UInt8] = [], formFields: [URLFormField] = [], remoteAddress: String? = nil
    ) {
        self.method = method
        self.path = path
        self.rawQuery = rawQuery
        self.queryItems = queryItems
        self.headers = headers
        self.body = body
        self.formFields = formFields
        self.remoteAddress = remoteAddress
    }

    /// Whether a `Content-Type` value names `application/x-www-form-urlencoded` (parameters ignored).
    static func isFormURLEncoded(contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first ?? ""
        return mediaType.trimmingSpaces().lowercased() == "application/x-www-form-urlencoded"
    }
}

extension Substring {
    /// The substring without leading and trailing spaces and tabs.
    fileprivate func trimmingSpaces() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return self[start...end]
    }
}
