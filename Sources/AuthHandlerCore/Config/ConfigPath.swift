/// The location of a value inside a config file, printed as `providers["oidc.corp"].clientSecret.file`.
package struct ConfigPath: Sendable, Hashable, CustomStringConvertible {
    /// One step from a container to a value inside it.
    package enum Component: Sendable, Hashable {
        /// A fixed key of an object, printed as `.key`.
        case key(String)
        /// An entry of a map keyed by user-chosen names (such as provider ids), printed as `["name"]`.
        case entry(String)
        /// An element of an array, printed as `[index]`.
        case index(Int)
    }

    /// The steps from the top-level object to the value.
    package var components: [Component]

    /// The top-level object itself.
    package static let root = ConfigPath(components: [])

    /// Creates a path from its steps.
    package init(components: [Component]) {
        self.components = components
    }

    /// The path to `key` inside the object at this path.
    package func key(_ key: String) -> ConfigPath {
        ConfigPath(components: components + [.key(key)])
    }

    /// The path to the map entry `name` inside the object at this path.
    package func entry(_ name: String) -> ConfigPath {
        ConfigPath(components: components + [.entry(name)])
    }

    /// The path to element `index` of the array at this path.
    package func index(_ index: Int) -> ConfigPath {
        ConfigPath(components: components + [.index(index)])
    }

    package var description: String {
        if components.isEmpty { return "(top level)" }
        var text = ""
        for component in components {
            switch component {
            case .key(let key):
                text += text.isEmpty ? key : ".\(key)"
            case .entry(let name):
                text += "[\(Self.quoted(name))]"
            case .index(let index):
                text += "[\(index)]"
            }
        }
        return text
    }

    /// Quotes a map key the way JSON would, so odd characters stay visible.
    private static func quoted(_ name: String) -> String {
        var text = "\""
        for scalar in name.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case _ where scalar.value < 0x20: text += "\\u" + String(scalar.value, radix: 16).leftPadded(to: 4)
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text + "\""
    }
}

extension String {
    /// The string with leading zeros added up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
