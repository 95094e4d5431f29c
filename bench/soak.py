#!/usr/bin/python3
"""`make soak`: SOAK_SECONDS (default 600) of mixed traffic against one release `auth-handler serve` (SQLite store).

Traffic, from --workers threads plus two lanes of their own:
  sign-ins     every protocol through the fake IdP: google.com (OIDC, PKCE, nonce), twitter.com (OAuth 1.0a),
               github.com (OAuth 2 + userinfo), apple.com (OIDC, form_post); one in ten also replays its callback
               (cookie and all: 400 invalid-state) and one in ten redeems its code twice (400 invalid-result-code).
  failures     one thread queues a failure at a second fake IdP (only this lane uses it, so the failure is this
               sign-in's) and signs in with `oidc.flaky`: token errors, HTTP 500, bad or expired or unsigned ID tokens,
               a wrong nonce or audience or issuer, denial; each must end at the app with its error code. A key
               rotation (at most every 15 s) must still succeed.
  floods       one thread, now and then: 60 OAuth 1.0a starts at once from one client address (302 until its
               startRateLimit burst, then 429; 503 when the provider-call limit is full) and 60 callbacks with
               unknown state (400).
Every answer is classified: completed (a sign-in that should succeed did), expected failure (a refusal the traffic
asked for, with the right status and code), or unexpected (anything else: a 5xx, a wrong code, a foreign redirect,
a transport error). The daemon's RSS is sampled every second.

Writes REPORT_DIR/soak.md (counts, RSS figures, the first unexpected answers) and REPORT_DIR/soak-rss.svg; prints
the report. Exit status 1 when anything was unexpected. Standard library only (Debian's /usr/bin/python3).
"""

import argparse
import base64
import collections
import hashlib
import html.parser
import http.client
import json
import os
import random
import secrets
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

APP = "http://127.0.0.1/app"
DAEMON_PREFIX = "auth-handler listening on "
IDP_PREFIX = "fake-idp listening on "


class Unexpected(Exception):
    pass


class Tally:
    def __init__(self):
        self.lock = threading.Lock()
        self.counts = collections.Counter()
        self.unexpected = []

    def add(self, outcome, what):
        with self.lock:
            self.counts[(outcome, what)] += 1
            if outcome == "unexpected" and len(self.unexpected) < 20:
                self.unexpected.append(what)

    def total(self, outcome):
        with self.lock:
            return sum(count for (kind, _), count in self.counts.items() if kind == outcome)


class Browser:
    """One browser: keep-alive connections per origin, a cookie jar for the handler, an X-Forwarded-For address."""

    def __init__(self, handler_origin, address):
        self.connections = {}
        self.cookies = {}
        self.handler_origin = handler_origin
        self.address = address

    def request(self, method, url, body=None, accept=None):
        parts = urllib.parse.urlsplit(url)
        origin = (parts.hostname, parts.port or 80)
        target = parts.path + ("?" + parts.query if parts.query else "")
        headers = {"X-Forwarded-For": self.address}
        if accept:
            headers["Accept"] = accept
        to_handler = url.startswith(self.handler_origin)
        if to_handler and self.cookies:
            headers["Cookie"] = "; ".join(f"{name}={value}" for name, value in self.cookies.items())
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
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                connection.close()
                del self.connections[origin]
                if not reused or attempt == 1:
                    raise
        if response.getheader("Connection", "").lower() == "close":
            connection.close()
            self.connections.pop(origin, None)
        if to_handler:
            for header in response.msg.get_all("Set-Cookie") or []:
                pair = header.split(";", 1)[0]
                name, _, value = pair.partition("=")
                if "Max-Age=0" in header or not value:
                    self.cookies.pop(name, None)
                else:
                    self.cookies[name] = value
        return response, payload

    def close(self):
        for connection in self.connections.values():
            connection.close()


class FormPage(html.parser.HTMLParser):
    """The fake IdP's auto-submitting form_post page: its action and hidden fields."""

    def __init__(self):
        super().__init__()
        self.action = None
        self.fields = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.action = attrs.get("action")
        elif tag == "input" and attrs.get("type") == "hidden":
            self.fields.append((attrs.get("name", ""), attrs.get("value", "")))


def pkce():
    verifier = secrets.token_urlsafe(32)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def describe(step, response, payload):
    """Status, error code and Location host only: bodies and Locations may carry codes and tokens."""
    code = ""
    try:
        code = json.loads(payload).get("error", {}).get("code", "")
    except (ValueError, AttributeError):
        pass
    location = response.getheader("Location") or ""
    where = urllib.parse.urlsplit(location).netloc if location else ""
    return f"{step}: {response.status} {code} {where}".strip()


class SignIn:
    """One sign-in walked like a browser; `outcome` is ("code", CODE), ("error", CODE) or raises Unexpected."""

    def __init__(self, browser, daemon, idps, provider, user="alice"):
        self.browser, self.daemon, self.idps = browser, daemon, idps
        self.provider, self.user = provider, user
        self.verifier, self.challenge = pkce()
        self.callback = None

    def start(self):
        hint = "screen_name" if self.provider == "twitter.com" else "login_hint"
        query = urllib.parse.urlencode({
            "providerId": self.provider, "redirectUrl": APP, "resultChallenge": self.challenge,
            "customParameters": json.dumps({hint: self.user}), "eventId": secrets.token_hex(8)})
        return self.browser.request("GET", f"{self.daemon}/__/auth/handler?{query}", accept="application/json")

    def run(self):
        response, payload = self.start()
        if response.status != 302:
            raise Unexpected(describe(f"{self.provider} start", response, payload))
        url = response.getheader("Location")
        for _ in range(4):
            if not any(url.startswith(idp) for idp in self.idps):
                raise Unexpected(f"{self.provider} start: redirect to a foreign host {urllib.parse.urlsplit(url).netloc}")
            response, payload = self.browser.request("GET", url)
            if response.status == 302:
                url = response.getheader("Location")
                if url.startswith(self.daemon):
                    self.callback = ("GET", url, None)
                    break
            elif response.status == 200 and b"document.forms[0].submit()" in payload:
                page = FormPage()
                page.feed(payload.decode())
                if not page.action or not page.action.startswith(self.daemon):
                    raise Unexpected(f"{self.provider} form_post: action elsewhere")
                self.callback = ("POST", page.action, urllib.parse.urlencode(page.fields))
                break
            else:
                raise Unexpected(describe(f"{self.provider} IdP", response, payload))
        if self.callback is None:
            raise Unexpected(f"{self.provider}: the IdP never sent the browser back")
        return self.deliver()

    def deliver(self):
        method, url, body = self.callback
        self.pending_cookies = dict(self.browser.cookies)
        response, payload = self.browser.request(method, url, body=body)
        location = response.getheader("Location") or ""
        if response.status != 303 or not location.startswith(APP + "?"):
            raise Unexpected(describe(f"{self.provider} callback", response, payload))
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))
        if "code" in query:
            return ("code", query["code"])
        return ("error", query.get("error", "none"))

    def redeem(self, code):
        body = urllib.parse.urlencode({"code": code, "verifier": self.verifier})
        return self.browser.request("POST", f"{self.daemon}/__/auth/result", body=body, accept="application/json")


def expect_refusal(tally, what, response, payload, status, code):
    try:
        actual = json.loads(payload).get("error", {}).get("code")
    except (ValueError, AttributeError):
        actual = None
    if response.status == status and actual == code:
        tally.add("expected", what)
    else:
        tally.add("unexpected", describe(what, response, payload) + f" (wanted {status} {code})")


def sign_in_worker(args, tally, daemon, idp, stop, index):
    providers = ["google.com", "twitter.com", "github.com", "apple.com"]
    rng = random.Random(index)
    while not stop.is_set():
        browser = Browser(daemon, f"10.1.{index // 250}.{index % 250 + 1}")
        provider = rng.choice(providers)
        user = rng.choice(["alice", "bob"])
        flow = SignIn(browser, daemon, [idp], provider, user)
        try:
            outcome, value = flow.run()
            if outcome != "code":
                tally.add("unexpected", f"{provider}: callback error={value}")
                continue
            if rng.random() < 0.1:
                # The same callback again, cookie and all (the handler cleared it; send it back as a replayer would).
                flow.browser.cookies = dict(flow.pending_cookies)
                response, payload = flow.browser.request(flow.callback[0], flow.callback[1], body=flow.callback[2],
                                                         accept="application/json")
                expect_refusal(tally, f"{provider} replayed callback", response, payload, 400, "invalid-state")
            response, payload = flow.redeem(value)
            body = json.loads(payload) if response.status == 200 else {}
            if response.status == 200 and body.get("providerId") == provider and user in json.dumps(body.get("profile")):
                tally.add("completed", provider)
            else:
                tally.add("unexpected", describe(f"{provider} redeem", response, payload))
            if rng.random() < 0.1:
                response, payload = flow.redeem(value)
                expect_refusal(tally, f"{provider} redeemed twice", response, payload, 400, "invalid-result-code")
        except Unexpected as error:
            tally.add("unexpected", str(error))
        except (OSError, http.client.HTTPException) as error:
            tally.add("unexpected", f"{provider}: {type(error).__name__}: {error}")
        finally:
            browser.close()


FAILURES = [
    ({"endpoint": "oidc/token", "kind": "oauth-error", "error": "invalid_grant"}, "provider-error"),
    ({"endpoint": "oidc/token", "kind": "http-status", "status": 500}, "provider-error"),
    ({"endpoint": "oidc/token", "kind": "bad-signature"}, "provider-error"),
    ({"endpoint": "oidc/token", "kind": "wrong-nonce"}, "provider-error"),
    ({"endpoint": "oidc/token", "kind": "wrong-aud"}, "provider-error"),
    ({"endpoint": "oidc/token", "kind": "wrong-iss"}, "provider-error"),
    ({"endpoint": "oidc/token", "kind": "expired-id-token"}, "provider-error"),
    ({"endpoint": "oidc/token", "kind": "unsigned-id-token"}, "provider-error"),
    ({"endpoint": "oidc/authorize", "kind": "oauth-error", "error": "access_denied"}, "user-cancelled"),
    ({"endpoint": "oidc/authorize", "kind": "wrong-iss"}, "provider-error"),
    ({"endpoint": "oidc/token", "kind": "rotate-keys"}, None),
    (None, "user-cancelled"),  # the user denies at the login page (login_hint=deny)
]


def control(url, method, path, body=None):
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        connection.request(method, path, body=json.dumps(body) if body is not None else None,
                           headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def failure_worker(args, tally, daemon, flaky_idp, stop):
    rng = random.Random(99)
    last_rotation = -60.0
    while not stop.is_set():
        failure, expected = rng.choice(FAILURES)
        if failure and failure["kind"] == "rotate-keys":
            # The handler refetches a key set at most every 10 s for an unknown kid (docs/ARCHITECTURE.md, JWKSCache):
            # a real IdP rotates far less often, so rotate no more than every 15 s.
            if time.monotonic() - last_rotation < 15:
                continue
            last_rotation = time.monotonic()
        name = failure["kind"] + " at " + failure["endpoint"] if failure else "denial"
        browser = Browser(daemon, "10.2.0.1")
        try:
            if failure and control(flaky_idp, "POST", "/__fake/failures", failure) != 200:
                tally.add("unexpected", f"queueing {name} was refused")
                continue
            flow = SignIn(browser, daemon, [flaky_idp], "oidc.flaky", "deny" if failure is None else "alice")
            outcome, value = flow.run()
            if expected is None:
                response, payload = flow.redeem(value) if outcome == "code" else (None, b"")
                if outcome == "code" and response.status == 200:
                    tally.add("completed", f"oidc.flaky after {name}")
                else:
                    tally.add("unexpected", f"oidc.flaky after {name}: {outcome} {value if outcome == 'error' else ''}")
            elif outcome == "error" and value == expected:
                tally.add("expected", f"{name} → {expected}")
            else:
                tally.add("unexpected", f"{name}: wanted {expected}, got {outcome} {value if outcome == 'error' else ''}")
        except Unexpected as error:
            tally.add("unexpected", f"{name}: {error}")
        except (OSError, http.client.HTTPException) as error:
            tally.add("unexpected", f"{name}: {type(error).__name__}: {error}")
        finally:
            browser.close()
            control(flaky_idp, "DELETE", "/__fake/failures")


def flood_worker(args, tally, daemon, idp, stop):
    round_number = 0
    while not stop.wait(5):
        round_number += 1
        # 60 OAuth 1.0a starts from one client address, 6 threads at once.
        address = f"10.3.{round_number // 250}.{round_number % 250 + 1}"
        statuses = collections.Counter()
        lock = threading.Lock()

        def starts():
            browser = Browser(daemon, address)
            try:
                for _ in range(10):
                    response, payload = SignIn(browser, daemon, [idp], "twitter.com").start()
                    location = response.getheader("Location") or ""
                    ok = (response.status == 302 and location.startswith(idp)) or response.status in (429, 503)
                    with lock:
                        statuses[response.status if ok else f"bad {describe('flood start', response, payload)}"] += 1
            except (OSError, http.client.HTTPException) as error:
                with lock:
                    statuses[f"bad {type(error).__name__}"] += 1
            finally:
                browser.close()

        threads = [threading.Thread(target=starts) for _ in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for status, count in statuses.items():
            for _ in range(count):
                if isinstance(status, str):
                    tally.add("unexpected", status)
                elif status == 302:
                    tally.add("completed", "flood start within the burst")
                else:
                    tally.add("expected", f"flood start → {status}")
        if statuses[429] == 0:
            tally.add("unexpected", "a flood of 60 OAuth 1.0a starts from one client was never limited (no 429)")
        # 60 callbacks with unknown state.
        browser = Browser(daemon, address)
        try:
            for _ in range(60):
                state = secrets.token_urlsafe(24)
                response, payload = browser.request(
                    "GET", f"{daemon}/__/auth/handler?state={state}&code=x", accept="application/json")
                expect_refusal(tally, "unknown-state callback", response, payload, 400, "invalid-state")
        except (OSError, http.client.HTTPException) as error:
            tally.add("unexpected", f"unknown-state callback: {type(error).__name__}: {error}")
        finally:
            browser.close()


def start_process(command, prefix, log):
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log, text=True,
                               env={k: v for k, v in os.environ.items() if not k.startswith("AUTH_HANDLER_")})
    for line in process.stdout:
        if line.startswith(prefix):
            threading.Thread(target=lambda: [None for _ in process.stdout], daemon=True).start()
            return process, line[len(prefix):].strip()
    raise SystemExit(f"soak: {command[1]} exited without printing {prefix!r}")


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def svg(samples, seconds):
    """RSS (MiB) over time (s) as a small line chart."""
    width, height, left, bottom, top, right = 640, 240, 50, 30, 15, 15
    top_mib = max(value for _, value in samples) * 1.2
    x = lambda t: left + (width - left - right) * t / max(seconds, 1)
    y = lambda v: height - bottom - (height - bottom - top) * v / top_mib
    points = " ".join(f"{x(t):.1f},{y(v):.1f}" for t, v in samples)
    ticks = []
    for i in range(5):
        value = top_mib * i / 4
        ticks.append(f'<text x="{left - 6}" y="{y(value) + 4:.1f}" text-anchor="end">{value:.0f}</text>'
                     f'<line x1="{left}" x2="{width - right}" y1="{y(value):.1f}" y2="{y(value):.1f}" stroke="#ddd"/>')
        t = seconds * i / 4
        ticks.append(f'<text x="{x(t):.1f}" y="{height - bottom + 16}" text-anchor="middle">{t:.0f}</text>')
    return f"""<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="11">
<rect width="{width}" height="{height}" fill="white"/>
{''.join(ticks)}
<text x="{left}" y="{top - 3}">auth-handler serve RSS (MiB) over the soak (seconds)</text>
<polyline fill="none" stroke="#1f6feb" stroke-width="1.5" points="{points}"/>
</svg>
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=float(os.environ.get("SOAK_SECONDS", 600)))
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--bin-dir", default=".build/release")
    parser.add_argument("--report-dir", default="bench")
    args = parser.parse_args()
    binary = os.path.join(args.bin_dir, "auth-handler")

    with tempfile.TemporaryDirectory() as work:
        log = open(os.path.join(work, "servers.log"), "w")
        idp_process, idp = start_process([binary, "fake-idp", "--listen", "127.0.0.1:0"], IDP_PREFIX, log)
        flaky_process, flaky_idp = start_process([binary, "fake-idp", "--listen", "127.0.0.1:0"], IDP_PREFIX, log)
        for name, value in (("client-secret", "fake-client-secret"), ("consumer-secret", "fake-consumer-secret")):
            with open(os.path.join(work, name), "w") as f:
                f.write(value)
        secret = lambda name: {"file": os.path.join(work, name)}
        config = {
            "listen": ["127.0.0.1:0"],
            "store": {"kind": "sqlite", "path": os.path.join(work, "state.sqlite")},
            "allowedRedirectURLs": [APP],
            "backend": {"kind": "none"},
            "providerTimeoutSeconds": 5,
            "trustedProxies": ["127.0.0.1/32"],
            "startRateLimit": {"perMinute": 600, "burst": 20},
            "providers": {
                "google.com": {"clientId": "fake-client-id", "clientSecret": secret("client-secret"),
                               "issuer": idp + "/oidc"},
                "twitter.com": {"consumerKey": "fake-consumer-key", "consumerSecret": secret("consumer-secret"),
                                "endpoints": {"requestToken": idp + "/oauth1/request_token",
                                              "authorize": idp + "/oauth1/authenticate",
                                              "accessToken": idp + "/oauth1/access_token",
                                              "profile": idp + "/oauth1/account/verify_credentials.json?include_email=true"}},
                "github.com": {"clientId": "fake-client-id", "clientSecret": secret("client-secret"),
                               "endpoints": {"authorization": idp + "/oidc/authorize", "token": idp + "/oidc/token",
                                             "userInfo": idp + "/oidc/userinfo"}},
                "apple.com": {"clientId": "fake-client-id", "clientSecret": secret("client-secret"),
                              "issuer": idp + "/oidc", "responseMode": "form_post"},
                "oidc.flaky": {"protocol": "oidc", "clientId": "fake-client-id", "clientSecret": secret("client-secret"),
                               "issuer": flaky_idp + "/oidc"},
            },
        }
        with open(os.path.join(work, "config.json"), "w") as f:
            json.dump(config, f)
        daemon_process, daemon = start_process([binary, "serve", "--config", os.path.join(work, "config.json")],
                                               DAEMON_PREFIX, log)
        tally = Tally()
        stop = threading.Event()
        threads = [threading.Thread(target=sign_in_worker, args=(args, tally, daemon, idp, stop, i))
                   for i in range(args.workers)]
        threads.append(threading.Thread(target=failure_worker, args=(args, tally, daemon, flaky_idp, stop)))
        threads.append(threading.Thread(target=flood_worker, args=(args, tally, daemon, idp, stop)))
        began = time.monotonic()
        samples = [(0.0, rss_mib(daemon_process.pid))]
        for thread in threads:
            thread.start()
        try:
            while time.monotonic() - began < args.seconds:
                time.sleep(1)
                elapsed = time.monotonic() - began
                samples.append((elapsed, rss_mib(daemon_process.pid)))
                if int(elapsed) % 10 == 0:
                    # The fake IdPs keep every request they received: forget them, so they stay flat too.
                    for url in (idp, flaky_idp):
                        control(url, "DELETE", "/__fake/requests")
                if daemon_process.poll() is not None:
                    tally.add("unexpected", f"the daemon exited with status {daemon_process.returncode}")
                    break
        finally:
            stop.set()
            for thread in threads:
                thread.join()
            healthy = False
            try:
                browser = Browser(daemon, "10.9.9.9")
                response, _ = browser.request("GET", daemon + "/healthz")
                healthy = response.status == 200
            except OSError:
                pass
            if not healthy:
                tally.add("unexpected", "the daemon did not answer /healthz after the soak")
            for process in (daemon_process, idp_process, flaky_process):
                process.terminate()
                process.wait()
        elapsed = time.monotonic() - began

    os.makedirs(args.report_dir, exist_ok=True)
    with open(os.path.join(args.report_dir, "soak-rss.svg"), "w") as f:
        f.write(svg(samples, elapsed))
    completed, expected, unexpected = (tally.total(kind) for kind in ("completed", "expected", "unexpected"))
    after_warmup = [value for t, value in samples if t >= min(60, elapsed / 5)] or [samples[-1][1]]
    lines = [
        f"Soak: {elapsed:.0f} s of mixed traffic on {os.cpu_count()} cores, {args.workers} sign-in threads plus a "
        f"failure lane and a flood lane ({time.strftime('%Y-%m-%d', time.gmtime())}).",
        "",
        "| outcome | count |",
        "| --- | --- |",
        f"| completed (sign-ins and starts that should succeed) | {completed} |",
        f"| failed as expected (refusals and IdP failures the traffic asked for) | {expected} |",
        f"| **unexpected** | **{unexpected}** |",
        "",
        f"RSS: {samples[0][1]:.1f} MiB at the start, {after_warmup[0]:.1f} MiB after warm-up, "
        f"{max(value for _, value in samples):.1f} MiB at most, {samples[-1][1]:.1f} MiB at the end "
        f"(plot: `{args.report_dir}/soak-rss.svg`).",
        "",
        "By kind:",
        "",
    ]
    for (kind, what), count in sorted(tally.counts.items(), key=lambda item: (item[0][0], -item[1])):
        if kind != "unexpected":
            lines.append(f"- {kind}: {what}: {count}")
    if tally.unexpected:
        lines += ["", "First unexpected answers:", ""] + [f"- {what}" for what in tally.unexpected]
    report = "\n".join(lines) + "\n"
    with open(os.path.join(args.report_dir, "soak.md"), "w") as f:
        f.write(report)
    print(report)
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
