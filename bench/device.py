#!/usr/bin/python3
"""Device sign-in under load (HTTP-API.md §3.9): N concurrent device authorizations, each polled at its interval.

Starts `serve` (SQLite store, github.com, device sign-in on with the default 5 s interval and a startRateLimit
that does not limit the one driver address), issues --codes (default 2,000) code pairs, then polls every code at
its interval for --seconds (default 30) as an RFC 8628 client does: the next poll of a code goes out `interval`
seconds after the previous answer arrived. Nobody signs in, so every answer should be `authorization_pending`;
anything else (a `slow_down` included) is counted as an error and fails the run.

Measured: the daemon's CPU (utime + stime from /proc/PID/stat) over the polling phase divided by the polls
answered, the poll latency (p50, p99), VmRSS before issuing and after polling. Driver: 32 threads, one kept-alive
HTTP/1.1 connection each (http.client), sharing the machine's cores with the daemon.

Prints `key value` lines (bench/run reads them). Standard library only (Debian's /usr/bin/python3).
"""

import argparse
import base64
import hashlib
import http.client
import json
import os
import secrets
import shutil
import sys
import tempfile
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from footprint import rss_kib, start  # noqa: E402  (the footprint benchmark's helpers)

GRANT = "urn:ietf:params:oauth:grant-type:device_code"
THREADS = 32


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def post(connection, path, fields):
    body = urllib.parse.urlencode(fields)
    connection.request("POST", path, body, {"Content-Type": "application/x-www-form-urlencoded"})
    response = connection.getresponse()
    return response.status, json.loads(response.read() or b"{}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--codes", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--binary", default=os.environ.get("AUTH_HANDLER_BINARY", ".build/release/auth-handler"))
    options = parser.parse_args()

    work = tempfile.mkdtemp(prefix="auth-handler-bench-device-")
    secret = os.path.join(work, "client-secret")
    with open(secret, "w") as f:
        f.write("bench-secret")
    config = {
        "listen": ["127.0.0.1:0"],
        "store": {"kind": "sqlite", "path": os.path.join(work, "state.sqlite")},
        "allowedRedirectURLs": ["http://127.0.0.1/app"],
        "backend": {"kind": "none"},
        "startRateLimit": {"perMinute": 10000000, "burst": 10000000},
        "providers": {"github.com": {"clientId": "bench", "clientSecret": {"file": secret}}},
        "deviceAuthorization": {"enabled": True},
    }
    path = os.path.join(work, "config.json")
    with open(path, "w") as f:
        json.dump(config, f)
    process, url = start([options.binary, "serve", "--config", path], "auth-handler listening on ", work, "serve")
    try:
        host, port = urllib.parse.urlsplit(url).hostname, urllib.parse.urlsplit(url).port
        time.sleep(2)
        rss_before = rss_kib(process.pid)
        verifier = secrets.token_urlsafe(32)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()

        codes = [None] * options.codes
        errors = []
        lock = threading.Lock()

        def issue(indices):
            connection = http.client.HTTPConnection(host, port, timeout=30)
            for index in indices:
                status, answer = post(connection, "/__/auth/device",
                                      {"providerId": "github.com", "resultChallenge": challenge})
                if status != 200:
                    with lock:
                        errors.append("issue %d %s" % (status, answer))
                    continue
                codes[index] = (answer["device_code"], answer["interval"])
            connection.close()

        shares = [range(i, options.codes, THREADS) for i in range(THREADS)]
        threads = [threading.Thread(target=issue, args=(share,)) for share in shares]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if errors:
            raise SystemExit("device bench: %d issues failed, e.g. %s" % (len(errors), errors[0]))

        latencies = []
        answers = {}
        deadline = time.monotonic() + options.seconds

        def poll(indices):
            connection = http.client.HTTPConnection(host, port, timeout=30)
            # Each code's next poll time; the first poll of each spread over its interval, as codes issued at
            # different times would be.
            due = {index: time.monotonic() + codes[index][1] * (position / max(1, len(indices)))
                   for position, index in enumerate(indices)}
            mine_latencies, mine_answers = [], {}
            while True:
                index = min(due, key=due.get)
                wait = due[index] - time.monotonic()
                if due[index] >= deadline:
                    break
                if wait > 0:
                    time.sleep(wait)
                began = time.monotonic()
                status, answer = post(connection, "/__/auth/device/token",
                                      {"grant_type": GRANT, "device_code": codes[index][0], "verifier": verifier})
                ended = time.monotonic()
                mine_latencies.append(ended - began)
                error = answer.get("error", str(status))
                mine_answers[error] = mine_answers.get(error, 0) + 1
                due[index] = ended + codes[index][1]
            connection.close()
            with lock:
                latencies.extend(mine_latencies)
                for key, count in mine_answers.items():
                    answers[key] = answers.get(key, 0) + count

        cpu_before = cpu_seconds(process.pid)
        began = time.monotonic()
        threads = [threading.Thread(target=poll, args=(share,)) for share in shares]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        took = time.monotonic() - began
        cpu = cpu_seconds(process.pid) - cpu_before
        rss_after = rss_kib(process.pid)
        polls = len(latencies)
        latencies.sort()
        pending = answers.get("authorization_pending", 0)
        print("codes %d" % options.codes)
        print("interval %d" % codes[0][1])
        print("polls %d" % polls)
        print("polls-per-second %.0f" % (polls / took))
        print("cpu-ms-per-poll %.3f" % (cpu * 1000 / max(1, polls)))
        print("cores %.2f" % (cpu / took))
        print("p50-ms %.2f" % (1000 * latencies[len(latencies) // 2]))
        print("p99-ms %.2f" % (1000 * latencies[int(len(latencies) * 0.99)]))
        print("rss-before-mib %.1f" % (rss_before / 1024))
        print("rss-after-mib %.1f" % (rss_after / 1024))
        print("errors %d" % (polls - pending))
        print("answers %s" % json.dumps(answers, sort_keys=True))
        if polls - pending:
            raise SystemExit("device bench: %d polls were not authorization_pending: %s" % (polls - pending, answers))
    finally:
        process.terminate()
        process.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
