import CCurl
import CHTTPShims
import Foundation
import Synchronization

/// One thread driving a libcurl multi handle: it adds submitted transfers, runs `curl_multi_perform`, and sleeps
/// in `curl_multi_poll` until a socket is ready, a timer fires, or `curl_multi_wakeup` signals new work.
///
/// `@unchecked Sendable`: `multi` and `active` are used only by the loop thread; `inbox` is a mutex; other
/// threads call only `curl_multi_wakeup`, which libcurl documents as thread-safe, and only while holding `inbox`,
/// so it never races `curl_multi_cleanup` (which happens after `inbox.closed` is set under the same lock).
final class CurlEventLoop: @unchecked Sendable {
    private struct Inbox {
        var added: [CurlTransfer] = []
        var cancellationRequested = false
        var shuttingDown = false
        var closed = false
    }

    private let multi: UnsafeMutableRawPointer
    private let inbox = Mutex(Inbox())
    /// Transfers whose easy handle is in the multi handle; the entry is what keeps each alive for its callbacks.
    private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]

    init() throws(HTTPClientError) {
        guard let multi = curl_multi_init() else {
            throw HTTPClientError(
                kind: .setup(operation: "curl_multi_init", code: 0, text: "out of memory"), method: "-", target: "-")
        }
        self.multi = multi
    }

    /// Starts the loop thread; it keeps this object alive until `shutDown` lets it finish.
    func start() {
        let thread = Thread { self.run() }
        thread.name = "auth-handler-curl"
        thread.start()
    }

    /// Hands a transfer to the loop; fails it at once when the loop is shutting down.
    func submit(_ transfer: CurlTransfer) {
        let accepted = inbox.withLock { inbox in
            guard !inbox.shuttingDown else { return false }
            inbox.added.append(transfer)
            curl_multi_wakeup(multi)
            return true
        }
        if !accepted { transfer.fail(transfer.shutDownError) }
    }

    /// Asks the loop to abandon `transfer` and resume its caller with `CancellationError`.
    func cancel(_ transfer: CurlTransfer) {
        transfer.cancelled.store(true, ordering: .releasing)
        inbox.withLock { inbox in
            guard !inbox.closed else { return }
            inbox.cancellationRequested = true
            curl_multi_wakeup(multi)
        }
    }

    /// Fails every pending transfer with `shutDown` and ends the thread.
    func shutDown() {
        inbox.withLock { inbox in
            guard !inbox.closed else { return }
            inbox.shuttingDown = true
            curl_multi_wakeup(multi)
        }
    }

    private func run() {
        while true {
            let (added, cancellationRequested, shuttingDown) = inbox.withLock { inbox in
                defer {
                    inbox.added = []
                    inbox.cancellationRequested = false
                }
                return (inbox.added, inbox.cancellationRequested, inbox.shuttingDown)
            }
            for transfer in added { add(transfer) }
            if cancellationRequested {
                for (handle, transfer) in active where transfer.cancelled.load(ordering: .acquiring) {
                    remove(handle)
                    transfer.fail(CancellationError())
                }
            }
            if shuttingDown { break }
            var running: Int32 = 0
            let performCode = curl_multi_perform(multi, &running)
            if performCode != CURLM_OK { failAll(operation: "curl_multi_perform", code: performCode) }
            finishCompletedTransfers()
            // Why a timeout at all: curl_multi_poll also sleeps until curl's next internal timer; 1 s is a
            // backstop, libcurl shortens it to its own timeout (https://curl.se/libcurl/c/curl_multi_poll.html).
            let pollCode = curl_multi_poll(multi, nil, 0, 1000, nil)
            if pollCode != CURLM_OK { failAll(operation: "curl_multi_poll", code: pollCode) }
        }
        for (handle, transfer) in active {
            remove(handle)
            transfer.fail(transfer.shutDownError)
        }
        let leftovers = inbox.withLock { inbox in
            inbox.closed = true
            return inbox.added
        }
        for transfer in leftovers { transfer.fail(transfer.shutDownError) }
        curl_multi_cleanup(multi)
    }

    private func add(_ transfer: CurlTransfer) {
        guard !transfer.cancelled.load(ordering: .acquiring) else {
            transfer.fail(CancellationError())
            return
        }
        let code = curl_multi_add_handle(multi, transfer.easy.raw)
        guard code == CURLM_OK else {
            transfer.fail(
                transfer.setupError(
                    "curl_multi_add_handle", code: Int(code.rawValue), text: String(cString: curl_multi_strerror(code)))
            )
            return
        }
        active[transfer.easy.raw] = transfer
    }

    private func remove(_ handle: UnsafeMutableRawPointer) {
        // Fails only for a handle not in this multi handle, which `active` rules out.
        _ = curl_multi_remove_handle(multi, handle)
        active[handle] = nil
    }

    private func finishCompletedTransfers() {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                let transfer = active[handle]
            else { continue }
            // Read before curl_multi_remove_handle, which invalidates the message.
            let result = message.pointee.data.result
            remove(handle)
            transfer.complete(result)
        }
    }

    private func failAll(operation: String, code: CURLMcode) {
        let text = String(cString: curl_multi_strerror(code))
        for (handle, transfer) in active {
            remove(handle)
            transfer.fail(transfer.setupError(operation, code: Int(code.rawValue), text: text))
        }
    }
}
