/// How the daemon writes its log lines on stderr (docs/CONFIG.md, section `logFormat`).
package enum LogFormat: String, Sendable, Hashable, CaseIterable {
    /// `level=info event=signin.start provider=google.com ...`, one logfmt line per event.
    case logfmt
    /// One JSON object per line: `{"level":"info","event":"signin.start","provider":"oidc.corp",...}`.
    case json
}
