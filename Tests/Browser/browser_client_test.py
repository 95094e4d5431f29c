#!/usr/bin/python3
"""The browser module (clients/js/auth-handler.js) in real Chromium, deployed as docs/CLIENTS.md "Web" says.

nginx serves an app page under `Content-Security-Policy: script-src 'self'; connect-src 'self'` and proxies
`/__/auth/` to `auth-handler serve` on the same origin (http://127.0.0.1:N, the daemon's publicURL, with
`trustedProxies`). The page imports the module from `/__/auth/client.js`, as an app does, and exposes a few
functions the test calls through WebDriver; popups are opened by real clicks (user gestures). The fake IdP is browsed
as `localhost`, another site, as in browser_signin_test.py (whose process, browser and log helpers this reuses), and
is also the sign-in backend (its Identity Toolkit), so results carry `signIn` and the backend's errors can be produced.

nginx runs with its master process (without one, 1.22 does not accept on an inherited socket: measured) and
`user` set to whoever runs the test, so its worker can read the temporary directory. Ports: the fake IdP and the daemon bind 127.0.0.1:0 and print their address. nginx's port must be in the daemon's
config (publicURL) before nginx starts, so this process binds and listens on 127.0.0.1:0 itself and hands the socket
to nginx as an inherited socket (the `NGINX` environment variable, which nginx reads for its binary upgrade); no port
is ever picked and released. Connections made before nginx accepts wait in the socket's backlog.

Prints one line per case and `N passed, N failed`; exits 1 on any failure. The picker case needs the daemon's
provider picker (`GET /__/auth/signin`), which answers 404 in a build without it.
"""

import base64
import getpass
import hashlib
import json
import os
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser_signin_test as common  # noqa: E402
from browser_signin_test import TestFailure, check  # noqa: E402

REPO = common.REPO
BINARY = common.BINARY
NGINX = os.environ.get("NGINX", "/usr/sbin/nginx")
STEP_TIMEOUT = common.STEP_TIMEOUT
APP_CSP = "script-src 'self'; connect-src 'self'"

# The app: a page and its script, both from the app's origin, so the strict CSP holds for every script it runs. The
# image is a subresource the page requests while it parses, before any module runs: what its Referer carries is what
# the return's address leaks (test_the_result_reaches_no_server).
APP_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>app</title>
<script type="module" src="/app/app.js"></script></head>
<body><main><img src="/app/pixel.gif" alt="" width="1" height="1">
<button id="popup" type="button">Sign in with a popup</button><pre id="outcome"></pre></main></body></html>
"""

# A 1x1 transparent GIF.
PIXEL_GIF = base64.b64decode("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7")

APP_SCRIPT = """import { AuthHandler, AuthHandlerError } from "/__/auth/client.js";

const auth = new AuthHandler();
const violations = [];
document.addEventListener("securitypolicyviolation", (event) => {
    violations.push(event.violatedDirective + " " + event.blockedURI);
});

function describe(error) {
    if (!(error instanceof AuthHandlerError)) return { unexpected: String(error) };
    return { error: error.code, message: error.message, email: error.email ?? null, customData: error.customData };
}

function settle(promise, into, index) {
    promise.then((result) => { into[index] = { result }; }, (error) => { into[index] = describe(error); });
}

// The window name the module gives each popup (window.open is looked up when the module calls it).
const popupNames = [];
const open = window.open;
window.open = function (url, name, features) {
    popupNames.push(name);
    return open.call(window, url, name, features);
};

const popups = [];
document.getElementById("popup").addEventListener("click", (event) => {
    const request = JSON.parse(event.target.dataset.request || "{}");
    popups.push(null);
    const started = request.idToken
        ? auth.linkWithPopup(request.providerId ?? null, request.idToken, request.options ?? {})
        : auth.signInWithPopup(request.providerId ?? null, request.options ?? {});
    settle(started, popups, popups.length - 1);
});

window.app = {
    loaded: true,
    violations,
    popups,
    popupNames,
    redirect: (providerId, options) => { auth.signInWithRedirect(providerId, options ?? {}); },
    link: (providerId, idToken, options) => { auth.linkWithRedirect(providerId, idToken, options ?? {}); },
    popupOutsideGesture: (providerId, options) => {
        popups.push(null);
        settle(auth.signInWithPopup(providerId, options ?? {}), popups, popups.length - 1);
    },
};

auth.getRedirectResult().then(
    (result) => { document.getElementById("outcome").textContent = JSON.stringify({ result }); },
    (error) => { document.getElementById("outcome").textContent = JSON.stringify(describe(error)); },
);
"""


# A page that only imports the module: importing must not complete a return, redeem, store or listen.
IMPORT_ONLY_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>import only</title>
<script type="module" src="/app/import-only.js"></script></head><body><main></main></body></html>
"""

IMPORT_ONLY_SCRIPT = """import * as module from "/__/auth/client.js";
window.imported = Object.keys(module).sort();
"""


class Site:
    """The fake IdP, the daemon and nginx in front of it, on one origin: http://127.0.0.1:N."""

    # The fake IdP's users: the defaults, and carol, whom no other case signs in: the link case links her Twitter
    # identity.
    IDP_USERS = [
        {"name": "alice", "id": "1001", "email": "alice@example.com"},
        {"name": "bob", "id": "1002", "email": "bob@example.com"},
        {"name": "conflict", "id": "1003", "email": "conflict@example.com", "backendBehavior": "needConfirmation"},
        {"name": "carol", "id": "1005", "email": "carol@example.com"}]

    def __init__(self):
        self.servers = common.Servers()  # its directory, process list and stop(); its start() is not used
        self.directory = self.servers.directory

    def start(self):
        check(os.access(BINARY, os.X_OK), "%s is not built; run `swift build` first" % BINARY)
        check(os.access(NGINX, os.X_OK), "%s is missing; install the Debian package nginx-light" % NGINX)
        idp_config = os.path.join(self.directory, "fake-idp.json")
        with open(idp_config, "w") as handle:
            json.dump({"users": self.IDP_USERS}, handle)
        idp = self.servers._spawn("fake-idp", [BINARY, "fake-idp", "--listen", "127.0.0.1:0", "--config", idp_config])
        self.idp_url = idp.wait_for_line("fake-idp listening on ")
        self.idp_browser_url = "http://localhost:%d" % urllib.parse.urlsplit(self.idp_url).port

        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(128)
        self.port = self.listener.getsockname()[1]
        self.origin = "http://127.0.0.1:%d" % self.port
        self.app_url = self.origin + "/app/"

        config = os.path.join(self.directory, "config.json")
        with open(config, "w") as handle:
            json.dump(self._daemon_config(), handle, indent=2)
        daemon = self.servers._spawn("auth-handler", [BINARY, "serve", "--config", config])
        self.daemon_url = daemon.wait_for_line("auth-handler listening on ")

        site = os.path.join(self.directory, "site", "app")
        os.makedirs(site)
        for name, text in (("index.html", APP_PAGE), ("app.js", APP_SCRIPT), ("import-only.html", IMPORT_ONLY_PAGE),
                           ("import-only.js", IMPORT_ONLY_SCRIPT), ("pixel.gif", PIXEL_GIF)):
            with open(os.path.join(site, name), "wb") as handle:
                handle.write(text if isinstance(text, bytes) else text.encode())
        os.makedirs(os.path.join(self.directory, "nginx-temp"))
        nginx_conf = os.path.join(self.directory, "nginx.conf")
        with open(nginx_conf, "w") as handle:
            handle.write(self._nginx_config())
        environment = dict(os.environ, NGINX="%d;" % self.listener.fileno())
        self._start_nginx(nginx_conf, environment)
        # Ready when it answers: the socket was listening all along, so this request waits for nginx, not a sleep.
        status, _, body = self.fetch("/app/")
        check(status == 200, "nginx answered %s for /app/ (%s); its error log: %s"
              % (status, body[:200].decode("utf-8", "replace"), self.nginx_log()))

    def _start_nginx(self, conf, environment):
        error_log = os.path.join(self.directory, "nginx-error.log")
        with open(os.path.join(self.directory, "nginx.stderr"), "wb") as stderr:
            self.nginx_process = subprocess.Popen(
                [NGINX, "-p", self.directory, "-e", error_log, "-c", conf], stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=stderr, env=environment, pass_fds=[self.listener.fileno()],
                preexec_fn=common._die_with_parent)
        # nginx holds the socket now; ours would keep the port alive after nginx stops.
        self.listener.close()

    def nginx_log(self):
        text = ""
        for name in ("nginx.stderr", "nginx-error.log"):
            try:
                with open(os.path.join(self.directory, name), "rb") as handle:
                    text += handle.read().decode("utf-8", "replace")[-1500:]
            except OSError:
                pass
        return text.strip() or "(empty)"

    def _daemon_config(self):
        """browser_signin_test.py's providers (OIDC query, form_post, OAuth 1.0a; the IdP's pages on `localhost`),
        served at this origin behind nginx, with the fake Identity Toolkit as the backend."""
        self.servers.idp_url, self.servers.idp_browser_url = self.idp_url, self.idp_browser_url
        return {
            "listen": ["127.0.0.1:0"],
            "publicURL": self.origin,
            "trustedProxies": ["127.0.0.1"],
            "store": {"kind": "sqlite", "path": os.path.join(self.directory, "state.sqlite")},
            "allowedRedirectURLs": [self.origin + "/app/", self.origin + "/__/auth/popup"],
            "providerTimeoutSeconds": 5,
            # Every tab and popup here is one client (the browser on loopback, named by nginx's X-Forwarded-For):
            # room for all the cases' sign-ins within a minute.
            "startRateLimit": {"perMinute": 120, "burst": 60},
            "backend": {"kind": "identitytoolkit", "url": self.idp_url + "/identitytoolkit/v1",
                        "apiKey": self.servers._secret("api-key", "browser-api-key")},
            "providers": self.servers._config()["providers"],
        }

    def _nginx_config(self):
        """The deployment of docs/CLIENTS.md "Web": the app's files, and /__/auth/ proxied to the daemon."""
        temp = os.path.join(self.directory, "nginx-temp")
        return """
daemon off;
user {user};
worker_processes 1;
pid {dir}/nginx.pid;
events {{ worker_connections 128; }}
http {{
    access_log {dir}/nginx-access.log;
    client_body_temp_path {temp}/body;
    proxy_temp_path {temp}/proxy;
    fastcgi_temp_path {temp}/fastcgi;
    uwsgi_temp_path {temp}/uwsgi;
    scgi_temp_path {temp}/scgi;
    types {{ text/html html; text/javascript js; image/gif gif; }}
    server {{
        listen 127.0.0.1:{port};
        root {dir}/site;
        location /app/ {{
            add_header Content-Security-Policy "{csp}" always;
            # Every load of the app page requests its subresources again, so each shows in the access log.
            add_header Cache-Control "no-store" always;
        }}
        location /__/auth/ {{
            proxy_pass http://{daemon};
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        }}
    }}
}}
""".format(dir=self.directory, temp=temp, user=getpass.getuser(), port=self.port, csp=APP_CSP,
           daemon=urllib.parse.urlsplit(self.daemon_url).netloc)

    def fetch(self, path, headers=None):
        """(status, headers, body) of a GET through nginx."""
        request = urllib.request.Request(self.origin + path, headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=STEP_TIMEOUT) as response:
                return response.status, response.headers, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.headers, error.read()
        except (urllib.error.URLError, OSError) as error:
            return None, {}, str(error).encode()

    def access_log(self):
        """nginx's access log so far, one (request line, Referer) per request (nginx's `combined` format)."""
        import re
        pattern = re.compile(r'"(?P<request>(?:[^"\\]|\\.)*)" \d+ \d+ "(?P<referer>(?:[^"\\]|\\.)*)"')
        try:
            with open(os.path.join(self.directory, "nginx-access.log"), encoding="utf-8", errors="replace") as handle:
                lines = handle.read().splitlines()
        except OSError:
            return []
        return [(match["request"], match["referer"]) for match in map(pattern.search, lines) if match]

    def stop(self):
        process = getattr(self, "nginx_process", None)
        if process and process.poll() is None:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        listener = getattr(self, "listener", None)
        if listener:
            listener.close()
        self.servers.stop()

    def failure_context(self):
        return self.servers.failure_context() + "\n  nginx: " + self.nginx_log()[-600:]


class NetworkRecorder:
    """Every request of every page of `browser` — tabs and popups alike — from the browser's own DevTools Network
    events, on a connection of its own to the browser target.

    chromedriver's performance log holds only the targets chromedriver attached to, and misses a popup's requests
    (measured: the popup sign-in's start was absent from it). Here the browser auto-attaches to every new page and
    holds it before its first request (`waitForDebuggerOnStart`) until Network is enabled on it, so nothing is missed.
    """

    def __init__(self, browser):
        try:
            import trio
            from trio_websocket import open_websocket_url
        except ImportError as error:
            raise TestFailure("trio / trio-websocket (dependencies of python3-selenium) are missing: %s" % error)
        with open(os.path.join(browser.profile, "DevToolsActivePort")) as handle:
            port, path = handle.read().split()[:2]
        self.requests = []  # (method, url, postData, documentURL, Location of a redirect response or None)
        self.lock = threading.Lock()
        self.ready = threading.Event()
        self.failure = None
        self.token = None
        self.scope = None

        async def record():
            async with open_websocket_url("ws://127.0.0.1:%s%s" % (port, path), max_message_size=2 ** 24) as socket:
                counter = iter(range(1, 1 << 30))

                async def send(method, params=None, session=None):
                    message = {"id": next(counter), "method": method, "params": params or {}}
                    if session:
                        message["sessionId"] = session
                    await socket.send_message(json.dumps(message))

                auto_attach = {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True,
                               "filter": [{"type": "page"}, {"type": "tab", "exclude": True}]}
                await send("Target.setAutoAttach", auto_attach)
                self.ready.set()
                while True:
                    message = json.loads(await socket.get_message())
                    method, params = message.get("method"), message.get("params", {})
                    if method == "Target.attachedToTarget":
                        session = params["sessionId"]
                        await send("Network.enable", {"maxPostDataSize": 65536}, session)
                        await send("Runtime.runIfWaitingForDebugger", None, session)
                    elif method == "Network.requestWillBeSent":
                        request = params.get("request", {})
                        redirect = params.get("redirectResponse") or {}
                        location = next((value for name, value in (redirect.get("headers") or {}).items()
                                         if name.lower() == "location"), None)
                        with self.lock:
                            self.requests.append((request.get("method"), request.get("url", ""),
                                                  request.get("postData"), params.get("documentURL"), location))

        async def main():
            self.token = trio.lowlevel.current_trio_token()
            with trio.CancelScope() as scope:
                self.scope = scope
                await record()

        def run():
            try:
                trio.run(main)
            except BaseException as error:
                self.failure = "%s: %s" % (type(error).__name__, error)
            finally:
                self.ready.set()

        self.trio = trio
        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        self.ready.wait(STEP_TIMEOUT)
        check(self.ready.is_set() and not self.failure,
              "could not record the browser's network events: %s" % (self.failure or "no answer"))

    def snapshot(self):
        check(not self.failure, "the network recorder stopped: %s" % self.failure)
        with self.lock:
            return list(self.requests)

    def stop(self):
        if self.token and self.scope and self.thread.is_alive():
            try:
                self.trio.from_thread.run_sync(self.scope.cancel, trio_token=self.token)
            except Exception:
                pass
            self.thread.join(5)


# MARK: driving the app page


class App:
    """The shared browser, one tab per case, and what the app page shows."""

    def __init__(self, site, browser, network):
        self.site = site
        self.browser = browser
        self.driver = browser.driver
        self.network = network

    def new_tab(self):
        """A fresh tab (its own sessionStorage) on the app page; the case's earlier tabs are closed."""
        driver = self.driver
        driver.switch_to.new_window("tab")
        keep = driver.current_window_handle
        for handle in list(driver.window_handles):
            if handle != keep:
                driver.switch_to.window(handle)
                driver.close()
        driver.switch_to.window(keep)
        driver.get(self.site.app_url)
        return self.outcome()

    def outcome(self):
        """What getRedirectResult() settled to on the current app page: {"result": ...} or {"error": code, ...}."""
        text = self.browser.wait(
            lambda driver: driver.current_url.startswith(self.site.app_url) and driver.execute_script(
                "const o = document.getElementById('outcome'); return o && o.textContent;"),
            "the app page's getRedirectResult() to settle")
        return json.loads(text)

    def navigate_and_return(self, script, *arguments, at_login_page_approve=None):
        """Runs `script` (which navigates away), optionally approves on the IdP's login page, and answers the
        outcome of the app page the browser comes back to."""
        self.driver.execute_script("window.leaving = true;")
        self.driver.execute_script(script, *arguments)
        if at_login_page_approve:
            self.browser.at_login_page(self.site)
            self.browser.approve(at_login_page_approve)
        self.browser.wait(lambda driver: driver.current_url.startswith(self.site.app_url)
                          and driver.execute_script("return window.leaving === undefined && !!window.app;"),
                          "the return to the app page")
        return self.outcome()

    def redirect(self, provider, options=None, approve=None):
        return self.navigate_and_return("window.app.redirect(arguments[0], arguments[1]);", provider, options or {},
                                        at_login_page_approve=approve)

    def click_popup(self, request):
        from selenium.webdriver.common.by import By
        button = self.driver.find_element(By.ID, "popup")
        self.driver.execute_script("arguments[0].dataset.request = JSON.stringify(arguments[1]);", button, request)
        button.click()

    def popup_outcome(self, index):
        return self.browser.wait(
            lambda driver: driver.execute_script("return window.app.popups[arguments[0]];", index),
            "popup sign-in #%d to settle" % index)

    def query(self):
        return urllib.parse.urlsplit(self.driver.current_url).query

    def violations(self):
        return self.driver.execute_script("return window.app ? window.app.violations : ['the app script did not run'];")

    # From the browser's own network log (NetworkRecorder).

    def requests(self):
        """Every request the browser sent so far, in every tab and popup: (method, url, postData)."""
        return [(method, url, body) for method, url, body, _, _ in self.network.snapshot()]

    def redemptions(self):
        return [body for method, url, body in self.requests()
                if method == "POST" and url == self.site.origin + "/__/auth/result"]

    def visited_urls(self):
        """Every URL in the log: each request's, its document's, and each redirect's Location."""
        urls = set()
        for _, url, _, document, location in self.network.snapshot():
            urls.update(value for value in (url, document, location) if value)
        return urls


def verifier_of(body):
    fields = dict(urllib.parse.parse_qsl(body or ""))
    check("verifier" in fields, "a redemption without a verifier in its form body (the log's postData: %r)"
          % ("present" if body else body))
    return fields["verifier"]


def check_signed_in(outcome, provider, user="alice", auth_type="signInViaRedirect"):
    check("result" in outcome, "expected a result, got %s" % json.dumps(outcome)[:400])
    result = outcome["result"]
    check(result.get("providerId") == provider, "providerId %r, expected %r" % (result.get("providerId"), provider))
    check(result.get("authType") == auth_type, "authType %r, expected %r" % (result.get("authType"), auth_type))
    profile = result.get("profile") or {}
    field, expected = ("screenName", user) if provider == "twitter.com" else ("email", user + "@example.com")
    check(profile.get(field) == expected, "profile %s %r, expected %r" % (field, profile.get(field), expected))
    check((result.get("signIn") or {}).get("idToken"), "the result has no backend sign-in (signIn.idToken)")
    return result


def check_clean_return(app):
    parts = urllib.parse.urlsplit(app.driver.current_url)
    for where, text in (("query", parts.query), ("fragment", parts.fragment)):
        given = urllib.parse.parse_qs(text)
        leftover = [name for name in ("code", "eventId", "error", "error_description") if name in given]
        check(not leftover, "the address bar's %s still holds %s after the return" % (where, leftover))


# MARK: cases


def test_plain_page_and_strict_csp(app):
    """A plain page: getRedirectResult() is null; the page runs the module under the strict CSP nginx sends."""
    check(app.new_tab() == {"result": None}, "getRedirectResult() on a plain page was not null")
    status, headers, _ = app.site.fetch("/app/")
    check(status == 200 and headers.get("Content-Security-Policy") == APP_CSP,
          "nginx did not serve the app page with %r (got %r)" % (APP_CSP, headers.get("Content-Security-Policy")))
    check(app.violations() == [], "CSP violations on the app page: %s" % app.violations())
    status, headers, body = app.site.fetch("/__/auth/client.js")
    with open(os.path.join(REPO, "clients", "js", "auth-handler.js"), "rb") as handle:
        check(status == 200 and body == handle.read(), "/__/auth/client.js through nginx is not the repository's file")
    check(headers.get("Content-Type") == "text/javascript; charset=utf-8", "client.js Content-Type %r"
          % headers.get("Content-Type"))
    check("Cross-Origin-Opener-Policy" not in headers, "the daemon sent Cross-Origin-Opener-Policy")


def test_importing_the_module_does_nothing(app):
    """A page that imports the module, opened with a return in its query and its fragment: both stay, nothing is
    redeemed or stored; only getRedirectResult() completes a return."""
    app.new_tab()
    before = len(app.redemptions())
    app.driver.get(app.site.origin + "/app/import-only.html?code=not-redeemed&eventId=e-import"
                   + "#code=not-redeemed-either&eventId=e-fragment")
    exported = app.browser.wait(lambda driver: driver.execute_script("return window.imported;"), "the import")
    check(exported == ["AuthHandler", "AuthHandlerError"], "the module exports %s" % exported)
    query = urllib.parse.parse_qs(app.query())
    check(query.get("code") == ["not-redeemed"] and query.get("eventId") == ["e-import"],
          "importing the module changed the address bar's query to %s" % sorted(query))
    fragment = urllib.parse.parse_qs(urllib.parse.urlsplit(app.driver.current_url).fragment)
    check(fragment.get("code") == ["not-redeemed-either"] and fragment.get("eventId") == ["e-fragment"],
          "importing the module changed the address bar's fragment to %s" % sorted(fragment))
    check(app.driver.execute_script("return sessionStorage.length;") == 0, "importing the module stored something")
    check(len(app.redemptions()) == before, "importing the module redeemed")


def test_redirect_oidc_query_and_reload(app):
    """google.com (OIDC, query): result, clean address bar, and a reload that is null without a second redemption."""
    app.new_tab()
    before = len(app.redemptions())
    result = check_signed_in(app.redirect("google.com", {"customParameters": {"login_hint": "bob"}}), "google.com",
                             "bob")
    check(result.get("credential", {}).get("idToken"), "the OIDC credential has no idToken")
    check_clean_return(app)
    check(len(app.redemptions()) == before + 1, "expected one redemption, saw %d" % (len(app.redemptions()) - before))
    app.driver.refresh()
    check(app.outcome() == {"result": None}, "getRedirectResult() after a reload was not null")
    check(len(app.redemptions()) == before + 1, "the reload redeemed again")
    check(app.violations() == [], "CSP violations: %s" % app.violations())


def test_redirect_form_post(app):
    """apple.com (form_post): the IdP's cross-site POST reaches the daemon through nginx with its cookie."""
    app.new_tab()
    check_signed_in(app.redirect("apple.com", {"customParameters": {"login_hint": "alice"}}), "apple.com")
    check_clean_return(app)


def test_redirect_oauth1(app):
    """twitter.com (OAuth 1.0a), with scopes-free start and the login page."""
    app.new_tab()
    result = check_signed_in(app.redirect("twitter.com", approve="alice"), "twitter.com")
    check(result.get("credential", {}).get("secret"), "the OAuth 1.0a credential has no token secret")
    check_clean_return(app)


def test_popup_sign_in(app):
    """A popup opened by a click: it returns to /__/auth/popup, which hands the code to the opener and closes."""
    app.new_tab()
    opener = app.driver.current_window_handle
    index = len(app.driver.execute_script("return window.app.popups;"))
    app.click_popup({"providerId": "google.com", "options": {"customParameters": {"login_hint": "alice"}}})
    outcome = app.popup_outcome(index)
    check_signed_in(outcome, "google.com")
    app.browser.wait(lambda driver: driver.window_handles == [opener], "the popup to close itself")
    check(app.violations() == [], "CSP violations: %s" % app.violations())


def test_popup_closed_by_user(app):
    """The user closes the popup at the IdP's login page: popup-closed-by-user."""
    app.new_tab()
    opener = app.driver.current_window_handle
    app.click_popup({"providerId": "google.com"})
    popup = app.browser.wait(lambda driver: [h for h in driver.window_handles if h != opener] or None, "the popup")[0]
    app.driver.switch_to.window(popup)
    app.browser.at_login_page(app.site)
    app.driver.close()
    app.driver.switch_to.window(opener)
    outcome = app.popup_outcome(0)
    check(outcome.get("error") == "popup-closed-by-user", "expected popup-closed-by-user, got %s" % outcome)


def test_second_popup_cancels_the_first(app):
    """A second popup sign-in while one is open: the first rejects with cancelled-popup-request, the second works."""
    app.new_tab()
    opener = app.driver.current_window_handle
    app.click_popup({"providerId": "google.com"})
    app.browser.wait(lambda driver: len(driver.window_handles) == 2, "the first popup")
    app.click_popup({"providerId": "twitter.com", "options": {"customParameters": {"screen_name": "alice"}}})
    first = app.popup_outcome(0)
    check(first.get("error") == "cancelled-popup-request", "the first popup ended with %s" % first)
    check_signed_in(app.popup_outcome(1), "twitter.com")
    app.browser.wait(lambda driver: driver.window_handles == [opener], "the popup to close itself")
    # Each sign-in's popup has a name of its own, at random, so the second opened a window of its own instead of
    # being looked up by name (the first was closed by the module).
    names = app.driver.execute_script("return window.app.popupNames;")
    check(len(names) == 2 and len(set(names)) == 2, "the two popups' window names are %s" % names)
    check(all(name.startswith("auth-handler-popup-") and len(name) >= len("auth-handler-popup-") + 22
              for name in names), "a popup's window name is not the prefix and 16 random bytes: %s" % names)


def test_popup_outside_a_user_gesture(app):
    """signInWithPopup called from script, not from a click: the browser blocks it, popup-blocked."""
    app.new_tab()
    app.driver.execute_script("window.app.popupOutsideGesture('google.com');")
    outcome = app.popup_outcome(0)
    check(outcome.get("error") == "popup-blocked", "expected popup-blocked, got %s" % outcome)
    check(len(app.driver.window_handles) == 1, "a popup opened anyway")


def test_sign_in_through_the_provider_picker(app):
    """signInWithRedirect(null): the daemon's picker (/__/auth/signin), then the provider the user picks."""
    from selenium.webdriver.common.by import By
    app.new_tab()
    app.driver.execute_script("window.leaving = true; window.app.redirect(null);")
    picker = app.site.origin + "/__/auth/signin?"
    app.browser.wait(lambda driver: driver.current_url.startswith(picker), "the provider picker")
    status = app.browser.document_status(app.driver.current_url)
    check(status == 200, "the provider picker answered %s (a build without GET /__/auth/signin answers 404)" % status)
    query = urllib.parse.parse_qs(app.query())
    check("providerId" not in query and "resultChallenge" in query and "eventId" in query,
          "the picker's query is not a start's without providerId: %s" % sorted(query))
    links = app.driver.find_elements(By.CSS_SELECTOR, 'a[data-provider-id="google.com"]')
    check(links, "the picker shows no a[data-provider-id=\"google.com\"]")
    links[0].click()
    app.browser.at_login_page(app.site)
    app.browser.approve("alice")
    app.browser.wait(lambda driver: driver.current_url.startswith(app.site.app_url)
                     and driver.execute_script("return window.leaving === undefined;"), "the return to the app")
    check_signed_in(app.outcome(), "google.com")


def test_two_tabs_at_once(app):
    """Two tabs sign in at once, completed in the opposite order; a third tab given one's return URL does not
    redeem it (no-pending-sign-in), whether the return is in the fragment or in the query."""
    app.new_tab()
    driver = app.driver
    first = driver.current_window_handle
    driver.execute_script("window.leaving = true; window.app.redirect('google.com');")
    app.browser.at_login_page(app.site)
    driver.switch_to.new_window("tab")
    second = driver.current_window_handle
    driver.get(app.site.app_url)
    app.outcome()
    driver.execute_script("window.leaving = true; window.app.redirect('twitter.com');")
    app.browser.at_login_page(app.site)
    redeemed = len(app.redemptions())
    app.browser.approve("bob")
    app.browser.wait(lambda d: d.current_url.startswith(app.site.app_url)
                     and d.execute_script("return window.leaving === undefined;"), "tab 2's return")
    check_signed_in(app.outcome(), "twitter.com", "bob")
    # The result is in the fragment, which is in no request's URL: the copied URL is the 303's Location.
    returns = [location for _, _, _, _, location in app.network.snapshot()
               if location and location.startswith(app.site.app_url + "#") and "code=" in location]
    check(returns, "the browser log has no 303 back to the app with a code in its fragment")
    copied = returns[-1]
    driver.switch_to.window(first)
    app.browser.approve("alice")
    app.browser.wait(lambda d: d.current_url.startswith(app.site.app_url)
                     and d.execute_script("return window.leaving === undefined;"), "tab 1's return")
    check_signed_in(app.outcome(), "google.com", "alice")
    check(len(app.redemptions()) == redeemed + 2, "expected two redemptions")
    driver.switch_to.new_window("tab")
    driver.get(copied)
    outcome = app.outcome()
    check(outcome.get("error") == "no-pending-sign-in", "a copied return URL gave %s" % outcome)
    check_clean_return(app)
    check(len(app.redemptions()) == redeemed + 2, "the copied return URL was redeemed")
    # The same return in the query, as a sign-in started without resultDelivery comes back: still read, and cleared.
    driver.get(app.site.app_url + "?" + urllib.parse.urlsplit(copied).fragment)
    outcome = app.outcome()
    check(outcome.get("error") == "no-pending-sign-in", "the return in the query gave %s" % outcome)
    check_clean_return(app)
    check(len(app.redemptions()) == redeemed + 2, "the return in the query was redeemed")
    driver.switch_to.window(second)


def test_link_with_id_token(app):
    """linkWithRedirect with the ID token of a Google sign-in: carol's twitter.com is linked to that account."""
    app.new_tab()
    signed_in = check_signed_in(app.redirect("google.com", {"customParameters": {"login_hint": "alice"}}),
                                "google.com")
    account, id_token = signed_in["signIn"].get("localId"), signed_in["signIn"]["idToken"]
    outcome = app.navigate_and_return("window.app.link(arguments[0], arguments[1], arguments[2]);", "twitter.com",
                                      id_token, {"customParameters": {"screen_name": "carol"}})
    linked = check_signed_in(outcome, "twitter.com", "carol", auth_type="linkViaRedirect")
    check(account and linked["signIn"].get("localId") == account,
          "the link landed on account %r, not the signed-in %r" % (linked["signIn"].get("localId"), account))
    body = app.redemptions()[-1]
    check(dict(urllib.parse.parse_qsl(body or "")).get("idToken") == id_token,
          "the link's redemption did not carry the idToken")
    check(not any(id_token in url for url in app.visited_urls()), "the ID token appeared in a URL")


def test_account_exists_with_different_credential(app):
    """The backend's needConfirmation: the error carries its code and email, like Firebase's customData."""
    app.new_tab()
    outcome = app.redirect("google.com", {"customParameters": {"login_hint": "conflict"}})
    check(outcome.get("error") == "account-exists-with-different-credential",
          "expected account-exists-with-different-credential, got %s" % outcome)
    check(outcome.get("email") == "conflict@example.com", "the error's email is %r" % outcome.get("email"))
    check((outcome.get("customData") or {}).get("email") == "conflict@example.com", "customData has no email")
    check_clean_return(app)


def test_the_result_reaches_no_server(app):
    """A redirect sign-in's result comes back in the fragment (resultDelivery=fragment, HTTP-API.md §3.2): the
    return page's own request and its subresources, requested before the module runs (the image, the app's script),
    carry no code or eventId in their URL or Referer, as nginx's access log shows. (The provider's own `code` on the
    way to /__/auth/handler is not the result: only the app's requests are checked for one in their URL.)"""
    app.new_tab()
    seen = len(app.site.access_log())
    check_signed_in(app.redirect("google.com", {"customParameters": {"login_hint": "alice"}}), "google.com")
    check_clean_return(app)
    logged = app.site.access_log()[seen:]
    # (The module itself is imported by app.js, whose URL is its Referer, and is cached: it need not show here.)
    for path in ("/app/pixel.gif", "/app/app.js"):
        check(any(request.split(" ")[1:2] == [path] and referer.startswith(app.site.app_url)
                  for request, referer in logged),
              "the return page's %s is not in nginx's access log with the page as Referer" % path)
    def returned(url):
        """The return parameters `url`'s query holds, by name only (their values are result codes)."""
        return sorted(set(urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)) & {"code", "eventId"})

    leaked = ["%s (in its URL: %s; in its Referer: %s)" % (urllib.parse.urlsplit(request.split(" ")[1]).path,
                                                         returned(request.split(" ")[1]), returned(referer))
              for request, referer in logged
              if len(request.split(" ")) == 3
              and ((request.split(" ")[1].startswith("/app/") and returned(request.split(" ")[1])) or returned(referer))]
    check(not leaked, "the result reached nginx: %s" % leaked[:3])
    starts = [url for _, url, _ in app.requests() if url.startswith(app.site.origin + "/__/auth/handler?provider")]
    check(starts and urllib.parse.parse_qs(urllib.parse.urlsplit(starts[-1]).query).get("resultDelivery")
          == ["fragment"], "the module's start did not ask for resultDelivery=fragment")


def test_no_verifier_in_any_url(app):
    """Every verifier the browser sent (in redemption bodies) appears in no URL it visited; each start carried
    its S256 challenge."""
    redemptions = app.redemptions()
    check(redemptions, "no redemption in the browser's log: nothing to check")
    verifiers = [verifier_of(body) for body in redemptions]
    check(all(len(base64.urlsafe_b64decode(v + "=" * (-len(v) % 4))) == 32 for v in verifiers),
          "a verifier is not 32 random bytes in base64url")
    urls = app.visited_urls()
    leaked = [v[:6] + "…" for v in verifiers if any(v in url for url in urls)]
    check(not leaked, "verifiers found in visited URLs: %s" % leaked)
    challenges = set()
    for url in urls:
        if "/__/auth/" in url:
            challenges.update(urllib.parse.parse_qs(urllib.parse.urlsplit(url).query).get("resultChallenge", []))
    missing = 0
    for verifier in verifiers:
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        missing += challenge not in challenges
    check(not missing, "%d of %d redeemed verifiers had no start carrying their S256 challenge (%d starts seen)"
          % (missing, len(verifiers), len(challenges)))


CASES = [
    test_plain_page_and_strict_csp,
    test_importing_the_module_does_nothing,
    test_redirect_oidc_query_and_reload,
    test_the_result_reaches_no_server,
    test_redirect_form_post,
    test_redirect_oauth1,
    test_popup_sign_in,
    test_popup_closed_by_user,
    test_second_popup_cancels_the_first,
    test_popup_outside_a_user_gesture,
    test_sign_in_through_the_provider_picker,
    test_two_tabs_at_once,
    test_link_with_id_token,
    test_account_exists_with_different_credential,
    test_no_verifier_in_any_url,
]


def main():
    selected = [case for case in CASES if len(sys.argv) < 2 or any(name in case.__name__ for name in sys.argv[1:])]
    site = Site()

    def setup(keep):
        browser = common.Browser(site.directory, "client", block_popups=True)
        keep(browser.quit)
        network = NetworkRecorder(browser)
        keep(network.stop)
        return App(site, browser, network)

    return common.run_in_order(selected, site, setup, "browser client tests")


if __name__ == "__main__":
    common.run_script(main)
