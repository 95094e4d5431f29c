/// How a browser says a request was made: the Fetch Metadata request headers `Sec-Fetch-Mode`, `Sec-Fetch-Dest` and
/// `Sec-Fetch-Site` (W3C Fetch Metadata Request Headers §2). Browsers set them themselves and no page can change them;
/// other clients (curl, an app's HTTP library) send none.

package struct FetchMetadata: Sendable, Equatable {
    /// `Sec-Fetch-Mode`: `navigate` for a navigation, `no-cors` for an `<img>`, `cors` for `fetch()`, ...
    package var mode: String?
    /// `Sec-Fetch-Dest`: `document` for the top-level window, `iframe`, `image`, `empty` for `fetch()`, ...
    package var destination: String?
    /// `Sec-Fetch-Site`: `same-origin`, `same-site` (another host of the same site, such as a sibling subdomain),
    /// `cross-site`, or `none` for a request the person made themselves (a typed address, a bookmark).
    package var site: String?

    package init(mode: String? = nil, destination: String? = nil, site: String? = nil) {
        self.mode = mode
        self.destination = destination
        self.site = site
    }

    /// Whether the request may be a top-level navigation: each header the browser sent says so (`navigate`,
    /// `document`), and a header that is absent is no objection.
    var isTopLevelNavigation: Bool {
        (mode.map { $0 == "navigate" } ?? true) && (destination.map { $0 == "document" } ?? true)
    }

    /// Whether the request may come from a page of this very origin: `Sec-Fetch-Site` says `same-origin`, or is absent
    /// (a browser too old to send it, or no browser). A sibling subdomain is `same-site` and refused: on an http
    /// deployment it can set cookies for this host (HTTP-API.md §3.9).
    var isSameOrigin: Bool { site.map { $0 == "same-origin" } ?? true }
}
