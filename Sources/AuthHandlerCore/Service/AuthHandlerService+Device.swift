import AuthHandlerHTTP
import Foundation

/// The device sign-in's routes (HTTP-API.md §3.9): `/__/auth/device`, `/__/auth/device/token` and
/// `/__/auth/device/done`, served when `deviceAuthorization.enabled`.
struct DeviceRoutes: RouteGroup {
    func addRoutes(to table: inout RouteTable) {
        table.add("GET", "/__/auth/device") { context in
            await context.service.devicePage(context.request, flow: context.flow, client: Self.client(context))
        }
        // The confirmation page's buttons and a device asking for a code pair share the path; `decision` tells them
        // apart.
        table.add("POST", "/__/auth/device") { context in
            if context.request.formFields.first(named: "decision") != nil {
                return await context.service.deviceDecision(
                    context.request, flow: context.flow, client: Self.client(context))
            }
            return await context.service.issueDevice(context.request, flow: context.flow, client: Self.client(context))
        }
        table.add("POST", "/__/auth/device/token") { context in
            await context.service.token(context.request, flow: context.flow)
        }
        table.add("GET", "/__/auth/device/done") { context in
            let outcome = context.request.queryItems.first(named: "outcome").flatMap(DeviceDoneOutcome.init(rawValue:))
            return ResponseRendering.secured(
                .html(DevicePages.done(outcome ?? .failed, audience: context.service.deviceAudience(context.flow))))
        }
        for path in ["/__/auth/device", "/__/auth/device/token", "/__/auth/device/done"] {
            table.refuseOtherMethods(
                at: path,
                saying: "use POST for /__/auth/device (asking for a code) and /__/auth/device/token, GET for the pages",
                to: .terminal)
        }
    }

    /// Who the request comes from, through `trustedProxies` (HTTP-API.md §2.4).
    private static func client(_ context: Route.Context) -> String {
        ClientAddress.resolve(
            peer: context.request.remoteAddress, forwardedFor: context.request.headers.values(for: "X-Forwarded-For"),
            trusted: context.flow.settings.trustedProxies)
    }
}

/// The device routes' answers.
extension AuthHandlerService {
    /// The pages of a device sign-in speak to a person whose sign-in a terminal started.
    fileprivate func deviceAudience(_ flow: SignInFlow) -> PageAudience {
        PageAudience(productName: flow.settings.productName, starter: .terminal)
    }

    /// `POST /__/auth/device` without `decision`: a device asks for a code pair (JSON in, JSON out).
    fileprivate func issueDevice(_ request: ServerRequest, flow: SignInFlow, client: String) async -> ServerResponse {
        do {
            let issued = try await flow.issueDevice(request.formFields, client: client)
            return ResponseRendering.json(issued.json)
        } catch {
            return ResponseRendering.error(error, accept: "application/json", audience: deviceAudience(flow))
        }
    }

    /// `GET /__/auth/device`: the code page, or with `user_code` the confirmation page (HTTP-API.md §3.9).
    fileprivate func devicePage(_ request: ServerRequest, flow: SignInFlow, client: String) async -> ServerResponse {
        let audience = deviceAudience(flow)
        guard let typed = request.queryItems.first(named: "user_code"), !typed.isEmpty else {
            return ResponseRendering.secured(.html(DevicePages.entry(problem: nil, audience: audience)))
        }
        do {
            switch try await flow.deviceConfirmation(
                userCode: typed, client: client, cookieHeaders: request.headers.values(for: "Cookie"))
            {
            case .confirm(let facts):
                var response = ResponseRendering.secured(.html(DevicePages.confirmation(facts, audience: audience)))
                response.headers.add(name: "Set-Cookie", value: facts.setCookie)
                return response
            case .alreadyDecided(let userCode):
                // 400, as for a code that cannot be confirmed because it is unknown or expired.
                return ResponseRendering.secured(
                    .html(DevicePages.alreadyDecided(userCode: userCode, audience: audience), status: 400))
            }
        } catch {
            var response = ResponseRendering.secured(
                .html(DevicePages.entry(problem: error.message, audience: audience), status: error.status))
            if let seconds = error.retryAfterSeconds {
                response.headers.set(name: "Retry-After", value: String(seconds))
            }
            return response
        }
    }

    /// The confirmation form's `POST /__/auth/device` (HTTP-API.md §3.9).
    fileprivate func deviceDecision(_ request: ServerRequest, flow: SignInFlow, client: String) async -> ServerResponse
    {
        let accept = request.headers["Accept"]
        let audience = deviceAudience(flow)
        // A form any other page makes the browser send, even one of a sibling subdomain (`same-site`), is refused
        // before anything else (Fetch Metadata; HTTP-API.md §3.9).
        guard FetchMetadata(request).isSameOrigin else {
            return ResponseRendering.error(
                APIError(
                    .invalidRequest,
                    "a confirmation must come from the confirmation page itself; open the link your terminal shows"),
                accept: accept, audience: audience)
        }
        do {
            switch try await flow.deviceDecision(
                request.formFields, client: client, cookieHeaders: request.headers.values(for: "Cookie"))
            {
            case .started(let answer):
                var response = ResponseRendering.secured(.redirect(to: answer.location, status: 303))
                for eviction in answer.evictions { response.headers.add(name: "Set-Cookie", value: eviction) }
                response.headers.add(name: "Set-Cookie", value: answer.setCookie)
                return response
            case .declined:
                return ResponseRendering.secured(
                    .redirect(to: "device/done?outcome=" + DeviceDoneOutcome.cancelled.rawValue, status: 303))
            }
        } catch {
            return ResponseRendering.error(error, accept: accept, audience: audience)
        }
    }

    /// `POST /__/auth/device/token` (RFC 8628 §3.4, §3.5): errors in RFC 6749 §5.2's form.
    fileprivate func token(_ request: ServerRequest, flow: SignInFlow) async -> ServerResponse {
        switch await flow.pollDevice(request.formFields) {
        case .delivered(let answer):
            // Exactly the JSON of POST /__/auth/result (HTTP-API.md §3.3), written the same way.
            return ResponseRendering.secured(
                ServerResponse(
                    headers: ["Content-Type": "application/json"], body: answer.json.serialized(sortingKeys: true)))
        case .refused(let error, let description, let status, let interval):
            var members: [String: JSONValue] = ["error": .string(error), "error_description": .string(description)]
            if let interval { members["interval"] = .integer(Int64(interval)) }
            return ResponseRendering.json(.object(members), status: status)
        }
    }
}
