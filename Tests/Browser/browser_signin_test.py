#!/usr/bin/python3
"""Real-browser sign-in tests: headless Chromium (WebDriver) against `auth-handler serve` and `auth-handler fake-idp`.

Run with Debian's /usr/bin/python3 (it has python3-selenium); `make browser-test` builds and runs it.
Every server is started here on 127.0.0.1:0 and found through its "listening on" line; every process and
browser is stopped at the end, also on failure. Nothing but loopback is contacted: Chromium's host resolver
maps every name but `localhost` (and the literal 127.0.0.1) to NOTFOUND, and its background services are switched off.

Two sites. The handler is browsed as `127.0.0.1` (its publicURL is the bound address, the default) and the
fake IdP's browser-facing pages as `localhost`, so every hop between them is cross-site and Chromium applies
its SameSite rules as it would in production. This way round because the fake IdP only accepts redirect URIs
on 127.0.0.1/[::1] and sends `iss` = its bound address + "/oidc", and because the handler's port is known
only after it binds: a `localhost` publicURL would have to be written into its config before that (race).
So the OIDC providers keep `issuer` = http://127.0.0.1:Q/oidc (discovery, token, userinfo, JWKS and the
RFC 9207 `iss` check all stay on 127.0.0.1, server to server) and override only the browser-facing
`endpoints.authorization` with http://localhost:Q/oidc/authorize; the registry keeps explicit endpoints
and lets discovery fill the rest. Twitter's `authorize` is on localhost likewise. The fake IdP's login
form posts to a relative path, so the user stays on localhost until the IdP sends the browser back.

Prints one line per case, the Set-Cookie names (never values) each case saw, and a closing line
`N passed, N failed`; exits 1 on any failure. Chromium or chromedriver not starting is a failure.
"""

import base64
import ctypes
import glob
import hashlib
import http.server
import json
import os
import re
import secrets
import shlex
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.parse
import urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("AUTH_HANDLER_BINARY", os.path.join(REPO, ".build", "debug", "auth-handler"))
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
# Debian's /usr/bin/chromium is a shell wrapper that adds flags from /etc/chromium.d; run the binary itself.
CHROMIUM = os.environ.get(
    "CHROMIUM", "/usr/lib/chromium/chromium" if os.path.exists("/usr/lib/chromium/chromium") else "/usr/bin/chromium")
STEP_TIMEOUT = 20  # seconds for any one wait: a server's first line, a page, a redirect
USERS = {"alice": "alice@example.com", "bob": "bob@example.com"}


class TestFailure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise TestFailure(message)


# MARK: processes


def _die_with_parent():
    """In the child before exec: SIGTERM it when this test process dies, even by SIGKILL (prctl PR_SET_PDEATHSIG)."""
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM, 0, 0, 0)


class ServerProcess:
    """A child process whose stdout is read line by line on a thread; stderr goes to a file, shown on failure.
    With `stop_by_stdin`, its stdin is a pipe and stop() closes it first (the child ends itself when its stdin ends),
    else stop() sends SIGTERM."""

    def __init__(self, name, argv, directory, stop_by_stdin=False):
        self.name = name
        self.stderr_path = os.path.join(directory, name + ".stderr")
        self.lines = []
        self.closed = False
        self.changed = threading.Condition()
        stdin = subprocess.PIPE if stop_by_stdin else subprocess.DEVNULL
        with open(self.stderr_path, "wb") as stderr:
            self.process = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.PIPE, stderr=stderr,
                                            preexec_fn=_die_with_parent)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for raw in self.process.stdout:
            with self.changed:
                self.lines.append(raw.decode("utf-8", "replace").rstrip("\n"))
                self.changed.notify_all()
        with self.changed:
            self.closed = True
            self.changed.notify_all()

    def wait_for_line(self, prefix, anywhere=False):
        """The rest of the first stdout line starting with `prefix` (or, `anywhere`, holding it); fails when the
        process exits or is silent."""
        deadline = time.monotonic() + STEP_TIMEOUT
        with self.changed:
            while True:
                for line in self.lines:
                    if line.startswith(prefix) or (anywhere and prefix in line):
                        return line[line.index(prefix) + len(prefix):].strip()
                remaining = deadline - time.monotonic()
                if self.closed or remaining <= 0:
                    break
                self.changed.wait(remaining)
        self.stop()
        raise TestFailure(
            "%s did not print %r within %d s (exit status %s); stderr: %s"
            % (self.name, prefix, STEP_TIMEOUT, self.process.poll(), self.stderr_tail()))

    def stderr_tail(self, limit=2000):
        try:
            with open(self.stderr_path, "rb") as handle:
                return handle.read().decode("utf-8", "replace")[-limit:]
        except OSError:
            return ""

    def stop(self):
        if self.process.stdin:
            self.process.stdin.close()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                pass
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class AppServer:
    """The app behind redirectUrl: records the code / eventId / error each sign-in brings back."""

    def __init__(self):
        self.arrivals = {}  # eventId -> the query it arrived with
        self.changed = threading.Condition()
        app = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                url = urllib.parse.urlsplit(self.path)
                if url.path != "/app":
                    self.send_error(404)
                    return
                query = dict(urllib.parse.parse_qsl(url.query))
                with app.changed:
                    app.arrivals.setdefault(query.get("eventId", ""), []).append(query)
                    app.changed.notify_all()
                outcome = "error: " + query["error"] if "error" in query else "signed in" if "code" in query else "?"
                body = ("<!doctype html><title>app</title><p id=\"outcome\">%s</p>" % outcome).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *arguments):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d/app" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait_for(self, event_id):
        """The query of the first arrival carrying `event_id`."""
        deadline = time.monotonic() + STEP_TIMEOUT
        with self.changed:
            while event_id not in self.arrivals:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TestFailure("the browser did not reach the app with eventId %s within %d s"
                                      % (event_id, STEP_TIMEOUT))
                self.changed.wait(remaining)
            return self.arrivals[event_id][0]

    def arrived(self, event_id):
        with self.changed:
            return event_id in self.arrivals

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


class Servers:
    """The fake IdP, the handler and the app, all on 127.0.0.1:0."""

    def __init__(self):
        self.directory = tempfile.mkdtemp(prefix="auth-handler-browser-")
        self.processes = []
        self.app = None

    def start(self):
        check(os.access(BINARY, os.X_OK), "%s is not built; run `swift build` first" % BINARY)
        idp = self._spawn("fake-idp", [BINARY, "fake-idp", "--listen", "127.0.0.1:0"])
        self.idp_url = idp.wait_for_line("fake-idp listening on ")
        port = urllib.parse.urlsplit(self.idp_url).port
        check(urllib.parse.urlsplit(self.idp_url).hostname == "127.0.0.1" and port,
              "unexpected fake IdP address %s" % self.idp_url)
        self.idp_browser_url = "http://localhost:%d" % port  # the same server, browsed as another site
        self.app = AppServer()
        config = os.path.join(self.directory, "config.json")
        with open(config, "w") as handle:
            json.dump(self._config(), handle, indent=2)
        handler = self._spawn("auth-handler", [BINARY, "serve", "--config", config])
        self.handler_url = handler.wait_for_line("auth-handler listening on ")
        check(self.handler_url.startswith("http://127.0.0.1:"), "unexpected handler address %s" % self.handler_url)
        self.handler = handler

    def _spawn(self, name, argv):
        process = ServerProcess(name, argv, self.directory)
        self.processes.append(process)
        return process

    def _secret(self, name, value):
        path = os.path.join(self.directory, name)
        with open(path, "w") as handle:
            handle.write(value)
        return {"file": path}

    def _config(self):
        idp, browse = self.idp_url, self.idp_browser_url
        client = {"clientId": "fake-client-id", "clientSecret": self._secret("client-secret", "fake-client-secret")}
        return {
            "listen": ["127.0.0.1:0"],
            "store": {"kind": "sqlite", "path": os.path.join(self.directory, "state.sqlite")},
            "allowedRedirectURLs": ["http://127.0.0.1/app"],  # any port on loopback (RFC 8252 §7.3)
            "providerTimeoutSeconds": 5,
            # Every browser here is one client address (loopback), and each callback's exchange is charged to it.
            "startRateLimit": {"perMinute": 60, "burst": 30},
            "backend": {"kind": "none"},
            "providers": {
                "google.com": dict(client, issuer=idp + "/oidc",
                                   endpoints={"authorization": browse + "/oidc/authorize"}),
                "apple.com": dict(client, issuer=idp + "/oidc", responseMode="form_post",
                                  endpoints={"authorization": browse + "/oidc/authorize"}),
                "twitter.com": {
                    "consumerKey": "fake-consumer-key",
                    "consumerSecret": self._secret("twitter-secret", "fake-consumer-secret"),
                    "endpoints": {
                        "requestToken": idp + "/oauth1/request_token",
                        "authorize": browse + "/oauth1/authenticate",
                        "accessToken": idp + "/oauth1/access_token",
                        "profile": idp + "/oauth1/account/verify_credentials.json?include_email=true"}},
            },
        }

    def stop(self):
        for process in reversed(self.processes):
            process.stop()
        if self.app:
            self.app.stop()
        shutil.rmtree(self.directory, ignore_errors=True)

    def failure_context(self):
        return "\n".join("  %s stderr (tail): %s" % (process.name, process.stderr_tail(1200).strip())
                         for process in self.processes)


# MARK: the accounts database

# The engine of backend `accounts` in the accounts tests (docs/ACCOUNTS.md "Storage"): `sqlite` (the default) or
# `postgres`. `make test` runs browser_accounts_test.py and browser_picker_accounts_test.py once with each.
ACCOUNTS_DATABASE = os.environ.get("ACCOUNTS_DATABASE", "sqlite")


def accounts_database(directory):
    """The accounts database of ACCOUNTS_DATABASE's engine for a daemon whose files are in `directory`: start() it,
    configure(config) the daemon's config for it, rows(sql, name=value) reads and writes it as a test would, stop()
    stops and deletes it."""
    engines = {"sqlite": SQLiteAccounts, "postgres": PostgresAccounts}
    check(ACCOUNTS_DATABASE in engines, "ACCOUNTS_DATABASE=%r: expected sqlite or postgres" % ACCOUNTS_DATABASE)
    return engines[ACCOUNTS_DATABASE](directory)


def _secret_file(directory, name, value):
    """A secret reference ({"file": PATH}, docs/CONFIG.md "Secrets") to a new 0600 file holding `value`."""
    path = os.path.join(directory, name)
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as handle:
        handle.write(value)
    return {"file": path}


class SQLiteAccounts:
    """The accounts in `accounts.sqlite` in the daemon's directory."""

    engine = "sqlite"

    def __init__(self, directory):
        self.path = os.path.join(directory, "accounts.sqlite")

    def start(self):
        pass

    def configure(self, config):
        config["backend"]["database"] = {"kind": "sqlite", "path": self.path}

    def rows(self, sql, **values):
        """What `sql` answers (`:name` is values[name]), each row a tuple of text ("" for NULL), committed."""
        database = sqlite3.connect(self.path, timeout=10)
        try:
            rows = database.execute(sql, values).fetchall()
            database.commit()
        finally:
            database.close()
        return [tuple("" if value is None else str(value) for value in row) for row in rows]

    def stop(self):
        pass


class PostgresAccounts:
    """The accounts in the database `accounts` of a throwaway PostgresServer, with what a daemon on PostgreSQL must
    be given (docs/CONFIG.md `kind: "accounts"`): the URL (which holds no password), the password as a secret, a
    signing key (an instance on PostgreSQL never makes one) and a top-level stateKey, each a 0600 file in the
    daemon's directory."""

    engine = "postgres"

    def __init__(self, directory):
        self.directory = directory
        self.server = None

    def start(self):
        self.server = PostgresServer()
        self.server.start()
        self.server.psql("postgres", "CREATE DATABASE accounts")
        # The signing key docs/ACCOUNTS.md "Rotating the signing key" makes with `openssl genpkey`: P-256, PKCS #8
        # PEM (python3-cryptography, which scripts/install-deps.sh test installs).
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        pem = ec.generate_private_key(ec.SECP256R1()).private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        self.signing_key = _secret_file(self.directory, "signing-key.pem", pem.decode())["file"]

    def configure(self, config):
        url = "postgresql://%s@127.0.0.1:%d/accounts" % (PostgresServer.USER, self.server.port)
        config["backend"]["database"] = {
            "kind": "postgres", "url": url,
            "password": _secret_file(self.directory, "postgres-password", self.server.password),
            "statementTimeoutMs": 2000}
        config["backend"]["signingKey"] = {"file": self.signing_key}
        # 32 random bytes, base64url without padding (docs/CONFIG.md "stateKey and previousStateKeys").
        state_key = base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode()
        config["stateKey"] = _secret_file(self.directory, "state-key", state_key)

    def rows(self, sql, **values):
        return self.server.psql("accounts", sql, **values)

    def stop(self):
        if self.server:
            self.server.stop()


class PostgresServer:
    """A throwaway PostgreSQL server, made as Tests/TestSupport/PostgresTestServer.swift makes one: Debian's
    `postgresql` (/usr/lib/postgresql/VERSION/bin), `initdb` in a new temporary directory with password
    authentication (SCRAM-SHA-256, the PostgreSQL manual's "Password Authentication": the password never crosses
    the connection) for the user `postgres`, the server on a free port of 127.0.0.1 only, without fsync (the
    cluster is thrown away). PostgreSQL refuses to run as root, so as root initdb and postgres run as `nobody`
    through setpriv(1), which executes the program itself. The server runs under a shell that stops it (fast
    shutdown) when the shell's stdin ends: at stop(), or when this process dies however it dies. stop() also deletes
    the directory."""

    USER = "postgres"
    NOBODY = 65534

    def __init__(self):
        found = glob.glob("/usr/lib/postgresql/*/bin/postgres")
        check(found, "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/postgres): run "
              "scripts/install-deps.sh test")
        newest = max(found, key=lambda path: int(path.split("/")[4]) if path.split("/")[4].isdigit() else -1)
        self.binaries = os.path.dirname(newest)
        self.directory = tempfile.mkdtemp(prefix="auth-handler-postgres-")
        self.password = secrets.token_urlsafe(24)
        self.as_owner = ["/usr/bin/setpriv", "--reuid=%d" % self.NOBODY, "--regid=%d" % self.NOBODY,
                         "--clear-groups", "--"] if os.getuid() == 0 else []
        self.process = None
        self.port = None

    def start(self):
        password_file = _secret_file(self.directory, "password", self.password)["file"]
        if os.getuid() == 0:
            # The cluster's owner must be able to write the directory and read the password file.
            for path in (self.directory, password_file):
                os.chown(path, self.NOBODY, self.NOBODY)
        initdb = subprocess.run(
            self.as_owner + [os.path.join(self.binaries, "initdb"), "-D", "data", "-U", self.USER,
                             "--pwfile=password", "-A", "scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync",
                             "--no-instructions"],
            cwd=self.directory, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            timeout=120)
        check(initdb.returncode == 0, "initdb failed: %s" % initdb.stdout.decode("utf-8", "replace")[-1500:])
        problem = None
        # A free port may be taken by someone else between choosing and binding it: then choose again.
        for _ in range(3):
            problem = failure_of(self._start_on_free_port)
            if not problem:
                return
        raise TestFailure("postgres did not start: %s" % problem)

    def _start_on_free_port(self):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        server = shlex.join(self.as_owner + [
            os.path.join(self.binaries, "postgres"), "-D", os.path.join(self.directory, "data"), "-k", self.directory,
            "-p", str(self.port), "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "full_page_writes=off",
            "-c", "log_min_messages=warning"])
        # The shell ends with the server (a server that could not start fails at once); its watcher, apart from the
        # server's output, stops the server (fast shutdown) when stdin ends. A background command's stdin is
        # /dev/null unless redirected (sh(1)), hence fd 3.
        script = ("exec 3<&0\n%s 2>&1 &\nserver=$!\n{ cat <&3; kill -INT $server; } >/dev/null 2>&1 &\n"
                  "wait $server\n" % server)
        self.process = ServerProcess("postgres", ["/bin/sh", "-c", script], self.directory, stop_by_stdin=True)
        # Its log line once it accepts connections, so nothing here polls.
        try:
            self.process.wait_for_line("ready to accept connections", anywhere=True)
        except TestFailure as failure:
            raise TestFailure("%s; its log: %s" % (failure, "\n".join(self.process.lines[-10:])))

    def psql(self, database, sql, **values):
        """What `sql` answers on `database`, each row a tuple of text ("" for NULL). `:name` in `sql` is values[name],
        quoted by psql as a literal (`:'name'`), never pasted into the statement."""
        argv = [os.path.join(self.binaries, "psql"), "-X", "-q", "-A", "-t", "-F", "\x1f", "-v", "ON_ERROR_STOP=1",
                "-h", "127.0.0.1", "-p", str(self.port), "-U", self.USER, "-d", database]
        for name, value in values.items():
            argv += ["-v", "%s=%s" % (name, value)]
        script = re.sub(r":(\w+)", r":'\1'", sql)
        environment = dict(os.environ, PGPASSWORD=self.password, PGCONNECT_TIMEOUT="10")
        result = subprocess.run(argv, input=script.encode(), capture_output=True, env=environment,
                                timeout=STEP_TIMEOUT)
        check(result.returncode == 0, "psql on %s failed (exit status %d): %s"
              % (database, result.returncode, result.stderr.decode("utf-8", "replace")[-800:]))
        return [tuple(line.split("\x1f")) for line in result.stdout.decode().splitlines()]

    def stop(self):
        if self.process:
            self.process.stop()
        shutil.rmtree(self.directory, ignore_errors=True)


# MARK: sign-ins


class SignIn:
    """One start request: a random result verifier and eventId, and the start URL carrying them."""

    def __init__(self, servers, provider):
        self.provider = provider
        self.verifier = base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode()
        challenge = base64.urlsafe_b64encode(hashlib.sha256(self.verifier.encode()).digest()).rstrip(b"=").decode()
        self.event_id = "browser-" + secrets.token_hex(8)
        self.start_url = servers.handler_url + "/__/auth/handler?" + urllib.parse.urlencode({
            "providerId": provider, "redirectUrl": servers.app.url, "eventId": self.event_id,
            "resultChallenge": challenge})


def redeem(servers, sign_in, arrival, user="alice"):
    """POST /__/auth/result with the code and verifier, as the app's server would; checks the answer."""
    check("error" not in arrival, "the app got error=%s (%s) instead of a code"
          % (arrival.get("error"), arrival.get("error_description", "")))
    check(arrival.get("code"), "the app got no code")
    check(arrival.get("eventId") == sign_in.event_id, "the eventId did not come back unchanged")
    body = urllib.parse.urlencode({"code": arrival["code"], "verifier": sign_in.verifier}).encode()
    request = urllib.request.Request(servers.handler_url + "/__/auth/result", data=body, method="POST", headers={
        "Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=STEP_TIMEOUT) as response:
            status, text = response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        status, text = error.code, error.read().decode()
    check(status == 200, "redeeming answered %d: %s" % (status, text[:300]))
    result = json.loads(text)
    check(result.get("providerId") == sign_in.provider,
          "redeemed providerId %r, expected %r" % (result.get("providerId"), sign_in.provider))
    check(result.get("eventId") == sign_in.event_id, "the redeemed result has another eventId")
    profile = result.get("profile") or {}
    field, expected = ("screenName", user) if sign_in.provider == "twitter.com" else ("email", USERS[user])
    check(profile.get(field) == expected, "profile %s %r, expected %r" % (field, profile.get(field), expected))
    check(profile.get("id"), "the profile has no id")


# MARK: the browser


class Browser:
    """One headless Chromium with its own empty profile, driven by chromedriver."""

    def __init__(self, directory, name, block_popups=False, prefs=None):
        """`block_popups`: keep Chromium's popup blocker, which chromedriver switches off by default, so that a
        popup opened outside a user gesture is refused as it would be for a user. `prefs`: the profile's preferences
        (e.g. JavaScript off)."""
        try:
            from selenium import webdriver
            from selenium.webdriver.chrome.service import Service
        except ImportError as error:
            raise TestFailure("python3-selenium is not importable by %s (%s); install the Debian package "
                              "python3-selenium (scripts/install-deps.sh test)" % (sys.executable, error))
        for path in (CHROMIUM, CHROMEDRIVER):
            check(os.access(path, os.X_OK), "%s is missing; install the Debian packages chromium and "
                  "chromium-driver (scripts/install-deps.sh test)" % path)
        self.name = name
        self.profile = os.path.join(directory, "chromium-" + name)
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for argument in [
            "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
            "--user-data-dir=" + self.profile, "--no-first-run", "--no-default-browser-check",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-default-apps", "--disable-extensions", "--disable-domain-reliability",
            "--disable-client-side-phishing-detection", "--disable-breakpad", "--no-pings",
            "--metrics-recording-only", "--password-store=basic", "--use-mock-keychain",
            "--disable-features=Translate,OptimizationHints,MediaRouter,AutofillServerCommunication",
            # Resolve nothing but the two loopback sites: nothing off this machine can be reached by name.
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
        ]:
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
        if block_popups:
            options.add_experimental_option("excludeSwitches", ["disable-popup-blocking"])
        if prefs:
            options.add_experimental_option("prefs", prefs)
        service = Service(CHROMEDRIVER, log_path=os.path.join(directory, "chromedriver-%s.log" % name))
        try:
            self.driver = webdriver.Chrome(service=service, options=options)
        except Exception as error:  # WebDriverException, OSError: both mean no browser
            message = (getattr(error, "msg", None) or str(error) or type(error).__name__).strip().splitlines()[0]
            raise TestFailure("Chromium (%s) or chromedriver (%s) did not start: %s"
                              % (CHROMIUM, CHROMEDRIVER, message))
        self.driver.set_page_load_timeout(STEP_TIMEOUT)
        self.cookie_names = []
        self.events = []

    def wait(self, condition, what):
        from selenium.common.exceptions import TimeoutException
        from selenium.webdriver.support.ui import WebDriverWait
        try:
            return WebDriverWait(self.driver, STEP_TIMEOUT).until(condition)
        except TimeoutException:
            raise TestFailure("timed out waiting for %s; the browser is at %s" % (what, self.location()))

    def location(self):
        """The current URL without its query (which may hold a state or a code)."""
        try:
            return self.driver.current_url.split("?")[0]
        except Exception:
            return "(unknown)"

    def at_login_page(self, servers):
        """Waits for the fake IdP's login page, on the IdP's browser-facing (localhost) site."""
        from selenium.webdriver.common.by import By
        self.wait(lambda driver: driver.current_url.startswith(servers.idp_browser_url)
                  and driver.find_elements(By.ID, "approve"), "the fake IdP's login page")

    def approve(self, user):
        from selenium.webdriver.common.by import By
        field = self.driver.find_element(By.ID, "user")
        field.clear()
        field.send_keys(user)
        self.driver.find_element(By.ID, "approve").click()

    def document_status(self, url):
        """The HTTP status of the last response to `url` this browser received, from the performance log."""
        status = None
        for message in self._performance_log():
            if message.get("method") == "Network.responseReceived":
                response = message["params"].get("response", {})
                if response.get("url") == url:
                    status = response.get("status")
        return status

    def _performance_log(self):
        """Every DevTools network event since the last call (kept, so that each caller sees them all)."""
        self.events.extend(json.loads(entry["message"])["message"] for entry in self.driver.get_log("performance"))
        return self.events

    def collect_cookie_names(self):
        """Names (never values) of the cookies the responses so far set, with the host that set them."""
        urls = {}
        for message in self._performance_log():
            method, params = message.get("method"), message.get("params", {})
            if method == "Network.requestWillBeSent":
                urls[params.get("requestId")] = params.get("request", {}).get("url", "")
            elif method == "Network.responseReceivedExtraInfo":
                for name, value in (params.get("headers") or {}).items():
                    if name.lower() != "set-cookie":
                        continue
                    host = urllib.parse.urlsplit(urls.get(params.get("requestId"), "")).netloc or "?"
                    for cookie in value.split("\n"):
                        entry_name = "%s@%s" % (cookie.split("=", 1)[0].strip(), host)
                        if entry_name not in self.cookie_names:
                            self.cookie_names.append(entry_name)
        return self.cookie_names

    def quit(self):
        try:
            self.driver.quit()
        except Exception:
            pass
        shutil.rmtree(self.profile, ignore_errors=True)


class HeldRequest:
    """Holds `browser`'s next request matching `pattern` (a CDP Fetch pattern) and fails it inside the browser.

    The request never leaves the browser; `url()` is the URL it would have requested. This uses its own DevTools
    connection to the page (chromedriver's `execute_cdp_cmd` cannot receive the `Fetch.requestPaused` event, a
    paused navigation stalls every chromedriver command, and `Network.setBlockedURLs` does not block top-level
    navigations in Chromium 156: measured). Chromedriver's window handle is the page's DevTools target id.
    """

    def __init__(self, browser, pattern):
        try:
            import trio
            from trio_websocket import open_websocket_url
        except ImportError as error:
            raise TestFailure("trio / trio-websocket (dependencies of python3-selenium) are missing: %s" % error)
        with open(os.path.join(browser.profile, "DevToolsActivePort")) as handle:
            port = handle.read().split()[0]
        socket_url = "ws://127.0.0.1:%s/devtools/page/%s" % (port, browser.driver.current_window_handle)
        self.ready = threading.Event()
        self.result = {}

        async def call(connection, identifier, method, params):
            await connection.send_message(json.dumps({"id": identifier, "method": method, "params": params}))
            while json.loads(await connection.get_message()).get("id") != identifier:
                pass

        async def hold():
            with trio.fail_after(2 * STEP_TIMEOUT):
                async with open_websocket_url(socket_url) as connection:
                    await call(connection, 1, "Fetch.enable", {"patterns": [
                        {"urlPattern": pattern, "requestStage": "Request"}]})
                    self.ready.set()
                    while True:
                        message = json.loads(await connection.get_message())
                        if message.get("method") == "Fetch.requestPaused":
                            break
                    self.result["url"] = message["params"]["request"]["url"]
                    await call(connection, 2, "Fetch.failRequest", {
                        "requestId": message["params"]["requestId"], "errorReason": "BlockedByClient"})
                    await call(connection, 3, "Fetch.disable", {})

        def run():
            try:
                trio.run(hold)
            except BaseException as error:  # trio.TooSlowError, a closed socket: reported by url()
                self.result["error"] = "%s: %s" % (type(error).__name__, error)
            finally:
                self.ready.set()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        self.ready.wait(STEP_TIMEOUT)
        check(self.ready.is_set() and "error" not in self.result,
              "could not hold requests through DevTools: %s" % self.result.get("error", "no answer"))

    def url(self):
        self.thread.join(2 * STEP_TIMEOUT + 5)
        check("url" in self.result, "no request was held: %s" % self.result.get("error", "the thread is still waiting"))
        return self.result["url"]


class Case:
    """What a test function gets: the servers, and browsers that are closed when it ends."""

    def __init__(self, servers):
        self.servers = servers
        self.browsers = []

    def browser(self, name):
        browser = Browser(self.servers.directory, name)
        self.browsers.append(browser)
        return browser

    def close(self):
        notes = []
        for browser in self.browsers:
            try:
                names = browser.collect_cookie_names()
            except Exception:
                names = browser.cookie_names
            notes.append("%s: %s" % (browser.name, ", ".join(names) or "none"))
            browser.quit()
        return "; ".join(notes) or "(no browser)"


def sign_in_through_login_page(case, browser, provider, user="alice"):
    servers = case.servers
    sign_in = SignIn(servers, provider)
    browser.driver.get(sign_in.start_url)
    browser.at_login_page(servers)
    browser.approve(user)
    arrival = servers.app.wait_for(sign_in.event_id)
    browser.wait(lambda driver: driver.current_url.startswith(servers.app.url), "the app's page")
    redeem(servers, sign_in, arrival, user)


# MARK: cases


def test_google_oidc_query_through_login_page(case):
    """google.com (OIDC, query response mode): the IdP's 302 back is a cross-site top-level GET."""
    sign_in_through_login_page(case, case.browser("google"), "google.com", user="bob")


def test_apple_style_form_post(case):
    """apple.com (responseMode form_post): the IdP's page auto-submits a cross-site POST to the handler."""
    sign_in_through_login_page(case, case.browser("apple"), "apple.com")


def test_twitter_oauth1(case):
    """twitter.com (OAuth 1.0a): request token, the IdP's authorize page, the verifier back to the handler."""
    sign_in_through_login_page(case, case.browser("twitter"), "twitter.com")


def test_three_sign_ins_in_one_browser(case):
    """Three sign-ins started in three tabs of one browser, all waiting at the IdP, then completed in turn."""
    servers = case.servers
    browser = case.browser("tabs")
    driver = browser.driver
    started = []
    for index, (provider, user) in enumerate([("google.com", "alice"), ("twitter.com", "bob"),
                                              ("google.com", "bob")]):
        if index:
            driver.switch_to.new_window("tab")
        sign_in = SignIn(servers, provider)
        driver.get(sign_in.start_url)
        browser.at_login_page(servers)
        started.append((driver.current_window_handle, sign_in, user))
    for handle, sign_in, user in started:
        check(not servers.app.arrived(sign_in.event_id), "a sign-in reached the app before it was approved")
    for handle, sign_in, user in started:
        driver.switch_to.window(handle)
        browser.approve(user)
        arrival = servers.app.wait_for(sign_in.event_id)
        browser.wait(lambda driver: driver.current_url.startswith(servers.app.url), "the app's page")
        redeem(servers, sign_in, arrival, user)


def test_callback_is_bound_to_the_starting_browser(case):
    """The IdP's callback opened in another browser (no cookies) is 400 invalid-state; browser A then completes."""
    from selenium.webdriver.common.by import By
    servers = case.servers
    callback_prefix = servers.handler_url + "/__/auth/handler?"
    a = case.browser("A")
    sign_in = SignIn(servers, "google.com")
    a.driver.get(sign_in.start_url)
    a.at_login_page(servers)
    # Hold the IdP's redirect back: A's request to the handler is failed inside the browser
    # (ERR_BLOCKED_BY_CLIENT), so the callback is captured without A ever delivering it.
    held = HeldRequest(a, servers.handler_url + "/__/auth/handler?*")
    a.approve("alice")
    callback = held.url()
    a.wait(lambda driver: driver.current_url.startswith(callback_prefix), "A's error page for the held callback")
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(callback).query))
    check("state" in query and "code" in query, "the captured callback has no state and code")
    check(not servers.app.arrived(sign_in.event_id), "browser A delivered the callback despite the block")

    b = case.browser("B")
    b.driver.get(callback)
    b.wait(lambda driver: driver.find_elements(By.ID, "error-code") or driver.current_url.startswith(servers.app.url),
           "browser B's answer to the callback")
    if servers.app.arrived(sign_in.event_id):
        arrival = servers.app.wait_for(sign_in.event_id)
        raise TestFailure("browser B, without A's cookie, was sent to the app (%s) instead of getting "
                          "400 invalid-state" % ("with a code" if "code" in arrival else "with error=%s"
                                                 % arrival.get("error")))
    status = b.document_status(callback)
    check(status == 400, "browser B's callback answered %s, expected 400" % status)
    codes = [element.text for element in b.driver.find_elements(By.ID, "error-code")]
    check(codes == ["invalid-state"], "browser B got the error page with %r, expected invalid-state" % codes)
    check(b.driver.current_url.startswith(callback_prefix), "browser B left the handler's error page")

    a.driver.get(callback)
    arrival = servers.app.wait_for(sign_in.event_id)
    a.wait(lambda driver: driver.current_url.startswith(servers.app.url), "the app's page in browser A")
    redeem(servers, sign_in, arrival)


def test_images_and_frames_cannot_start_sign_ins(case):
    """A page's <img> and <iframe> pointing at starts get 403 navigation-required and set no sign-in cookie;
    the same start as a navigation does (HTTP-API.md §3.1)."""
    servers = case.servers
    browser = case.browser("page")
    driver = browser.driver
    driver.get(servers.app.url)
    images = [SignIn(servers, provider).start_url for provider in ("google.com", "apple.com") for _ in range(3)]
    frame = SignIn(servers, "google.com").start_url
    driver.set_script_timeout(STEP_TIMEOUT)
    driver.execute_async_script("""
        const [urls, done] = [arguments[0], arguments[arguments.length - 1]];
        let left = urls.length;
        for (const url of urls) {
            const image = new Image();
            image.onload = image.onerror = () => { if (--left === 0) done(); };
            image.src = url;
        }""", images)
    driver.execute_script("""
        const frame = document.createElement("iframe");
        frame.src = arguments[0];
        document.body.appendChild(frame);""", frame)

    def statuses():
        """The status of the first response to each URL, from the DevTools log: an image's refused HTML answer is
        blocked before the page sees it (no Network.responseReceived), but its head is logged as ExtraInfo. A
        redirect keeps its request id, so the first URL and answer of an id are the start's."""
        urls, answers = {}, {}
        for message in browser._performance_log():
            method, params = message.get("method"), message.get("params", {})
            if method == "Network.requestWillBeSent":
                urls.setdefault(params.get("requestId"), params.get("request", {}).get("url"))
            elif method == "Network.responseReceivedExtraInfo":
                answers.setdefault(params.get("requestId"), params.get("statusCode"))
        return {urls.get(identifier): status for identifier, status in answers.items()}

    browser.wait(lambda driver: all(url in statuses() for url in images + [frame]), "the starts' answers")
    answered = statuses()
    for url in images + [frame]:
        check(answered[url] == 403, "a start as an image or frame answered %s, expected 403" % answered[url])
    names = [cookie["name"] for cookie in driver.get_cookies()]
    check(not any("auth-handler-" in name for name in names), "a refused start set a cookie: %r" % names)

    driver.get(images[0])
    browser.at_login_page(servers)
    driver.get(servers.app.url)
    names = [cookie["name"] for cookie in driver.get_cookies()]
    check(any("auth-handler-" in name for name in names), "the navigation's start set no cookie: %r" % names)


CASES = [
    test_images_and_frames_cannot_start_sign_ins,
    test_google_oidc_query_through_login_page,
    test_apple_style_form_post,
    test_twitter_oauth1,
    test_three_sign_ins_in_one_browser,
    test_callback_is_bound_to_the_starting_browser,
]


def failure_of(run):
    """Runs `run()`; None when it passes, else what failed: a check's message, or an unexpected error with the
    frames of these tests (WebDriver errors carry chromedriver's native stack trace: keep the message and our frames)."""
    try:
        run()
        return None
    except TestFailure as failure:
        return str(failure)
    except Exception as unexpected:
        message = getattr(unexpected, "msg", None) or str(unexpected)
        frames = traceback.format_tb(unexpected.__traceback__)
        return "%s: %s\n%s" % (type(unexpected).__name__, message.strip(),
                               "".join(frame for frame in frames if "Tests/Browser/" in frame).rstrip())


def run_cases(cases, servers, case_class=Case, label="browser tests"):
    """Starts `servers`, runs each case with a fresh `case_class`, stops everything; returns the exit status."""
    def run_one(test):
        case = case_class(servers)
        try:
            error = failure_of(lambda: test(case))
        finally:
            cookies = case.close()
        return error, "  Set-Cookie names seen: %s" % cookies

    return _run_all(cases, servers, servers.start, run_one, "the servers did not start", label, [])


def run_in_order(cases, site, setup, label):
    """Starts `site` (start, stop, failure_context), then `setup(keep)` makes the context every case is given (a
    browser and what drives it; `keep(stop)` registers what to stop at the end), runs the cases in order on that one
    context, stops everything; returns the exit status."""
    stops = []
    context = []

    def start():
        site.start()
        context.append(setup(stops.append))

    return _run_all(cases, site, start, lambda test: (failure_of(lambda: test(context[0])), None), "setup failed",
                    label, stops)


def _run_all(cases, site, start, run_one, setup_words, label, stops):
    """The loop `run_cases` and `run_in_order` share: `start()`, then each case through `run_one(test)` (its failure
    or None, and a line to print after its result or None), a line per case, `site.failure_context()` after a
    failure; then every registered stop, newest first, and `site.stop()`. Returns the exit status."""
    passed = failed = 0
    began = time.monotonic()
    try:
        setup_error = failure_of(start)
        for test in cases:
            started = time.monotonic()
            if setup_error:
                failed += 1
                print("FAIL %s: %s: %s" % (test.__name__, setup_words, setup_error), flush=True)
                continue
            error, note = run_one(test)
            took = time.monotonic() - started
            if error:
                failed += 1
                print("FAIL %s (%.1f s): %s" % (test.__name__, took, error), flush=True)
            else:
                passed += 1
                print("ok   %s (%.1f s)" % (test.__name__, took), flush=True)
            if note:
                print(note, flush=True)
            if error:
                print(site.failure_context(), flush=True)
    finally:
        for stop in reversed(stops):
            stop()
        site.stop()
    print("%s took %.1f s" % (label, time.monotonic() - began), flush=True)
    print("%d passed, %d failed" % (passed, failed), flush=True)
    return 1 if failed or not cases else 0


def run_script(main):
    """A test file's entry point: SIGTERM (what `timeout` sends first) unwinds, so that every browser and server is
    stopped on the way out; the exit status is what `main()` answers."""
    import warnings
    # trio-websocket (Debian 12) calls a trio API that trio deprecated; the warning says nothing about these tests.
    warnings.filterwarnings("ignore", module="trio_websocket")
    signal.signal(signal.SIGTERM, _terminated)
    sys.exit(main())


def main():
    selected = [case for case in CASES if len(sys.argv) < 2 or any(name in case.__name__ for name in sys.argv[1:])]
    return run_cases(selected, Servers())


def _terminated(signum, frame):
    # `timeout` sends SIGTERM first: unwind, so that every browser and server is stopped on the way out.
    raise SystemExit("terminated by signal %d" % signum)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, _terminated)
    sys.exit(main())
