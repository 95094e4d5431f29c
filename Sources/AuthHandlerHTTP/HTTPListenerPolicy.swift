/// What the listener accepts and how it answers on its own: the checks of a request's head (target, framing, `Host`,
/// sizes; HTTP-API.md §3.5), building a `ServerRequest` from what arrived, and the look of every answer the
/// listener sends itself (the configured refusal renderer and headers).
///
/// Plain values in and out, no libmicrohttpd: `HTTPListenerCore` bridges MHD's callbacks and asks this for every
/// decision, so the policy can be read, and tested, without a connection.
package struct HTTPListenerPolicy: Sendable {
    let configuration: HTTPServerConfiguration

    package init(configuration: HTTPServerConfiguration) {
        self.configuration = configuration
    }

    /// How a head is refused.
    package enum HeadRefusal: Sendable {
        /// Answer at once, before any body is read, and close: a framing or target fault, after which the bytes on
        /// the connection cannot be trusted to start another request (RFC 9112 §6.3).
        case answerNow(ServerResponse)
        /// Refuse once the request's body, if any, is skipped, keeping the connection when HTTP allows it.
        case refuse(ServerResponse)
    }

    /// A parsed request, or the response refusing it.
    package enum Parsed: Sendable {
        case request(ServerRequest)
        case refused(ServerResponse)
    }

    /// The refusal of a request whose head is complete, or nil to read on.
    package func headRefusal(method: String, rawURI: String?, headers: HTTPHeaders, isHTTP10: Bool) -> HeadRefusal? {
        let accept = headers["Accept"]
        if let refusal = HTTPRequestChecks.targetRefusal(rawURI, limit: configuration.maxHeaderBytes) {
            return .answerNow(ownResponse(refusal, accept: accept))
        }
        if let refusal = HTTPRequestChecks.framingRefusal(headers, isHTTP10: isHTTP10) {
            return .answerNow(ownResponse(refusal, accept: accept))
        }
        if let refusal = HTTPRequestChecks.hostRefusal(headers, isHTTP10: isHTTP10) {
            return .answerNow(ownResponse(refusal, accept: accept))
        }
        if Self.headerBytes(method: method, rawURI: rawURI, headers: headers) > configuration.maxHeaderBytes {
            return .refuse(ownText("Request header fields too large\n", status: 431, accept: accept))
        }
        if let length = headers["Content-Length"].flatMap({ Int($0) }), length > configuration.maxBodyBytes {
            return .refuse(ownText("Request body too large\n", status: 413, accept: accept))
        }
        return nil
    }

    /// The request that arrived: target split into path and query, the query and a form body decoded.
    package func request(
        method: String, rawURI: String?, headers: HTTPHeaders, body: [UInt8], remoteAddress: String?
    ) -> Parsed {
        let accept = headers["Accept"]
        guard let rawURI else {
            return .refused(
                ownText("Bad Request: the request target is not valid UTF-8\n", status: 400, accept: accept))
        }
        let path: Substring
        let rawQuery: Substring
        if let question = rawURI.firstIndex(of: "?") {
            path = rawURI[..<question]
            rawQuery = rawURI[rawURI.index(after: question)...]
        } else {
            path = rawURI[...]
            rawQuery = ""
        }
        let queryItems: [URLFormField]
        do {
            queryItems = try FormURLEncoding.decode(String(rawQuery))
        } catch {
            return .refused(ownText("Bad Request: query string: \(error)\n", status: 400, accept: accept))
        }
        var formFields: [URLFormField] = []
        if ServerRequest.isFormURLEncoded(contentType: headers["Content-Type"]) {
            do {
                formFields = try FormURLEncoding.decode(bytes: body)
            } catch {
                return .refused(ownText("Bad Request: form body: \(error)\n", status: 400, accept: accept))
            }
        }
        return .request(
            ServerRequest(
                method: method, path: String(path), rawQuery: String(rawQuery), queryItems: queryItems,
                headers: headers, body: body, formFields: formFields, remoteAddress: remoteAddress))
    }

    /// A plain-text response this server sends on its own, with the configured refusal headers.
    package func ownText(_ text: String, status: Int, accept: String? = nil) -> ServerResponse {
        ownResponse(.text(text, status: status), accept: accept)
    }

    /// `response` in the configured refusal format (`HTTPServerConfiguration.refusalRenderer`, for a request whose
    /// `Accept` is `accept`) with the configured refusal headers, replacing any of the same names.
    package func ownResponse(_ response: ServerResponse, accept: String? = nil) -> ServerResponse {
        var own = response
        if let render = configuration.refusalRenderer {
            var message = response.body[...]
            while message.last == UInt8(ascii: "\n") { message = message.dropLast() }
            own = render(response.status, String(decoding: message, as: UTF8.self), accept)
            // Whether the connection closes is the listener's decision, not the renderer's.
            if let connection = response.headers["Connection"] {
                own.headers.set(name: "Connection", value: connection)
            }
        }
        for field in configuration.refusalHeaders { own.headers.set(name: field.name, value: field.value) }
        return own
    }

    /// Bytes of the request line and header block as sent (`name: value\r\n` per field).
    static func headerBytes(method: String, rawURI: String?, headers: HTTPHeaders) -> Int {
        let requestLine = method.utf8.count + (rawURI?.utf8.count ?? 0) + " HTTP/1.1\r\n ".utf8.count
        return headers.reduce(requestLine) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
    }
}
