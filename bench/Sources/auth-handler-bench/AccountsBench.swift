import AuthHandlerCrypto
import AuthHandlerHTTP
import Foundation
import Synchronization

/// The accounts backend's benchmarks (BENCHMARKS.md; bench/accounts.sh runs them beside their references).
enum AccountsBench {
    /// `argon2 [COUNT]`: COUNT argon2id hashes at OWASP's first parameters (m=19456 KiB, t=2, p=1), one at a time on
    /// one thread, as the hashing pool makes them. Prints `argon2id-hash MEDIAN_MS MEAN_MS` (milliseconds of CPU time).
    static func argon2(_ arguments: [String]) throws {
        let count = arguments.first.flatMap { Int($0) } ?? 20
        let parameters = Argon2id.Parameters(memoryKiB: 19456, iterations: 2, parallelism: 1)
        let password = Array("correct horse battery staple".utf8)
        let salt = Array("saltsaltsaltsalt".utf8)
        // CPU time, as the `argon2` command reports it (its run.c divides clock(3) ticks): a loaded machine would
        // otherwise charge us for the neighbours.
        var times: [Double] = []
        for _ in 0..<count {
            let start = threadCPUSeconds()
            _ = try Argon2id.hash(password, salt: salt, parameters: parameters)
            times.append((threadCPUSeconds() - start) * 1e3)
        }
        let sorted = times.sorted()
        print(String(format: "argon2id-hash %.2f %.2f", sorted[sorted.count / 2], times.reduce(0, +) / Double(count)))
    }
}

/// Drives `auth-handler serve` with backend `accounts` (HTTP-API.md §3.10) from many clients at once:
/// `accounts BASE_URL refresh|signin [--seconds N] [--concurrency N] [--probe START_URL]`.
///
/// Each flow is one user (`bench-N@example.com`, signed up first) and one client address (`X-Forwarded-For:
/// 10.0.N.1`; the daemon trusts 127.0.0.1 as a proxy), so that the per-client hashing budget and queue share are the
/// flow's own. `refresh` rotates each flow's refresh token in a loop (each answer's successor is the next request's
/// token); `signin` signs in with the password in a loop. With `--probe`, one more task meanwhile asks `/healthz` and
/// `START_URL` (a provider start) in turn and reports their p99. Prints
/// `MODE RATE_PER_SECOND P50 P99 ERRORS COMPLETED busy BUSY [healthz-p99 MS start-p99 MS]` (BUSY: `503`s waited out).
struct AccountsLoadDriver {
    let base: String
    let mode: String
    let seconds: Double
    let concurrency: Int
    let probe: String?
    let client: HTTPClient
    static let password = "bench password correct horse staple"

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// `503` with `Retry-After`: the hashing queue is full, as designed; the flow waits (at most a second) and tries
    /// again, as a client should.
    struct Busy: Error {
        let retryAfter: Double
    }

    static func run(_ arguments: [String]) async throws {
        var positional: [String] = []
        var (seconds, concurrency, probe) = (5.0, 64, String?.none)
        var index = 0
        while index < arguments.count {
            let value = index + 1 < arguments.count ? arguments[index + 1] : ""
            switch arguments[index] {
            case "--seconds": seconds = Double(value) ?? seconds
            case "--concurrency": concurrency = Int(value) ?? concurrency
            case "--probe": probe = value
            default:
                positional.append(arguments[index])
                index -= 1
            }
            index += 2
        }
        guard positional.count == 2, ["refresh", "signin"].contains(positional[1]) else {
            throw Failure(
                description: "usage: accounts BASE_URL refresh|signin [--seconds N] [--concurrency N] [--probe URL]")
        }
        let driver = AccountsLoadDriver(
            base: positional[0], mode: positional[1], seconds: seconds, concurrency: concurrency, probe: probe,
            client: try HTTPClient())
        try await driver.main()
    }

    func main() async throws {
        var tokens: [String] = []
        for flow in 0..<concurrency { tokens.append(try await signUp(flow)) }
        let clock = ContinuousClock()
        let began = clock.now
        let deadline = began + .seconds(seconds)
        let errors = ErrorList()
        let busyCount = ErrorList()
        let latencies = await withTaskGroup(of: [Duration].self) { group in
            for flow in 0..<concurrency {
                group.addTask { [tokens] in
                    var mine: [Duration] = []
                    var token = tokens[flow]
                    while clock.now < deadline {
                        let start = clock.now
                        do {
                            token = try await step(flow, token: token)
                            mine.append(clock.now - start)
                        } catch let busy as Busy {
                            busyCount.append("busy")
                            try? await Task.sleep(for: .seconds(min(busy.retryAfter, 1)))
                        } catch {
                            errors.append(String(describing: error))
                        }
                    }
                    return mine
                }
            }
            var all: [Duration] = []
            for await flow in group { all += flow }
            return all
        }
        let wall = (clock.now - began).seconds
        let failures = errors.all
        var line = String(
            format: "%@ %.1f %@ %@ %d %d busy %d", mode, Double(latencies.count) / wall,
            Self.percentile(latencies, 0.5), Self.percentile(latencies, 0.99), failures.count, latencies.count,
            busyCount.all.count)
        if let probe { line += try await probing(probe) }
        print(line)
        for error in failures.prefix(3) { FileHandle.standardError.write(Data("accounts driver: \(error)\n".utf8)) }
    }

    /// While `concurrency` sign-ins are in flight (a load of its own), `/healthz` and a provider start in turn.
    private func probing(_ startURL: String) async throws -> String {
        let clock = ContinuousClock()
        let stop = clock.now + .seconds(seconds)
        let load = Task {
            await withTaskGroup(of: Void.self) { group in
                for flow in 0..<concurrency {
                    group.addTask {
                        while clock.now < stop {
                            do {
                                _ = try await step(flow, token: "")
                            } catch let busy as Busy {
                                try? await Task.sleep(for: .seconds(min(busy.retryAfter, 1)))
                            } catch {}
                        }
                    }
                }
            }
        }
        var health: [Duration] = []
        var starts: [Duration] = []
        // Let the load fill the hashing queue first.
        try await Task.sleep(for: .milliseconds(300))
        while clock.now < stop {
            let t0 = clock.now
            let healthz = try await client.send(OutboundRequest(method: "GET", url: base + "/healthz"))
            health.append(clock.now - t0)
            let t1 = clock.now
            let start = try await client.send(OutboundRequest(method: "GET", url: startURL))
            starts.append(clock.now - t1)
            guard healthz.status == 200, start.status == 302 else {
                throw Failure(description: "probe: /healthz \(healthz.status), start \(start.status)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        await load.value
        return " healthz-p99 \(Self.percentile(health, 0.99)) start-p99 \(Self.percentile(starts, 0.99))"
    }

    private func headers(_ flow: Int, json: Bool) -> HTTPHeaders {
        var headers: HTTPHeaders = [
            "Accept": "application/json",
            "Content-Type": json ? "application/json" : "application/x-www-form-urlencoded",
        ]
        headers.set(name: "X-Forwarded-For", value: "10.0.\(flow / 250).\(flow % 250 + 1)")
        return headers
    }

    private func signUp(_ flow: Int) async throws -> String {
        let body = #"{"email": "bench-\#(flow)@example.com", "password": "\#(Self.password)"}"#
        var response = try await client.send(
            OutboundRequest(
                method: "POST", url: base + "/__/auth/password/sign-up", headers: headers(flow, json: true),
                body: Array(body.utf8)))
        if response.status == 409 {
            response = try await client.send(
                OutboundRequest(
                    method: "POST", url: base + "/__/auth/password/sign-in", headers: headers(flow, json: true),
                    body: Array(body.utf8)))
        }
        guard response.status == 200, let token = JSONValue.parse(response.body)?["refreshToken"]?.stringValue else {
            throw Failure(description: "sign-up \(flow): \(response.status)")
        }
        return token
    }

    /// One refresh (answers the successor) or one password sign-in (answers the token unchanged).
    private func step(_ flow: Int, token: String) async throws -> String {
        if mode == "refresh" {
            let form = "grant_type=refresh_token&refresh_token=" + token
            let response = try await client.send(
                OutboundRequest(
                    method: "POST", url: base + "/__/auth/token", headers: headers(flow, json: false),
                    body: Array(form.utf8)))
            guard response.status == 200, let next = JSONValue.parse(response.body)?["refresh_token"]?.stringValue
            else {
                throw Failure(description: "refresh: \(response.status)")
            }
            return next
        }
        let body = #"{"email": "bench-\#(flow)@example.com", "password": "\#(Self.password)"}"#
        let response = try await client.send(
            OutboundRequest(
                method: "POST", url: base + "/__/auth/password/sign-in", headers: headers(flow, json: true),
                body: Array(body.utf8)))
        if response.status == 503 {
            throw Busy(retryAfter: response.headers["Retry-After"].flatMap { Double($0) } ?? 1)
        }
        guard response.status == 200 else { throw Failure(description: "sign-in: \(response.status)") }
        return token
    }

    static func percentile(_ values: [Duration], _ fraction: Double) -> String {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return "n/a" }
        return String(
            format: "%.2fms", sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))].seconds * 1e3)
    }
}

/// The errors the flows met, in arrival order.
final class ErrorList: Sendable {
    private let items = Mutex<[String]>([])
    func append(_ item: String) { items.withLock { $0.append(item) } }
    var all: [String] { items.withLock { $0 } }
}
