import FakeIdP
import Foundation

/// Opens a URL in the desktop's browser with `xdg-open` (freedesktop.org), without waiting for it.
enum BrowserLauncher {
    /// Starts `xdg-open URL` when it is on `PATH`; false when it is not there or could not start.
    static func open(_ url: String, environment: [String: String]) -> Bool {
        guard let executable = find("xdg-open", path: environment["PATH"] ?? "") else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [url]
        // Its chatter must not add lines to our stderr, which carries exactly one line per failure.
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return false
        }
        return true
    }

    /// The first executable `name` in the `:`-separated `path`.
    static func find(_ name: String, path: String) -> String? {
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = (String(directory) as NSString).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
