#!/usr/bin/python3
"""The browser module's account calls (docs/CLIENTS.md "Accounts in the browser") in real Chromium.

The deployment is browser_client_test.py's (whose Site this reuses): nginx serves an app page under
`Content-Security-Policy: script-src 'self'; connect-src 'self'` and proxies `/__/auth/` to `auth-handler serve` on
the same origin, here with backend `accounts` (its publicURL is nginx's origin, which its ID tokens and cookie name).
The page imports `/__/auth/client.js` and exposes what the test calls through WebDriver. Two tabs of one browser share
the origin's session cookie, Web Locks and BroadcastChannel, as a user's tabs do.

Prints one line per case and `N passed, N failed`; exits 1 on any failure. The cases run in order on one browser:
each starts from where the one before left the user.
"""

import os
import signal
import sys
import time
import urllib.request
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser_client_test as client  # noqa: E402
import browser_signin_test as common  # noqa: E402
from browser_signin_test import TestFailure, check  # noqa: E402

STEP_TIMEOUT = common.STEP_TIMEOUT
EMAIL = "dana@example.com"
PASSWORD = "correct horse battery staple 42"

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>accounts</title>
<script type="module" src="/app/accounts.js"></script></head><body><main></main></body></html>
"""

# Every call answers {result} or {error, operation}; `events` is what onAuthStateChanged reported, in order.
SCRIPT = """import { AuthHandler, AuthHandlerError } from "/__/auth/client.js";

const auth = new AuthHandler();
const events = [];
const violations = [];
document.addEventListener("securitypolicyviolation", (event) => violations.push(event.violatedDirective));

function settle(promise) {
    return promise.then(
        (result) => ({ result: result ?? null }),
        (error) => error instanceof AuthHandlerError
            ? { error: error.code, operation: error.operation ?? null }
            : { unexpected: String(error) },
    );
}

let releaseLock = null;
window.app = {
    loaded: true,
    events,
    violations,
    listen: () => { auth.onAuthStateChanged((user) => events.push(user ? user.email : null)); },
    call: (name, ...args) => settle(Promise.resolve().then(() => auth[name](...args))),
    user: () => auth.currentUser(),
    // Holds the module's refresh lock until releaseLock(), so that calls made meanwhile in any tab all wait for it.
    holdLock: () => new Promise((held) => {
        navigator.locks.request("auth-handler-refresh", () => new Promise((release) => {
            releaseLock = release;
            held(true);
        }));
    }),
    releaseLock: () => releaseLock(),
    redirect: (providerId) => { auth.signInWithRedirect(providerId); },
    returned: null,
    pending: {},
    start: (key, name, ...args) => {
        window.app.pending[key] = null;
        window.app.call(name, ...args).then((outcome) => { window.app.pending[key] = outcome; });
    },
};
settle(auth.getRedirectResult()).then((outcome) => { window.app.returned = outcome; });
"""


class AccountsSite(client.Site):
    """browser_client_test.py's nginx-fronted daemon, with the daemon's own accounts as the backend."""

    def _daemon_config(self):
        config = super()._daemon_config()
        config["allowedRedirectURLs"].append(self.origin + "/app/accounts.html")
        config["backend"] = {"kind": "accounts",
                             "database": {"kind": "sqlite", "path": os.path.join(self.directory, "accounts.sqlite")}}
        return config

    def start(self):
        super().start()
        site = os.path.join(self.directory, "site", "app")
        for name, text in (("accounts.html", PAGE), ("accounts.js", SCRIPT)):
            with open(os.path.join(site, name), "w") as handle:
                handle.write(text)
        self.page_url = self.origin + "/app/accounts.html"

    def refreshes(self):
        """auth_handler_accounts_refreshes_total{outcome="success"} from the daemon's /metrics."""
        with urllib.request.urlopen(self.daemon_url + "/metrics", timeout=STEP_TIMEOUT) as response:
            text = response.read().decode()
        for line in text.splitlines():
            if line.startswith('auth_handler_accounts_refreshes_total{outcome="success"}'):
                return int(float(line.split()[-1]))
        return 0


class Tabs:
    """The browser's tabs on the accounts page, by name."""

    def __init__(self, site, browser):
        self.site = site
        self.browser = browser
        self.driver = browser.driver
        self.handles = {}

    def open(self, name):
        if self.handles:
            self.driver.switch_to.new_window("tab")
        self.handles[name] = self.driver.current_window_handle
        self.load(name)

    def load(self, name):
        self.use(name)
        self.driver.get(self.site.page_url)
        self.browser.wait(lambda driver: driver.execute_script("return !!(window.app && window.app.loaded);"),
                          "the accounts page's script in tab " + name)

    def use(self, name):
        self.driver.switch_to.window(self.handles[name])

    def run(self, name, script, *arguments):
        self.use(name)
        return self.driver.execute_script(script, *arguments)

    def call(self, name, method, *arguments):
        """`auth[method](...arguments)` in tab `name`, awaited: {result} or {error, operation}."""
        self.use(name)
        return self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "window.app.call(arguments[0], ...Array.from(arguments).slice(1, -1)).then(done);", method, *arguments)

    def wait(self, name, script, what):
        self.use(name)
        return self.browser.wait(lambda driver: driver.execute_script(script), what)


def test_sign_up(tabs):
    tabs.open("a")
    check(tabs.run("a", "return window.app.user();") is None, "a fresh page has a current user")
    outcome = tabs.call("a", "signUpWithEmail", EMAIL, PASSWORD, "Dana")
    check("result" in outcome, "sign-up failed: %s" % outcome)
    result = outcome["result"]
    check(result.get("isNewUser") is True and result["user"]["email"] == EMAIL, "sign-up answered %s" % result)
    check(not result.get("refreshToken"), "the sign-up answer handed the page a refresh token")
    user = tabs.run("a", "return window.app.user();")
    check(user and user["email"] == EMAIL and user["sub"] == result["localId"], "currentUser() is %s" % user)
    check(tabs.run("a", "return window.app.violations;") == [], "the page broke its CSP")


def test_reload_restores_the_session(tabs):
    before = tabs.site.refreshes()
    tabs.load("a")
    check(tabs.run("a", "return window.app.user();") is None, "the ID token outlived the page (it must be memory only)")
    outcome = tabs.call("a", "getIdToken")
    check(isinstance(outcome.get("result"), str), "getIdToken() after a reload answered %s" % outcome)
    user = tabs.run("a", "return window.app.user();")
    check(user and user["email"] == EMAIL, "the reload did not restore the user: %s" % user)
    check(tabs.site.refreshes() == before + 1, "restoring took %d refreshes, not 1" % (tabs.site.refreshes() - before))
    # A second call answers the token in memory.
    check(tabs.call("a", "getIdToken") == outcome, "a second getIdToken() answered another token")
    check(tabs.site.refreshes() == before + 1, "a fresh token in memory was refreshed again")


def test_two_tabs_refresh_once(tabs):
    tabs.open("b")
    check(isinstance(tabs.call("b", "getIdToken").get("result"), str), "tab b did not find the session")
    old = tabs.call("a", "getIdToken")["result"]
    before = tabs.site.refreshes()
    # Tab a holds the refresh lock, so both forced refreshes are waiting for it at once when it is released.
    tabs.use("a")
    tabs.driver.execute_async_script("window.app.holdLock().then(arguments[arguments.length - 1]);")
    tabs.run("a", "window.app.start('force', 'getIdToken', {forceRefresh: true});")
    tabs.run("b", "window.app.start('force', 'getIdToken', {forceRefresh: true});")
    tabs.run("a", "window.app.releaseLock();")
    first = tabs.wait("a", "return window.app.pending.force;", "tab a's forced refresh")
    second = tabs.wait("b", "return window.app.pending.force;", "tab b's forced refresh")
    check(isinstance(first.get("result"), str) and first["result"] != old, "tab a got %s" % first)
    check(second == first, "tab b got another token than tab a: %s" % second)
    check(tabs.site.refreshes() == before + 1,
          "two tabs refreshing at once made %d /__/auth/token calls, not 1" % (tabs.site.refreshes() - before))


def test_sign_out_reaches_every_tab(tabs):
    tabs.run("b", "window.app.listen();")
    tabs.wait("b", "return window.app.events.length === 1;", "onAuthStateChanged's first call in tab b")
    check(tabs.run("b", "return window.app.events;") == [EMAIL], "tab b's first state was not the user")
    check(tabs.call("a", "signOut") == {"result": {"signedOut": "local"}}, "sign-out failed")
    tabs.wait("b", "return window.app.events.length === 2;", "tab b to hear of the sign-out")
    check(tabs.run("b", "return window.app.events;") == [EMAIL, None], "tab b's states: %s"
          % tabs.run("b", "return window.app.events;"))
    check(tabs.run("b", "return window.app.user();") is None, "tab b still has a user")
    check(tabs.call("b", "getIdToken") == {"result": None}, "tab b still finds a session")
    check(tabs.call("a", "deleteUser") == {"error": "no-current-user", "operation": None},
          "an account call without a user did not answer no-current-user")


def test_sign_in_and_no_refresh_token_in_page_reach(tabs):
    outcome = tabs.call("a", "signInWithEmail", EMAIL, PASSWORD)
    check(outcome.get("result", {}).get("user", {}).get("email") == EMAIL, "sign-in answered %s" % outcome)
    tabs.wait("b", "return window.app.events.length === 3;", "tab b to hear of the sign-in")
    check(tabs.call("a", "getIdToken", {"forceRefresh": True}).get("result"), "the refresh after sign-in failed")
    cookies = tabs.driver.execute_cdp_cmd("Network.getAllCookies", {})["cookies"]
    session = [cookie for cookie in cookies if cookie["name"] == "auth_handler_session"]
    check(len(session) == 1 and session[0]["value"], "no session cookie: %s" % [c["name"] for c in cookies])
    check(session[0]["httpOnly"] and session[0]["path"] == "/__/auth/", "the session cookie is %s"
          % {key: session[0][key] for key in ("httpOnly", "path", "sameSite")})
    refresh_token = session[0]["value"]
    id_token = tabs.call("a", "getIdToken")["result"]
    for name in ("a", "b"):
        reach = tabs.run(name, """return [document.cookie, JSON.stringify(Object.entries(localStorage)),
            JSON.stringify(Object.entries(sessionStorage)), location.href, window.name,
            JSON.stringify(performance.getEntries().map((entry) => entry.name))].join("\\n");""")
        check(refresh_token not in reach, "page script in tab %s can read the refresh token" % name)
        check(id_token not in reach, "the ID token is stored or in a URL in tab %s" % name)
        check(tabs.run(name, "return localStorage.length + sessionStorage.length;") == 0,
              "tab %s stored something" % name)


def test_update_profile(tabs):
    outcome = tabs.call("a", "updateProfile", {"displayName": "Dana B."})
    check(outcome.get("result", {}).get("displayName") == "Dana B.", "updateProfile answered %s" % outcome)


def test_provider_sign_in_signs_the_module_in(tabs):
    check(tabs.call("a", "signOut").get("result"), "signing dana out failed")
    tabs.run("a", "window.app.redirect('google.com');")
    tabs.browser.at_login_page(tabs.site)
    tabs.browser.approve("alice")
    outcome = tabs.wait("a", "return window.app && window.app.returned;", "the return to the accounts page")
    sign_in = (outcome.get("result") or {}).get("signIn") or {}
    check(sign_in.get("idToken"), "the redemption carried no signIn: %s" % outcome)
    check("refreshToken" not in sign_in, "the redemption handed the page a refresh token")
    user = tabs.run("a", "return window.app.user();")
    check(user and user["email"] == "alice@example.com", "the module is not signed in after the redemption: %s" % user)
    tabs.wait("b", "return window.app.events[window.app.events.length - 1] === 'alice@example.com';",
              "tab b to hear of alice's sign-in")
    check(tabs.call("a", "getIdToken", {"forceRefresh": True}).get("result"), "the redemption set no session cookie")


def test_errors_and_delete_user(tabs):
    check(tabs.call("a", "signInWithEmail", EMAIL, "not the password") == {"error": "invalid-credential",
                                                                             "operation": None},
          "a wrong password did not answer the daemon's invalid-credential")
    # No backend.email here: the daemon refuses to send mail, and the module hands its code on.
    outcome = tabs.call("a", "sendPasswordResetEmail", EMAIL)
    check(outcome.get("error") == "operation-not-allowed", "a reset without mail answered %s" % outcome)
    check(tabs.run("a", "return window.app.user().email;") == "alice@example.com", "a failed call changed the user")
    local_id = tabs.run("a", "return window.app.user().sub;")
    outcome = tabs.call("a", "deleteUser")
    check(outcome.get("result", {}).get("deleted") == local_id, "deleteUser answered %s" % outcome)
    check(tabs.run("a", "return window.app.user();") is None, "tab a still has a user after deleteUser")
    tabs.wait("b", "return window.app.events[window.app.events.length - 1] === null;", "tab b to hear of the deletion")
    check(tabs.call("b", "getIdToken", {"forceRefresh": True}) == {"result": None}, "the deleted user's cookie works")


CASES = [test_sign_up, test_reload_restores_the_session, test_two_tabs_refresh_once, test_sign_out_reaches_every_tab,
         test_sign_in_and_no_refresh_token_in_page_reach, test_update_profile,
         test_provider_sign_in_signs_the_module_in, test_errors_and_delete_user]


def main():
    passed = failed = 0
    site = AccountsSite()
    browser = None
    began = time.monotonic()
    try:
        try:
            site.start()
            browser = common.Browser(site.directory, "accounts")
            setup_error = None
        except TestFailure as error:
            setup_error = str(error)
        except Exception as error:
            setup_error = "%s: %s" % (type(error).__name__, error)
        tabs = Tabs(site, browser) if browser and not setup_error else None
        for test in CASES:
            started = time.monotonic()
            if setup_error:
                failed += 1
                print("FAIL %s: setup failed: %s" % (test.__name__, setup_error), flush=True)
                continue
            error = common.failure_of(lambda: test(tabs))
            took = time.monotonic() - started
            if error:
                failed += 1
                print("FAIL %s (%.1f s): %s" % (test.__name__, took, error), flush=True)
                print(site.failure_context(), flush=True)
            else:
                passed += 1
                print("ok   %s (%.1f s)" % (test.__name__, took), flush=True)
    finally:
        if browser:
            browser.quit()
        site.stop()
    print("browser accounts tests took %.1f s" % (time.monotonic() - began), flush=True)
    print("%d passed, %d failed" % (passed, failed), flush=True)
    return 1 if failed else 0


def _terminated(signum, frame):
    raise SystemExit("terminated by signal %d" % signum)


if __name__ == "__main__":
    warnings.filterwarnings("ignore", module="trio_websocket")
    signal.signal(signal.SIGTERM, _terminated)
    sys.exit(main())
