import Foundation

/// A real SMTP server for a test: `smtp_sink.py` beside this file (Debian's `python3-aiosmtpd`) on 127.0.0.1, port 0.
/// Each message it accepts is read back as a `ReceivedMail`, waiting for the line the server prints, never polling.
package final class SMTPSink: Sendable {
    /// Debian's interpreter, which has `python3-aiosmtpd`; not whatever `python3` is first on `PATH`.
    package static let python = "/usr/bin/python3"
    package static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("smtp_sink.py").path

    package let port: Int
    package let directory: URL
    private let process: TestProcess

    /// `smtp://127.0.0.1:PORT`: loopback, so plain text is allowed.
    package var url: String { "smtp://127.0.0.1:\(port)" }

    /// Starts a server; `arguments` are the script's options (`--auth USER:PASSWORD`, `--fail COUNT:REPLY`).
    package static func start(_ arguments: [String] = []) async throws -> SMTPSink {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("smtp-sink-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        let process = try TestProcess(
            python, ["-I", script, directory.path] + arguments, package: "python3-aiosmtpd",
            environment: ["LC_ALL": "C.UTF-8"], limit: .seconds(300))
        guard let line = await process.waitForLine(startingWith: "port "), let port = Int(line) else {
            await process.kill()
            throw TestProcessError("smtp_sink.py did not start: \(process.standardError)")
        }
        return SMTPSink(port: port, directory: directory, process: process)
    }

    private init(port: Int, directory: URL, process: TestProcess) {
        self.port = port
        self.directory = directory
        self.process = process
    }

    /// The next message the server accepted.
    package func nextMail() async throws -> ReceivedMail {
        guard let name = await process.waitForLine(startingWith: "received ") else {
            throw TestProcessError("smtp_sink.py ended: \(process.standardError)")
        }
        let raw = try Data(contentsOf: directory.appendingPathComponent(name + ".eml"))
        let record = try Data(contentsOf: directory.appendingPathComponent(name + ".json"))
        guard let object = try JSONSerialization.jsonObject(with: record) as? [String: Any] else {
            throw TestProcessError("\(name).json is not an object")
        }
        return ReceivedMail(raw: [UInt8](raw), record: object)
    }

    /// The names of the messages written so far.
    package func messageNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".eml") }.sorted()
    }

    package func stop() async {
        await process.kill()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// One message as the SMTP server received it: its envelope, and how Python's e-mail parser reads it.
package struct ReceivedMail {
    package let raw: [UInt8]
    package let mailFrom: String
    package let recipients: [String]
    package let mailOptions: [String]
    package let login: String?
    /// The header fields, RFC 2047 decoded, in order.
    package let headers: [(name: String, value: String)]
    /// The text body, transfer encoding undone.
    package let body: String
    /// What the parser found wrong with the message (nothing, for ours).
    package let defects: [String]

    package init(raw: [UInt8], record: [String: Any]) {
        self.raw = raw
        mailFrom = record["mail_from"] as? String ?? ""
        recipients = record["rcpt_tos"] as? [String] ?? []
        mailOptions = record["mail_options"] as? [String] ?? []
        login = record["login"] as? String
        headers = (record["headers"] as? [[String]] ?? []).compactMap { pair in
            pair.count == 2 ? (pair[0], pair[1]) : nil
        }
        body = (record["body"] as? String ?? "").replacing("\r\n", with: "\n")
        defects = record["defects"] as? [String] ?? []
    }

    /// The values of the header fields named `name`.
    package func header(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    package var rawText: String { String(decoding: raw, as: UTF8.self) }
}
