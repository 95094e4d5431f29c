import AuthHandlerHTTP

/// `listener` in the config (CONFIG.md): how the HTTP listener bounds slow clients.
package struct ListenerLimits: Sendable, Hashable {
    /// Seconds a client has to deliver a whole request, head and body (`HTTPServerConfiguration`).
    package var requestDeadlineSeconds: Int
    /// Simultaneous connections from one client address per listening socket; 0 means no limit.
    package var connectionsPerAddress: Int

    /// The documented defaults: 10 s, 256 connections.
    package static let `default` = ListenerLimits(
        requestDeadlineSeconds: HTTPServerConfiguration().requestDeadlineSeconds,
        connectionsPerAddress: HTTPServerConfiguration().perIPConnectionLimit)

    /// Creates limits.
    package init(requestDeadlineSeconds: Int, connectionsPerAddress: Int) {
        self.requestDeadlineSeconds = requestDeadlineSeconds
        self.connectionsPerAddress = connectionsPerAddress
    }

    /// `base` with these limits applied.
    package func applied(to base: HTTPServerConfiguration) -> HTTPServerConfiguration {
        var configuration = base
        configuration.requestDeadlineSeconds = requestDeadlineSeconds
        configuration.perIPConnectionLimit = connectionsPerAddress
        return configuration
    }
}
