import AuthHandlerCore
import AuthHandlerHTTP
import Foundation

/// The control API under `/__fake/`: queue failures, list requests, move the clock, reset.
extension FakeIdPRouter {
    func handleControl(_ request: ServerRequest, path: String) async -> ServerResponse {
        switch (request.method, path) {
        case ("POST", "__fake/failures"):
            let failures: [FakeFailure]
            do {
                failures = try Self.decodeFailures(request.body)
            } catch {
                return .text(
                    "fake-idp: cannot queue failure: \(Self.describe(error)). Send JSON like "
                        + #"{"endpoint": "oidc/token", "kind": "http-status", "status": 500, "count": 1}"# + "\n",
                    status: 400)
            }
            for failure in failures { await state.queue(failure) }
            return await listFailures()
        case ("GET", "__fake/failures"):
            return await listFailures()
        case ("DELETE", "__fake/failures"):
            await state.clearFailures()
            return await listFailures()
        case ("GET", "__fake/requests"):
            let requests = await state.recordedRequests()
            return ServerResponse.json(JSONValue.array(requests.map(\.json)))
        case ("DELETE", "__fake/requests"):
            await state.clearRequests()
            return Self.json(["reset": true])
        case ("POST", "__fake/reset"):
            await state.reset()
            return Self.json(["reset": true])
        case ("POST", "__fake/clock"):
            struct Advance: Decodable { var advanceSeconds: Double }
            guard let advance = try? JSONDecoder().decode(Advance.self, from: Data(request.body)),
                advance.advanceSeconds.isFinite, advance.advanceSeconds >= 0
            else {
                return .text(#"fake-idp: send {"advanceSeconds": N} with N ≥ 0"# + "\n", status: 400)
            }
            await state.advanceClock(seconds: advance.advanceSeconds)
            return Self.json(["now": await state.now().timeIntervalSince1970])
        default:
            return Self.notFound(request)
        }
    }

    private func listFailures() async -> ServerResponse {
        ServerResponse.json(JSONValue.array(await state.pendingFailures().map(\.json)))
    }

    /// One failure object, or an array of them.
    static func decodeFailures(_ body: [UInt8]) throws -> [FakeFailure] {
        let data = Data(body)
        if let many = try? JSONDecoder().decode([FakeFailure].self, from: data) { return many }
        return [try JSONDecoder().decode(FakeFailure.self, from: data)]
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context): return context.debugDescription
        case DecodingError.keyNotFound(let key, _): return "missing key '\(key.stringValue)'"
        case DecodingError.typeMismatch(_, let context): return "wrong type at \(Self.path(context.codingPath))"
        case DecodingError.valueNotFound(_, let context): return "missing value at \(Self.path(context.codingPath))"
        default: return "\(error)"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map(\.stringValue).joined(separator: ".")
    }
}
