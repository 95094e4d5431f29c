import AuthHandlerHTTP
import Foundation
import Synchronization
import TestSupport
import Testing

/// How PostgreSQL fails under the two-instance test's load: stopped at once (SIGQUIT, an immediate shutdown, as a crash
/// leaves it) or hung (every process of it stopped with SIGSTOP: connections open, nothing answers).
enum PostgresFault: String, Sendable {
    case stopped
    case hung
}

/// What the load's workers were told, as it happened: whatever a success answered must still be there after the fault.
struct LoadLedger: Sendable {
    /// Sign-ups answered `200`: e-mail → localId.
    var signedUp: [String: String] = [:]
    /// Sign-ups answered `503`: made or not, never half made.
    var unanswered: [String] = []
    /// Each worker's refresh token: the one its last `200` gave it.
    var tokens: [Int: String] = [:]
    var successes = 0
    var unavailable = 0
    /// Requests in flight when the fault came: started before it, answered after.
    var inFlightAtFault = 0
    /// Per worker: the requests it started while the fault lasted, and its successes once it was over.
    var duringFault: [Int: Int] = [:]
    var afterRestore: [Int: Int] = [:]
    /// The longest a request waited, counted from the fault when it was sent before.
    var slowestUnderFault: Duration = .zero
    /// A worker's request that failed below HTTP (its message), which ends the load.
    var broken: String?
}

/// The moments of the fault, as the test acts: `fault` just before the signal, `faulted` once it took effect (the
/// server gone or every process stopped), `restored` just before the server is started or continued again.
struct FaultMoments: Sendable {
    var fault: ContinuousClock.Instant?
    var faulted: ContinuousClock.Instant?
    var restored: ContinuousClock.Instant?
    var done = false
}

/// The ledger and the fault's moments, shared by the test and its load's workers.
final class LoadState: Sendable {
    let ledger = Mutex(LoadLedger())
    let moments = Mutex(FaultMoments())
}

extension MultiInstanceRun {
    /// Workers sending requests at once, each through nginx and to each instance in turn.
    static let loadWorkers = 16

    /// PostgreSQL stopped or hung **mid-load** (issue 27 §1 "Faults"): while `loadWorkers` workers sign up, sign in and
    /// rotate their refresh tokens across both instances and nginx, PostgreSQL fails. Every answer, in flight or later,
    /// is a success or `503 unavailable` with `Retry-After`, and comes within the statement timeout (counted from the
    /// fault for a request sent before it) plus slack; `/readyz` is `503` on both; a provider sign-in starts, its
    /// callback completes (Redis only) and its redemption, which starts the account's session, is `503` and keeps the
    /// code. Restored: the load goes on by itself, every sign-up answered `200` signs in, every worker's last token
    /// rotates (a rotation committed whose answer was lost is the lost-answer rule's, docs/ACCOUNTS.md), the code
    /// redeems, and each sign-up answered `503` either made its account or can be made again.
    func postgresFailsMidLoad(
        _ fault: PostgresFault, _ postgres: PostgresTestServer, _ state: inout MultiInstanceState
    ) async throws {
        let load = LoadState()
        for worker in 0..<Self.loadWorkers {
            let up = try await signUp(front, "\(fault.rawValue)-\(worker)@example.com")
            load.ledger.withLock { $0.tokens[worker] = up.json?["refreshToken"]?.stringValue }
            state.users["\(fault.rawValue)-\(worker)@example.com"] = try #require(up.json?["localId"]?.stringValue)
        }
        let pending = try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<Self.loadWorkers {
                group.addTask { await self.loadWorker(worker, fault, load) }
            }
            defer { load.moments.withLock { $0.done = true } }
            try await awaitLoad(load, "successes before the fault") { $0.successes >= 3 * Self.loadWorkers }
            load.moments.withLock { $0.fault = .now }
            switch fault {
            case .stopped: await postgres.stop()
            case .hung: try Self.signalAll(of: postgres, SIGSTOP)
            }
            load.moments.withLock { $0.faulted = .now }
            let pending: (browser: ScaleOutBrowser, code: String)
            do {
                pending = try await duringFault()
                try await awaitLoad(load, "two requests per worker during the fault") { ledger in
                    (0..<Self.loadWorkers).allSatisfy { ledger.duringFault[$0, default: 0] >= 2 }
                }
            } catch {
                // A stopped server would never take the cleanup's SIGQUIT.
                if fault == .hung { try? Self.signalAll(of: postgres, SIGCONT) }
                throw error
            }
            load.moments.withLock { $0.restored = .now }
            switch fault {
            case .stopped: try await postgres.start()
            case .hung: try Self.signalAll(of: postgres, SIGCONT)
            }
            try await awaitLoad(load, "a success per worker after the restore") { ledger in
                (0..<Self.loadWorkers).allSatisfy { ledger.afterRestore[$0, default: 0] >= 1 }
            }
            load.moments.withLock { $0.done = true }
            try await group.waitForAll()
            return pending
        }
        try await checkDurable(load.ledger.withLock { $0 }, fault, &state)
        let redeemed = try await pending.browser.redeem(pending.code)
        MultiInstanceRun.checkForm(redeemed, front + "/__/auth/result")
        let refusal = redeemed.errorCode ?? "none"
        #expect(redeemed.status == 200, "the code kept through the fault: \(redeemed.status) \(refusal)")
    }

    /// While the fault lasts: `/readyz` is `503 accounts database unavailable` on both instances; a provider sign-in
    /// starts, its callback completes, and its redemption answers `503 unavailable`, keeping the code for later.
    func duringFault() async throws -> (browser: ScaleOutBrowser, code: String) {
        for origin in [first, second] {
            let ready = try await client.send(OutboundRequest(method: "GET", url: origin + "/readyz"))
            answers.withLock { $0 += 1 }
            #expect(ready.status == 503 && ready.text == "accounts database unavailable\n", "\(origin): \(ready.text)")
        }
        let browser = cluster.browser()
        let callback = try await browser.start("google.com", user: "bob")
        let done = try await browser.deliver(callback, accept: "application/json")
        let code = try #require(
            ScaleOutBrowser.code(of: done), "a callback during the fault: \(done.status) \(done.text)")
        let refused = try await browser.redeem(code)
        MultiInstanceRun.checkForm(refused, front + "/__/auth/result")
        #expect(refused.status == 503 && refused.errorCode == "unavailable", "redemption: \(refused.status)")
        #expect(refused.headers["Retry-After"] != nil, "a 503 without Retry-After")
        return (browser, code)
    }

    /// Waits (bounded, 60 s) until `condition` holds of the ledger; a worker's transport failure ends the wait.
    func awaitLoad(_ load: LoadState, _ what: String, _ condition: (LoadLedger) -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            let (met, broken) = load.ledger.withLock { (condition($0), $0.broken) }
            if let broken { throw TestProcessError("the load broke: \(broken)") }
            if met { return }
            guard ContinuousClock.now < deadline else { throw TestProcessError("no \(what) within 60 s") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

extension MultiInstanceRun {
    /// One worker of the load: requests one after another until the test is done, turn by turn a refresh of its own
    /// token (four in six), a sign-up of a new address, a sign-in of its own; each answer recorded in `ledger`.
    func loadWorker(_ worker: Int, _ fault: PostgresFault, _ load: LoadState) async {
        let email = "\(fault.rawValue)-\(worker)@example.com"
        let origins = [front, first, second]
        var turn = 0
        while !load.moments.withLock({ $0.done }) {
            let origin = origins[(worker + turn) % origins.count]
            let started = ContinuousClock.now
            let kind = turn % 6
            let newEmail = "\(fault.rawValue)-\(worker)-\(turn)@example.com"
            do {
                let answer: OutboundResponse
                switch kind {
                case 4: answer = try await signUp(origin, newEmail)
                case 5: answer = try await signIn(origin, email)
                default: answer = try await refresh(origin, load.ledger.withLock { $0.tokens[worker] ?? "" })
                }
                let ended = ContinuousClock.now
                let at = load.moments.withLock { $0 }
                load.ledger.withLock { ledger in
                    Self.record(answer, kind: kind, worker: worker, newEmail: newEmail, into: &ledger)
                    Self.time(
                        started: started, ended: ended, at, worker: worker, success: answer.status == 200, &ledger)
                }
            } catch {
                load.ledger.withLock { $0.broken = "worker \(worker): \(error)" }
                return
            }
            turn += 1
        }
    }

    /// Checks one load answer (a success, or `503 unavailable` with `Retry-After`) and records what it made.
    static func record(
        _ answer: OutboundResponse, kind: Int, worker: Int, newEmail: String, into ledger: inout LoadLedger
    ) {
        let what = ["refresh", "refresh", "refresh", "refresh", "sign-up", "sign-in"][kind]
        switch answer.status {
        case 200:
            ledger.successes += 1
            switch kind {
            case 4: ledger.signedUp[newEmail] = answer.json?["localId"]?.stringValue
            case 5: break
            default: ledger.tokens[worker] = answer.json?["refresh_token"]?.stringValue
            }
        case 503:
            ledger.unavailable += 1
            #expect(answer.errorCode == "unavailable", "\(what): 503 \(answer.errorCode ?? "")")
            #expect(answer.headers["Retry-After"] != nil, "\(what): a 503 without Retry-After")
            if kind == 4 { ledger.unanswered.append(newEmail) }
        default:
            // The code only, never the body: a success's body holds tokens, so no answer's is printed.
            let code = answer.errorCode ?? answer.json?["error"]?.stringValue ?? "no code"
            Issue.record("\(what) under load: \(answer.status) \(code), not 200 or 503")
        }
    }

    /// Records when a load request ran, relative to the fault.
    static func time(
        started: ContinuousClock.Instant, ended: ContinuousClock.Instant, _ at: FaultMoments, worker: Int,
        success: Bool, _ ledger: inout LoadLedger
    ) {
        if let restored = at.restored, started >= restored, success { ledger.afterRestore[worker, default: 0] += 1 }
        guard let fault = at.fault, ended > fault, at.restored.map({ started < $0 }) ?? true else { return }
        if started < fault { ledger.inFlightAtFault += 1 }
        if let faulted = at.faulted, started >= faulted { ledger.duringFault[worker, default: 0] += 1 }
        ledger.slowestUnderFault = max(ledger.slowestUnderFault, ended - max(started, fault))
    }

    /// After the load: the fault landed in it, no answer waited past the statement timeout plus slack, and everything a
    /// success answered is still there. The load's users and tokens join `state`, for the later steps to check again.
    func checkDurable(_ ledger: LoadLedger, _ fault: PostgresFault, _ state: inout MultiInstanceState) async throws {
        print(
            "PostgreSQL \(fault) mid-load: \(ledger.successes) successes, \(ledger.unavailable) 503s, "
                + "\(ledger.inFlightAtFault) in flight at the fault, the slowest answer \(ledger.slowestUnderFault)")
        #expect(ledger.inFlightAtFault > 0, "no request was in flight when PostgreSQL \(fault)")
        #expect(ledger.unavailable > 0, "no request met the fault")
        // A loaded two-core machine may deschedule a process for a while, and a sign-up or sign-in hashes too: 3 s.
        #expect(
            ledger.slowestUnderFault < Self.statementTimeout + .seconds(3),
            "an answer waited \(ledger.slowestUnderFault) with PostgreSQL \(fault)")
        var index = 0
        for (email, localID) in ledger.signedUp {
            index += 1
            let again = try await signIn(index % 2 == 0 ? first : second, email)
            #expect(again.status == 200 && again.json?["localId"]?.stringValue == localID, "\(email), answered, lost")
            state.users[email] = localID
        }
        for email in ledger.unanswered {
            // A 503 may come after the commit: then the account is there (409), else it can be made now.
            let again = try await signUp(front, email)
            #expect([200, 409].contains(again.status), "\(email) after its 503: \(again.status)")
            let signIn = try await signIn(front, email)
            #expect(signIn.status == 200, "\(email) after its 503 and a new sign-up: \(signIn.status)")
            state.users[email] = signIn.json?["localId"]?.stringValue
        }
        for worker in 0..<Self.loadWorkers {
            let answer = try await refresh(worker % 2 == 0 ? first : second, try #require(ledger.tokens[worker]))
            #expect(answer.status == 200, "worker \(worker)'s session lost: \(answer.status) \(answer.errorCode ?? "")")
            state.refreshTokens.append(try #require(answer.json?["refresh_token"]?.stringValue))
        }
    }
}
