#!/usr/bin/python3
"""Drives complete sign-ins against auth-handler (or anything that answers like it) for a number of seconds.

One sign-in is what a browser and an app do (CONTRACT §3):
  1. GET START_URL?...&resultChallenge=C                  -> 302 to the IdP, Set-Cookie (the sealed sign-in)
  2. GET the IdP's authorize URL (login_hint auto-approves) -> 302 to the handler with code and state
  3. GET the callback with the cookie                       -> 303 to redirectUrl?code=RESULT_CODE
  4. POST /__/auth/result code=RESULT_CODE&verifier=V       -> 200
Every step is checked; the first failure stops the run with the answer on stderr and exit status 1.

Standard library only (Debian's /usr/bin/python3). Each of --processes processes runs concurrency/processes
threads, and each thread keeps one keep-alive http.client connection per origin. Prints one line:
  SIGNINS_PER_SECOND P99 DRIVER_CPU_CORES COMPLETED
(P99 of a whole sign-in, like wrk's "12.34ms"; DRIVER_CPU_CORES = the driver's user+system CPU time / wall time).
"""

import argparse
import base64
import hashlib
import http.client
import multiprocessing
import os
import secrets
import sys
import threading
import time
import urllib.parse

CUSTOM_PARAMETERS = '{"login_hint":"alice"}'


class SignInFailed(Exception):
    pass


class Browser:
    """One thread's connections (one per origin, kept alive) and the sign-in it is walking."""

    def __init__(self):
        self.connections = {}

    def request(self, method, url, body=None, headers=None):
        parts = urllib.parse.urlsplit(url)
        origin = (parts.hostname, parts.port or 80)
        target = parts.path + ("?" + parts.query if parts.query else "")
        headers = dict(headers or {})
        if body is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        for attempt in (0, 1):
            connection = self.connections.get(origin)
            reused = connection is not None
            if connection is None:
                connection = http.client.HTTPConnection(*origin, timeout=30)
                self.connections[origin] = connection
            try:
                connection.request(method, target, body=body, headers=headers)
                response = connection.getresponse()
                payload = response.read()
                if response.getheader("Connection", "").lower() == "close":
                    connection.close()
                    del self.connections[origin]
                return response, payload
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                # A kept-alive connection the server closed while idle: reconnect once.
                connection.close()
                del self.connections[origin]
                if not reused or attempt == 1:
                    raise
        raise AssertionError("unreachable")


def expect(condition, step, response, payload, url):
    if not condition:
        headers = "".join(f"{name}: {value}\n" for name, value in response.getheaders())
        raise SignInFailed(
            f"{step}: {url}\n-> {response.status} {response.reason}\n{headers}\n{payload[:500].decode(errors='replace')}"
        )


def sign_in(browser, start_url, redirect_url):
    verifier = secrets.token_urlsafe(32)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    url = start_url + "&" + urllib.parse.urlencode(
        {"redirectUrl": redirect_url, "resultChallenge": challenge, "customParameters": CUSTOM_PARAMETERS}
    )
    response, payload = browser.request("GET", url)
    cookies = [value.split(";", 1)[0] for value in response.msg.get_all("Set-Cookie") or []]
    location = response.getheader("Location", "")
    expect(response.status == 302 and cookies and location, "start", response, payload, url)

    url = location
    response, payload = browser.request("GET", url)
    callback = response.getheader("Location", "")
    expect(response.status == 302 and "code=" in callback, "IdP authorize", response, payload, url)

    url = callback
    response, payload = browser.request("GET", url, headers={"Cookie": "; ".join(cookies)})
    back = response.getheader("Location", "")
    expect(response.status == 303 and back.startswith(redirect_url + "?"), "callback", response, payload, url)
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(back).query))
    expect("code" in query, "callback (no code for the app)", response, payload, url)

    parts = urllib.parse.urlsplit(start_url)
    url = f"{parts.scheme}://{parts.netloc}/__/auth/result"
    body = urllib.parse.urlencode({"code": query["code"], "verifier": verifier})
    response, payload = browser.request("POST", url, body=body)
    expect(response.status == 200, "redeem", response, payload, url)


def worker_process(args, threads, begin_at, results):
    """Runs `threads` threads from `begin_at` for args.seconds; sends (latencies, error) to `results`."""
    latencies = []
    errors = []
    lock = threading.Lock()
    end_at = begin_at + args.seconds

    def run():
        browser = Browser()
        mine = []
        try:
            time.sleep(max(0.0, begin_at - time.time()))
            while True:
                began = time.monotonic()
                sign_in(browser, args.start_url, args.redirect_url)
                if time.time() > end_at:
                    break
                mine.append(time.monotonic() - began)
        except Exception as error:  # noqa: BLE001 - every failure is reported
            with lock:
                errors.append(f"{type(error).__name__}: {error}")
        with lock:
            latencies.extend(mine)

    workers = [threading.Thread(target=run) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    results.put((latencies, errors[0] if errors else None))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("start_url", help="e.g. http://127.0.0.1:PORT/__/auth/handler?providerId=google.com")
    parser.add_argument("redirect_url", help="the app's redirectUrl (in allowedRedirectURLs)")
    parser.add_argument("--seconds", type=float, default=3)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args()

    # One sign-in first: it warms the daemon's discovery and JWKS caches, and a broken setup fails here, clearly.
    try:
        sign_in(Browser(), args.start_url, args.redirect_url)
    except Exception as error:  # noqa: BLE001
        print(f"signin driver: the first sign-in failed: {error}", file=sys.stderr)
        return 1

    results = multiprocessing.Queue()
    begin_at = time.time() + 0.5
    per_process = [args.concurrency // args.processes + (i < args.concurrency % args.processes) for i in range(args.processes)]
    cpu_before = os.times()
    wall_before = time.monotonic()
    processes = [
        multiprocessing.Process(target=worker_process, args=(args, threads, begin_at, results))
        for threads in per_process
        if threads > 0
    ]
    for process in processes:
        process.start()
    collected = [results.get() for _ in processes]
    for process in processes:
        process.join()
    cpu_after = os.times()
    wall = time.monotonic() - wall_before

    failures = [error for _, error in collected if error]
    if failures:
        print(f"signin driver: {len(failures)} process(es) saw a failed sign-in; the first:\n{failures[0]}", file=sys.stderr)
        return 1
    latencies = sorted(latency for batch, _ in collected for latency in batch)
    if not latencies:
        print("signin driver: no sign-in completed within the run", file=sys.stderr)
        return 1
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    cpu = (cpu_after.children_user - cpu_before.children_user) + (cpu_after.children_system - cpu_before.children_system)
    print(f"{len(latencies) / args.seconds:.0f} {p99 * 1000:.2f}ms {cpu / wall:.2f} {len(latencies)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
