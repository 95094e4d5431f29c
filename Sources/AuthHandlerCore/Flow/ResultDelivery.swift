import AuthHandlerHTTP

/// Where the callback's `303` puts `code`, `eventId`, `error` and `error_description` in the app's `redirectUrl`: the
/// start's `resultDelivery` (HTTP-API.md §3.1, §3.2).
///
/// `fragment` keeps the result code out of the `Referer` of everything the return page loads before its script has
/// read and removed it, and out of every server's logs: a browser sends a URL's fragment in no request (RFC 3986 §3.5)
/// and strips it from `Referer` (RFC 9110 §10.1.3; W3C Referrer Policy §8.4, "Strip url for use as a referrer").
package enum ResultDelivery: String, Sendable, Codable, Equatable {
    /// `?code=…&eventId=…` (the default, which every client reads).
    case query
    /// `#code=…&eventId=…`, for a page whose script reads its own address (the browser module, HTTP-API.md §3.8).
    case fragment

    /// `fields` added to `redirectURL` in this delivery's part of it.
    package func appending(_ fields: [URLFormField], to redirectURL: String) -> String {
        switch self {
        case .query: RedirectURLPolicy.appending(fields, to: redirectURL)
        // An allowed redirectUrl never holds a fragment (RedirectURLPolicy refuses `#`), so this one is the only one.
        case .fragment: fields.isEmpty ? redirectURL : redirectURL + "#" + FormURLEncoding.encode(fields)
        }
    }
}
