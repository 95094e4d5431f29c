import AuthHandlerSystem
import CCurl
import CHTTPShims

/// One message to one recipient, sent by a blocking libcurl easy transfer (curl_easy_perform(3)) on the SMTP
/// client's thread: connect, TLS as `SMTPTransportSecurity` decided, AUTH when credentials are set, `MAIL FROM`,
/// `RCPT TO`, `DATA` with the message read from memory. libcurl escapes a line that starts with a dot as RFC 5321
/// §4.5.2 asks (`SMTPClientTests` check it against a real server).
///
/// Not `Sendable`: it is made, performed and released on the client's thread.
final class SMTPTransfer {
    private let easy: CurlEasyHandle
    private let recipients = CurlHeaderList()
    private let message: [UInt8]
    private var offset = 0
    private let target: String
    private let credentials: SensitiveValues

    init(
        server: SMTPServerURL, configuration: SMTPClientConfiguration, from sender: String, to recipient: String,
        message: [UInt8]
    ) throws(SMTPClientError) {
        target = Redaction.target(server.url)
        self.message = message
        credentials = SensitiveValues([configuration.username, configuration.password])
        guard let easy = CurlEasyHandle() else {
            throw SMTPClientError(
                kind: .setup(operation: "curl_easy_init", code: 0, text: "out of memory"), target: target)
        }
        self.easy = easy
        for (role, address) in [("sender", sender), ("recipient", recipient)] {
            guard !address.isEmpty, !address.unicodeScalars.contains(where: Self.isForbiddenInPath) else {
                throw failure(.invalidEnvelope("the \(role) is empty or has a control character or angle bracket"))
            }
        }
        guard !message.isEmpty else { throw failure(.invalidEnvelope("the message is empty")) }
        try configureConnection(server, configuration)
        try configureEnvelope(from: sender, to: recipient)
    }

    private static func isForbiddenInPath(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || scalar.value == 0x7F || scalar == "<" || scalar == ">"
    }

    private func failure(_ kind: SMTPClientError.Kind) -> SMTPClientError {
        SMTPClientError(kind: kind, target: target)
    }

    private func configureConnection(_ server: SMTPServerURL, _ configuration: SMTPClientConfiguration)
        throws(SMTPClientError)
    {
        try set(CURLOPT_URL, server.url)
        // Defence in depth: whatever the URL, this handle speaks SMTP only.
        try set(CURLOPT_PROTOCOLS_STR, "smtp,smtps")
        let useSSL = server.security == .plainOnLoopback ? CURLUSESSL_NONE : CURLUSESSL_ALL
        try set(CURLOPT_USE_SSL, Int(useSSL.rawValue))
        try set(CURLOPT_SSLVERSION, Int(CURL_SSLVERSION_TLSv1_2))
        try set(CURLOPT_SSL_VERIFYPEER, 1)
        try set(CURLOPT_SSL_VERIFYHOST, 2)
        if let caFile = configuration.caFile { try set(CURLOPT_CAINFO, caFile) }
        // Why NOSIGNAL: the default resolver timeout uses SIGALRM, which is unsafe with threads (CURLOPT_NOSIGNAL(3)).
        try set(CURLOPT_NOSIGNAL, 1)
        try set(CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(configuration.connectTimeout))
        try set(CURLOPT_TIMEOUT_MS, Self.milliseconds(configuration.timeout))
        try check(shim_curl_easy_setopt_pointer(easy.raw, CURLOPT_ERRORBUFFER, easy.errorBuffer), "CURLOPT_ERRORBUFFER")
        if let username = configuration.username { try set(CURLOPT_USERNAME, username) }
        if let password = configuration.password { try set(CURLOPT_PASSWORD, password) }
    }

    private func configureEnvelope(from sender: String, to recipient: String) throws(SMTPClientError) {
        try set(CURLOPT_MAIL_FROM, "<\(sender)>")
        guard recipients.append("<\(recipient)>") else {
            throw failure(.setup(operation: "curl_slist_append", code: 0, text: "out of memory"))
        }
        try check(shim_curl_easy_setopt_slist(easy.raw, CURLOPT_MAIL_RCPT, recipients.raw), "CURLOPT_MAIL_RCPT")
        try set(CURLOPT_UPLOAD, 1)
        try check(
            shim_curl_easy_setopt_off_t(easy.raw, CURLOPT_INFILESIZE_LARGE, curl_off_t(message.count)),
            "CURLOPT_INFILESIZE_LARGE")
        try check(
            shim_curl_easy_setopt_read_callback(easy.raw, CURLOPT_READFUNCTION, smtpTransferRead),
            "CURLOPT_READFUNCTION")
    }

    /// Runs the transfer to its end; the error, if any, carries curl's message without the credentials.
    func perform() -> Result<Void, SMTPClientError> {
        // The read callback's context is this object, alive for the whole call: curl calls it only inside
        // curl_easy_perform.
        let context = Unmanaged.passUnretained(self).toOpaque()
        let code = withExtendedLifetime(self) { () -> CURLcode in
            let setCode = shim_curl_easy_setopt_pointer(easy.raw, CURLOPT_READDATA, context)
            guard setCode == CURLE_OK else { return setCode }
            return curl_easy_perform(easy.raw)
        }
        guard code == CURLE_OK else {
            var reply = 0
            _ = shim_curl_easy_getinfo_long(easy.raw, CURLINFO_RESPONSE_CODE, &reply)
            let raw = String(cString: easy.errorBuffer).trimmingSpacesAndNewlines
            let detail = credentials.scrub(Redaction.withoutURLSecrets(raw))
            return .failure(
                failure(
                    .transfer(
                        code: Int(code.rawValue), text: String(cString: curl_easy_strerror(code)), detail: detail,
                        reply: reply)))
        }
        return .success(())
    }

    /// Copies the next part of the message into curl's buffer; 0 at the end.
    fileprivate func read(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        let count = min(capacity, message.count - offset)
        guard count > 0 else { return 0 }
        let copied = message.withUnsafeBytes { bytes -> Int in
            guard let base = bytes.baseAddress else { return 0 }
            UnsafeMutableRawPointer(buffer).copyMemory(from: base + offset, byteCount: count)
            return count
        }
        offset += copied
        return copied
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(clamping: max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000))
    }

    private func set(_ option: CURLoption, _ value: Int) throws(SMTPClientError) {
        try check(shim_curl_easy_setopt_long(easy.raw, option, value), "curl_easy_setopt(\(option.rawValue))")
    }

    private func set(_ option: CURLoption, _ value: String) throws(SMTPClientError) {
        try check(shim_curl_easy_setopt_string(easy.raw, option, value), "curl_easy_setopt(\(option.rawValue))")
    }

    private func check(_ code: CURLcode, _ operation: String) throws(SMTPClientError) {
        guard code == CURLE_OK else {
            throw failure(
                .setup(operation: operation, code: Int(code.rawValue), text: String(cString: curl_easy_strerror(code))))
        }
    }
}

/// CURLOPT_READFUNCTION: fills curl's buffer from the message; returning 0 ends the upload.
private let smtpTransferRead: curl_read_callback = { buffer, size, count, context in
    guard let buffer, let context else { return 0 }
    let transfer = Unmanaged<SMTPTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.read(into: buffer, capacity: size * count)
}

extension String {
    /// Without leading and trailing spaces and line ends.
    fileprivate var trimmingSpacesAndNewlines: String {
        let isTrimmed = { (character: Character) in character == " " || character == "\n" || character == "\r" }
        guard let start = firstIndex(where: { !isTrimmed($0) }), let end = lastIndex(where: { !isTrimmed($0) }) else {
            return ""
        }
        return String(self[start...end])
    }
}
