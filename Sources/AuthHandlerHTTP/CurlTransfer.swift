import AuthHandlerSystem
import CCurl
import CHTTPShims
import Synchronization

/// Owns one `CURL` easy handle and its `CURLOPT_ERRORBUFFER`; `curl_easy_cleanup` runs when it goes away.
///
/// The buffer lives here, not with the transfer, because libcurl may write to it until `curl_easy_cleanup`
/// (CURLOPT_ERRORBUFFER(3)): it is freed only after the handle.
final class CurlEasyHandle {
    let raw: UnsafeMutableRawPointer
    let errorBuffer: UnsafeMutablePointer<CChar>

    init?() {
        guard let raw = curl_easy_init() else { return nil }
        self.raw = raw
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        buffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        errorBuffer = buffer
    }

    deinit {
        curl_easy_cleanup(raw)
        errorBuffer.deallocate()
    }
}

/// Owns a `curl_slist` of request header lines; `curl_slist_free_all` runs when it goes away.
final class CurlHeaderList {
    private(set) var raw: UnsafeMutablePointer<curl_slist>?

    /// Appends a line; false when libcurl could not allocate (the list so far is kept).
    func append(_ line: String) -> Bool {
        guard let extended = curl_slist_append(raw, line) else { return false }
        raw = extended
        return true
    }

    deinit { curl_slist_free_all(raw) }
}

/// One outbound request on its way through `CurlEventLoop`, with the easy handle and the response so far.
///
/// `@unchecked Sendable`: it is built on the caller's thread and handed to the loop thread through the loop's
/// mutex; from then on only the loop thread touches it (curl calls its callbacks from `curl_multi_perform` on
/// that thread), except `cancelled`, which is atomic.
final class CurlTransfer: @unchecked Sendable {
    let easy: CurlEasyHandle
    private let headerList = CurlHeaderList()
    private let maxResponseBytes: Int
    private let method: String
    /// The request URL, for error messages only: `target` and `query` are derived from it when an error is built,
    /// not for every transfer.
    private let url: String
    /// The URL without query, fragment or userinfo, as errors name it.
    private var target: String { Redaction.target(url) }
    /// The raw query, removed from any message curl writes (it may carry secrets).
    private var query: String { url.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init) ?? "" }
    private var responseHeaders: [HTTPHeaders.Field] = []
    private var headerBytes = 0
    private var body: [UInt8] = []
    private var exceededLimit = false
    var continuation: CheckedContinuation<OutboundResponse, any Error>?
    let cancelled = Atomic<Bool>(false)

    init(request: OutboundRequest, configuration: HTTPClientConfiguration) throws(HTTPClientError) {
        method = request.method
        url = request.url
        maxResponseBytes = configuration.maxResponseBytes
        guard let easy = CurlEasyHandle() else {
            throw HTTPClientError(
                kind: .setup(operation: "curl_easy_init", code: 0, text: "out of memory"), method: request.method,
                target: Redaction.target(request.url))
        }
        self.easy = easy
        try configure(request, configuration: configuration)
    }

    /// Builds the error for a failed transfer; the query string never appears in it.
    private func failure(_ kind: HTTPClientError.Kind) -> HTTPClientError {
        HTTPClientError(kind: kind, method: method, target: target)
    }

    private func configure(_ request: OutboundRequest, configuration: HTTPClientConfiguration) throws(HTTPClientError) {
        let lowered = request.url.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
            throw failure(.invalidRequest("only http and https URLs are allowed"))
        }
        guard request.timeout > .zero else { throw failure(.invalidRequest("the timeout must be positive")) }
        guard !request.method.isEmpty, !HTTPHeaders.containsLineBreak(request.method),
            !request.method.contains(" ")
        else { throw failure(.invalidRequest("invalid method")) }

        try set(CURLOPT_URL, request.url)
        // Defence in depth: even a URL built from untrusted input can only reach http(s).
        try set(CURLOPT_PROTOCOLS_STR, "http,https")
        try set(CURLOPT_FOLLOWLOCATION, 0)
        try set(CURLOPT_SSL_VERIFYPEER, 1)
        try set(CURLOPT_SSL_VERIFYHOST, 2)
        if let caFile = configuration.caFile { try set(CURLOPT_CAINFO, caFile) }
        // Why NOSIGNAL: the default resolver timeout uses SIGALRM, which is unsafe with threads
        // (https://curl.se/libcurl/c/CURLOPT_NOSIGNAL.html).
        try set(CURLOPT_NOSIGNAL, 1)
        let (seconds, attoseconds) = request.timeout.components
        let milliseconds = max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        try set(CURLOPT_TIMEOUT_MS, Int(clamping: milliseconds))
        try check(shim_curl_easy_setopt_pointer(easy.raw, CURLOPT_ERRORBUFFER, easy.errorBuffer), "CURLOPT_ERRORBUFFER")
        // Aborts early when Content-Length announces more than the cap; the write callback catches the rest.
        try check(
            shim_curl_easy_setopt_off_t(easy.raw, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(maxResponseBytes)),
            "CURLOPT_MAXFILESIZE_LARGE")

        // The callbacks' context is this object, kept alive by the loop's table of active transfers from
        // curl_multi_add_handle until curl_multi_remove_handle: exactly while curl may call them.
        let context = Unmanaged.passUnretained(self).toOpaque()
        try check(
            shim_curl_easy_setopt_write_callback(easy.raw, CURLOPT_WRITEFUNCTION, curlTransferWriteBody),
            "CURLOPT_WRITEFUNCTION")
        try check(shim_curl_easy_setopt_pointer(easy.raw, CURLOPT_WRITEDATA, context), "CURLOPT_WRITEDATA")
        try check(
            shim_curl_easy_setopt_write_callback(easy.raw, CURLOPT_HEADERFUNCTION, curlTransferWriteHeader),
            "CURLOPT_HEADERFUNCTION")
        try check(shim_curl_easy_setopt_pointer(easy.raw, CURLOPT_HEADERDATA, context), "CURLOPT_HEADERDATA")

        try configureMethodAndBody(request)
        try configureHeaders(request.headers)
    }

    private func configureMethodAndBody(_ request: OutboundRequest) throws(HTTPClientError) {
        switch request.method {
        case "GET" where request.body.isEmpty:
            try set(CURLOPT_HTTPGET, 1)
        case "HEAD":
            try set(CURLOPT_NOBODY, 1)
        default:
            if request.method != "POST" { try set(CURLOPT_CUSTOMREQUEST, request.method) }
            // POSTFIELDS with CUSTOMREQUEST is libcurl's way to send a body with any method.
            try set(CURLOPT_POST, 1)
            try check(
                shim_curl_easy_setopt_off_t(easy.raw, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count)),
                "CURLOPT_POSTFIELDSIZE_LARGE")
            // COPYPOSTFIELDS copies now, so the body need not outlive this call; "" because it needs a pointer.
            if request.body.isEmpty {
                try set(CURLOPT_COPYPOSTFIELDS, "")
            } else {
                let code = request.body.withUnsafeBytes { bytes in
                    shim_curl_easy_setopt_pointer(
                        easy.raw, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
                }
                try check(code, "CURLOPT_COPYPOSTFIELDS")
            }
        }
    }

    private func configureHeaders(_ headers: HTTPHeaders) throws(HTTPClientError) {
        for field in headers {
            guard !field.name.isEmpty, !HTTPHeaders.containsLineBreak(field.name),
                !HTTPHeaders.containsLineBreak(field.value), !field.name.contains(":")
            else { throw failure(.invalidRequest("invalid header field \"\(field.name)\"")) }
            // Why ";": "Name:" with nothing after it tells curl to remove the header, "Name;" sends it empty.
            let line = field.value.isEmpty ? "\(field.name);" : "\(field.name): \(field.value)"
            guard headerList.append(line) else {
                throw failure(.setup(operation: "curl_slist_append", code: 0, text: "out of memory"))
            }
        }
        // Why: curl adds "Expect: 100-continue" to large bodies, which costs a round trip (or a 1 s wait).
        if headers["Expect"] == nil, !headerList.append("Expect:") {
            throw failure(.setup(operation: "curl_slist_append", code: 0, text: "out of memory"))
        }
        if headers["User-Agent"] == nil, !headerList.append("User-Agent: auth-handler/\(AuthHandlerVersion.string)") {
            throw failure(.setup(operation: "curl_slist_append", code: 0, text: "out of memory"))
        }
        try check(shim_curl_easy_setopt_slist(easy.raw, CURLOPT_HTTPHEADER, headerList.raw), "CURLOPT_HTTPHEADER")
    }

    private func set(_ option: CURLoption, _ value: Int) throws(HTTPClientError) {
        try check(shim_curl_easy_setopt_long(easy.raw, option, value), "curl_easy_setopt(\(option.rawValue))")
    }

    private func set(_ option: CURLoption, _ value: String) throws(HTTPClientError) {
        try check(shim_curl_easy_setopt_string(easy.raw, option, value), "curl_easy_setopt(\(option.rawValue))")
    }

    private func check(_ code: CURLcode, _ operation: String) throws(HTTPClientError) {
        guard code == CURLE_OK else {
            throw failure(
                .setup(operation: operation, code: Int(code.rawValue), text: String(cString: curl_easy_strerror(code))))
        }
    }

    // MARK: On the loop thread

    /// Appends body bytes; false (abort) once the response would exceed the cap.
    fileprivate func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard body.count + bytes.count <= maxResponseBytes else {
            exceededLimit = true
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    /// Records one header line; a status line starts a new header block (after 1xx responses).
    fileprivate func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Bool {
        headerBytes += bytes.count
        guard headerBytes <= maxResponseBytes else {
            exceededLimit = true
            return false
        }
        if bytes.starts(with: "HTTP/".utf8) {
            responseHeaders = []
        } else {
            receiveFieldLine(bytes)
        }
        return true
    }

    /// `name: value` of a header line, on its bytes. The colon, space, tab, CR and LF are single bytes that never
    /// occur inside a multi-byte UTF-8 sequence, so splitting and trimming on bytes is right for any line.
    private func receiveFieldLine(_ bytes: UnsafeRawBufferPointer) {
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return }
        let isTrimmed = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
        var start = colon + 1
        var end = bytes.count
        while start < end, isTrimmed(bytes[start]) { start += 1 }
        while end > start, isTrimmed(bytes[end - 1]) { end -= 1 }
        responseHeaders.append(
            HTTPHeaders.Field(
                name: String(decoding: bytes[..<colon], as: UTF8.self),
                value: String(decoding: bytes[start..<end], as: UTF8.self)))
    }

    /// Resumes the caller with the outcome of the finished transfer `code`.
    func complete(_ code: CURLcode) {
        let result: Result<OutboundResponse, any Error>
        if exceededLimit || code == CURLE_FILESIZE_EXCEEDED {
            result = .failure(failure(.responseTooLarge(limit: maxResponseBytes)))
        } else if code != CURLE_OK {
            result = .failure(failure(transferError(code)))
        } else {
            var status = 0
            let infoCode = shim_curl_easy_getinfo_long(easy.raw, CURLINFO_RESPONSE_CODE, &status)
            if infoCode != CURLE_OK {
                result = .failure(failure(transferError(infoCode)))
            } else {
                result = .success(OutboundResponse(status: status, headers: HTTPHeaders(responseHeaders), body: body))
            }
        }
        resume(with: result)
    }

    /// Resumes the caller with `error`, e.g. cancellation or shutdown.
    func fail(_ error: any Error) {
        resume(with: .failure(error))
    }

    /// A shutdown error for this transfer.
    var shutDownError: HTTPClientError { failure(.shutDown) }

    /// Builds the error for a multi-interface failure.
    func setupError(_ operation: String, code: Int, text: String) -> HTTPClientError {
        failure(.setup(operation: operation, code: code, text: text))
    }

    private func resume(with result: Result<OutboundResponse, any Error>) {
        continuation?.resume(with: result)
        continuation = nil
    }

    private func transferError(_ code: CURLcode) -> HTTPClientError.Kind {
        var detail = String(cString: easy.errorBuffer).trimmingCharacters(in: " \n")
        let query = self.query
        if !query.isEmpty { detail = detail.replacingAll(query, with: "[query]") }
        return .transfer(code: Int(code.rawValue), text: String(cString: curl_easy_strerror(code)), detail: detail)
    }
}

/// CURLOPT_WRITEFUNCTION: returning less than handed aborts the transfer with CURLE_WRITE_ERROR.
private let curlTransferWriteBody: curl_write_callback = { data, size, count, context in
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}

/// CURLOPT_HEADERFUNCTION: called once per complete header line, CRLF included.
private let curlTransferWriteHeader: curl_write_callback = { data, size, count, context in
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    return transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}

extension String {
    /// The string without leading and trailing characters from `set`.
    fileprivate func trimmingCharacters(in set: String) -> String {
        let strip: (Character) -> Bool = { set.contains($0) }
        guard let start = firstIndex(where: { !strip($0) }), let end = lastIndex(where: { !strip($0) }) else {
            return ""
        }
        return String(self[start...end])
    }

    /// The string with every occurrence of `target` replaced.
    fileprivate func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = ""
        var rest = self[...]
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> String {
        String(self).trimmingCharacters(in: set)
    }
}
