import Foundation

/// How the pages people see name the operator's product (HTTP-API.md §2.11 `branding`).
package struct Branding: Sendable, Hashable {
    /// The product's name, in each page's title and heading ("Sign in to Acme").
    package var name: String

    /// The most characters `name` and a provider's `displayName` may have: they must fit a heading on a 360 px screen.
    package static let maximumNameLength = 60

    package init(name: String) {
        self.name = name
    }
}
