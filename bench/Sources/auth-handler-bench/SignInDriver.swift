import AuthHandlerCore
import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerProtocols
import Foundation
import Synchronization

/// Drives complete sign-ins against `auth-handler serve` (or anything that answers like it) for a number of seconds,
/// as a browser and an app do (docs/HTTP-API.md §3):
///   1. `GET START_URL&redirectUrl=…&resultChallenge=C` → `302` to the IdP, `Set-Cookie` (the sealed sign-in);
///   2. `GET` the IdP's authorize URL (`login_hint` auto-approves) → `302` to the handler with `code` and `state`;
///   3. `GET` the callback with the cookie → `303` to `redirectUrl?code=RESULT_CODE`;
///   4. `POST /__/auth/result code=RESULT_CODE&verifier=V` → `200`.
///
/// Compiled, on our libcurl multi client (one event thread, kept-alive connections), so that the driver is not what
/// saturates: `concurrency` flows run at once, each starting its next sign-in when one ends. A failed step counts as
/// an error and the flow goes on with a new sign-in. Prints one line:
/// `SIGNINS_PER_SECOND P50 P99 ERRORS COMPLETED DRIVER_CPU_CORES` (latencies of whole sign-ins, like wrk's "12.34ms";
/// driver cores = this process's user + system CPU time over wall time), then up to three error lines on stderr.
struct SignInDriver {
    let startURL: String
    let redirectURL: String
    let seconds: Double
    let concurrency: Int
    /// Stop once this many sign-ins have completed (nil: run for `seconds`).
    let total: Int?
    let client: HTTPClient

    /// One step went wrong: which, and what came back (status and Location only: a body may hold tokens).
    struct StepFailed: Error, CustomStringConvertible {
        let description: String
    }

    /// `signin START_URL REDIRECT_URL [--seconds N] [--concurrency N] [--total N]`.
    static func run(_ arguments: [String]) async throws {
        var positional: [String] = []
        var seconds = 3.0
        var concurrency = 200
        var total: Int?
        var index = 0
        while index < arguments.count {
            switch arguments[index] {
            case "--seconds":
                index += 1
                seconds = Double(arguments[index]) ?? seconds
            case "--concurrency":
                index += 1
                concurrency = Int(arguments[index]) ?? concurrency
            case "--total":
                index += 1
                total = Int(arguments[index])
            default: positional.append(arguments[index])
            }
            index += 1
        }
        guard positional.count == 2 else {
            throw StepFailed(
                description: "usage: signin START_URL REDIRECT_URL [--seconds N] [--concurrency N] [--total N]")
        }
        let driver = SignInDriver(
            startURL: positional[0], redirectURL: positional[1], seconds: seconds, concurrency: concurrency,
            total: total, client: try HTTPClient())
        // One sign-in first: it warms the daemon's discovery and JWKS caches, and a broken setup fails here, clearly.
        _ = try await driver.signIn()
        let report = await driver.measure()
        print(report.line)
        for error in report.firstErrors { FileHandle.standardError.write(Data("signin driver: \(error)\n".utf8)) }
    }

    /// What a run measured.
    struct Report {
        var latencies: [Duration]
        var errors: Int
        var firstErrors: [String]
        var wallSeconds: Double
        var cpuSeconds: Double

        var line: String {
            let sorted = latencies.sorted()
            func percentile(_ fraction: Double) -> String {
                guard !sorted.isEmpty else { return "n/a" }
                let value = sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
                return String(format: "%.2fms", value.seconds * 1e3)
            }
            let rate = Double(sorted.count) / wallSeconds
            return String(
                format: "%.0f %@ %@ %d %d %.2f", rate, percentile(0.5), percentile(0.99), errors, sorted.count,
                cpuSeconds / wallSeconds)
        }
    }

    /// Runs `concurrency` flows for `seconds` (or until `total` have completed: then `seconds` is only a bound);
    /// sign-ins that end after the deadline are not counted.
    func measure() async -> Report {
        let clock = ContinuousClock()
        let began = clock.now
        let deadline = began + .seconds(total == nil ? seconds : max(seconds, 3600))
        let completed = Counter()
        let cpuBefore = Self.processCPUSeconds()
        var report = Report(latencies: [], errors: 0, firstErrors: [], wallSeconds: 0, cpuSeconds: 0)
        await withTaskGroup(of: Report.self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    var mine = Report(latencies: [], errors: 0, firstErrors: [], wallSeconds: 0, cpuSeconds: 0)
                    while clock.now < deadline, total.map({ completed.value < $0 }) ?? true {
                        let start = clock.now
                        do {
                            _ = try await signIn()
                            let end = clock.now
                            if end <= deadline {
                                mine.latencies.append(end - start)
                                completed.increment()
                            }
                        } catch {
                            mine.errors += 1
                            if mine.firstErrors.count < 3 { mine.firstErrors.append(String(describing: error)) }
                        }
                    }
                    return mine
                }
            }
            for await flow in group {
                report.latencies += flow.latencies
                report.errors += flow.errors
                report.firstErrors += flow.firstErrors.prefix(3 - min(3, report.firstErrors.count))
            }
        }
        report.wallSeconds = (clock.now - began).seconds
        report.cpuSeconds = Self.processCPUSeconds() - cpuBefore
        return report
    }

    /// One complete sign-in; the redemption's status.
    func signIn() async throws -> Int {
        let verifier = try SecureRandom.base64URLString(byteCount: 32)
        let challenge = Base64.urlEncode(try SHA256.hash(Array(verifier.utf8)))
        let start =
            startURL + "&"
            + FormURLEncoding.encode([
                URLFormField(name: "redirectUrl", value: redirectURL),
                URLFormField(name: "resultChallenge", value: challenge),
                URLFormField(name: "customParameters", value: #"{"login_hint":"alice"}"#),
            ])
        let started = try await step("start", OutboundRequest(method: "GET", url: start), expect: 302)
        let cookies = started.headers.values(for: "Set-Cookie").map { String($0.prefix { $0 != ";" }) }
        guard !cookies.isEmpty, let authorize = started.headers["Location"] else {
            throw StepFailed(description: "start: no cookie or no Location")
        }
        let approved = try await step("IdP authorize", OutboundRequest(method: "GET", url: authorize), expect: 302)
        guard let callback = approved.headers["Location"] else {
            throw StepFailed(description: "authorize: no Location")
        }
        let done = try await step(
            "callback",
            OutboundRequest(method: "GET", url: callback, headers: ["Cookie": cookies.joined(separator: "; ")]),
            expect: 303)
        guard let back = done.headers["Location"], back.hasPrefix(redirectURL + "?"),
            let code = (try? FormURLEncoding.decode(String(back.dropFirst(redirectURL.count + 1))))?
                .first(where: { $0.name == "code" })?.value
        else {
            // The app's redirect carries `error=` instead of a code (docs/HTTP-API.md §3.2): name it (never a code).
            let query = done.headers["Location"].flatMap { $0.split(separator: "?", maxSplits: 1).last }.map(
                String.init)
            let error = query.flatMap { try? FormURLEncoding.decode($0) }?.first { $0.name == "error" }?.value
            throw StepFailed(description: "callback: no code for the app, error=\(error ?? "none")")
        }
        let origin = startURL.components(separatedBy: "/__/auth/handler")[0]
        let redemption = try await step(
            "redeem",
            OutboundRequest(
                method: "POST", url: origin + "/__/auth/result",
                headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Array(
                    FormURLEncoding.encode([
                        URLFormField(name: "code", value: code), URLFormField(name: "verifier", value: verifier),
                    ]).utf8)),
            expect: 200)
        return redemption.status
    }

    private func step(_ name: String, _ request: OutboundRequest, expect status: Int) async throws -> OutboundResponse {
        let response = try await client.send(request)
        guard response.status == status else {
            throw StepFailed(
                description: "\(name): \(response.status) (expected \(status))"
                    // The host only: a Location to the handler or the app carries a code and a state.
                    + (response.headers["Location"].flatMap { URLComponents(string: $0)?.host }.map { " to \($0)" }
                        ?? ""))
        }
        return response
    }

    /// This process's user + system CPU time so far (getrusage(2)).
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// A count shared by the flows.
final class Counter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }
}
