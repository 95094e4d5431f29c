/// How a browser says a request was made: the Fetch Metadata request headers `Sec-Fetch-Mode` and `Sec-Fetch-Dest`
/// (W3C Fetch Metadata Request Headers §2.2, §2.3). Browsers set them themselves and no page can change them; other
/// clients (curl, an app's HTTP library) send none.

package struct FetchMetadata: Sendable, Equatable {
    /// `Sec-Fetch-Mode`: `navigate` for a navigation, `no-cors` for an `<img>`, `cors` for `fetch()`, ...
    package var mode: String?
    /// `Sec-Fetch-Dest`: `document` for the top-level window, `iframe`, `image`, `empty` for `fetch()`, ...
    package var destination: String?

    package init(mode: String? = nil, destination: String? = nil) {
        self.mode = mode
        self.destination = destination
    }

    /// Whether the request may be a top-level navigation: each header the browser sent says so (`navigate`,
    /// `document`), and a header that is absent is no objection.
    var isTopLevelNavigation: Bool {
        (mode.map { $0 == "navigate" } ?? true) && (destination.map { $0 == "document" } ?? true)
    }
}
