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

import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser_client_test as client  # noqa: E402
import browser_signin_test as common  # noqa: E402
from browser_signin_test import TestFailure, check  # noqa: E402

STEP_TIMEOUT = common.STEP_TIMEOUT
EMAIL = "dana@example.com"
PASSWORD = "correct horse battery staple 42"
# What updateEmail, updatePassword and the reset mail change them to.
NEW_EMAIL = "dana.b@example.com"
NEW_PASSWORD = "another horse battery staple 43"
RESET_PASSWORD = "a third horse battery staple 44"

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
            ? { error: error.code, operation: error.operation ?? null,
                ...(error.pendingCredential ? { pendingCredential: error.pendingCredential, verifier: error.verifier }
                                            : {}) }
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
    """browser_client_test.py's nginx-fronted daemon, with the daemon's own accounts as the backend (on the engine
    ACCOUNTS_DATABASE names: `database`), its mail in an outbox directory, and a fake IdP user with dana's address
    (the account-exists case)."""

    IDP_USERS = client.Site.IDP_USERS + [{"name": "dana", "id": "1006", "email": EMAIL}]

    def _daemon_config(self):
        config = super()._daemon_config()
        config["allowedRedirectURLs"].append(self.origin + "/app/accounts.html")
        self.outbox = os.path.join(self.directory, "outbox")
        os.makedirs(self.outbox, mode=0o700)
        config["backend"] = {"kind": "accounts",
                             "email": {"from": "Accounts Test <no-reply@example.com>", "outbox": self.outbox},
                             # Every tab here is one client (loopback): room for all the cases' password hashing.
                             "password": {"rateLimit": {"perMinute": 120, "burst": 60}}}
        self.database.configure(config)
        return config

    def post(self, path, body, form=False):
        """(status, JSON answer) of a POST straight to the daemon, as an app's server or a second device would make it
        (no cookie mode: a refresh token in the body)."""
        data = urllib.parse.urlencode(body).encode() if form else json.dumps(body).encode()
        kind = "application/x-www-form-urlencoded" if form else "application/json"
        request = urllib.request.Request(self.daemon_url + path, data=data, method="POST",
                                         headers={"Content-Type": kind, "Accept": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=STEP_TIMEOUT) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def other_session(self, email, password):
        """A second session of the user, as another device holds it: its refresh token."""
        status, answer = self.post("/__/auth/password/sign-in", {"email": email, "password": password})
        check(status == 200 and answer.get("refreshToken"), "a second device's sign-in answered %s %s"
              % (status, answer.get("error") if isinstance(answer, dict) else answer))
        return answer["refreshToken"]

    def refresh_status(self, refresh_token):
        return self.post("/__/auth/token", {"grant_type": "refresh_token", "refresh_token": refresh_token},
                         form=True)[0]

    def start(self):
        self.database = common.accounts_database(self.directory)
        self.database.start()
        super().start()
        site = os.path.join(self.directory, "site", "app")
        for name, text in (("accounts.html", PAGE), ("accounts.js", SCRIPT)):
            with open(os.path.join(site, name), "w") as handle:
                handle.write(text)
        self.page_url = self.origin + "/app/accounts.html"

    def stop(self):
        super().stop()
        if getattr(self, "database", None):
            self.database.stop()

    def refreshes(self):
        """auth_handler_accounts_refreshes_total{outcome="success"} from the daemon's /metrics."""
        with urllib.request.urlopen(self.daemon_url + "/metrics", timeout=STEP_TIMEOUT) as response:
            text = response.read().decode()
        for line in text.splitlines():
            if line.startswith('auth_handler_accounts_refreshes_total{outcome="success"}'):
                return int(float(line.split()[-1]))
        return 0


def mailed_link(outbox, to, origin, mode):
    """The `mode` action link (HTTP-API.md §3.10) of the outbox's newest mail to `to`: the daemon writes each message
    as one `.eml` file, after the call that sends it has answered."""
    import email
    import email.policy
    import re
    deadline = time.monotonic() + STEP_TIMEOUT
    while time.monotonic() < deadline:
        names = sorted(os.listdir(outbox)) if os.path.isdir(outbox) else []
        for name in reversed([name for name in names if name.endswith(".eml")]):
            with open(os.path.join(outbox, name), "rb") as handle:
                message = email.message_from_binary_file(handle, policy=email.policy.default)
            if to not in str(message["To"]):
                continue
            text = message.get_body(("plain",)).get_content()
            match = re.search(re.escape(origin) + r"/__/auth/action\?\S*mode=" + mode + r"\S*", text)
            if match:
                os.remove(os.path.join(outbox, name))  # taken: the next wait for this address finds the next mail
                return match.group(0)
        # The mail queue gives no event to wait on; the directory is looked at again until the deadline.
        time.sleep(0.05)
    raise TestFailure("no %s mail to %s reached %s" % (mode, to, outbox))


def follow_action_link(browser, link, new_password=None):
    """Opens an e-mailed action link in the current tab and confirms its page (GET, then the page's POST)."""
    from selenium.webdriver.common.by import By
    browser.driver.get(link)
    if new_password is not None:
        browser.driver.find_element(By.ID, "newPassword").send_keys(new_password)
    browser.driver.find_element(By.ID, "action-confirm").click()
    browser.wait(lambda driver: driver.find_elements(By.ID, "action-done") or driver.find_elements(By.ID, "action-problem"),
                 "the action page's answer")
    problem = browser.driver.find_elements(By.ID, "action-problem")
    check(not problem, "the action page refused: %s" % (problem[0].text if problem else ""))


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

    def follow(self, link, new_password=None):
        """An e-mailed link, followed in a tab of its own (`mail`), so that the app's tabs keep their pages."""
        if "mail" not in self.handles:
            self.driver.switch_to.new_window("tab")
            self.handles["mail"] = self.driver.current_window_handle
        self.use("mail")
        follow_action_link(self.browser, link, new_password)

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
    # The account is in the database of the engine under test (a config that fell back to another would fail here).
    stored = tabs.site.database.rows("SELECT local_id FROM account_users WHERE normalized_email = :address",
                                     address=EMAIL)
    check(stored == [(result["localId"],)], "the %s database holds %s for %s, not the new account %s"
          % (tabs.site.database.engine, stored, EMAIL, result["localId"]))
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
    tabs.signed_in_at = time.time()
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
    check_network_log(tabs, refresh_token)


def check_network_log(tabs, refresh_token):
    """What the network carried to and from the page, from DevTools (chromedriver's performance log of the tabs): no
    request's URL or body holds a refresh token, and no answer the page's script received does."""
    tabs.use("a")
    events = tabs.browser._performance_log()
    checked_token_answers = 0
    for event in events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Network.requestWillBeSent":
            request = params.get("request", {})
            for part in (request.get("url", ""), request.get("postData") or ""):
                check(refresh_token not in part and "refresh_token=" not in part and '"refreshToken"' not in part,
                      "a request carried a refresh token: %s %s" % (request.get("method"), request.get("url")))
        elif method == "Network.responseReceived" and params.get("type") == "Fetch":
            url = params.get("response", {}).get("url", "")
            if "/__/auth/" not in url:
                continue
            try:
                body = tabs.driver.execute_cdp_cmd("Network.getResponseBody", {"requestId": params["requestId"]})
            except Exception:
                continue  # another tab's request, or a body the browser no longer keeps
            text = body.get("body", "")
            answer = json.loads(text) if text.startswith("{") else {}
            check(refresh_token not in text and not answer.get("refresh_token") and not answer.get("refreshToken"),
                  "the page's script received a refresh token from %s" % url.split("?")[0])
            checked_token_answers += url.endswith("/__/auth/token")
    check(checked_token_answers > 0, "no /__/auth/token answer was in the network log to check")


def test_update_profile(tabs):
    outcome = tabs.call("a", "updateProfile", {"displayName": "Dana B."})
    check(outcome.get("result", {}).get("displayName") == "Dana B.", "updateProfile answered %s" % outcome)


def test_verification_mail(tabs):
    check(tabs.call("a", "sendEmailVerification") == {"result": {"sent": True}}, "sendEmailVerification failed")
    check(tabs.run("a", "return window.app.user().email_verified;") is False, "a new address counts as verified")
    tabs.follow(mailed_link(tabs.site.outbox, EMAIL, tabs.site.origin, "verifyEmail"))
    check(tabs.call("a", "getIdToken", {"forceRefresh": True}).get("result"), "the refresh after verifying failed")
    check(tabs.run("a", "return window.app.user().email_verified;") is True, "the followed link verified nothing")


def test_requires_recent_login_then_link_and_unlink(tabs):
    # dana's Google sign-in of her (verified) address meets her password account: account-exists, with the pending
    # credential and the redemption's verifier. Her session signed in before that credential was issued, so link()
    # wants a recent sign-in first, and says so. The daemon compares whole seconds and allows one second
    # (AccountsEngine.linkPending): the session must be over 2 s older than the credential. The cases before this one
    # usually took that long; the rest of it is waited out here, as time has to pass, not an event to happen.
    time.sleep(max(0.0, tabs.signed_in_at + 2.2 - time.time()))
    tabs.run("a", "window.app.redirect('google.com');")
    tabs.browser.at_login_page(tabs.site)
    tabs.browser.approve("dana")
    returned = tabs.wait("a", "return window.app && window.app.returned;", "the return to the accounts page")
    check(returned.get("error") == "account-exists-with-different-credential" and returned.get("pendingCredential")
          and returned.get("verifier"), "the Google sign-in answered %s" % {key: returned.get(key) for key in
                                                                             ("error", "result", "unexpected")})
    pending, verifier = returned["pendingCredential"], returned["verifier"]
    outcome = tabs.call("a", "link", pending, verifier)
    check(outcome == {"error": "requires-recent-login", "operation": "link"},
          "a link from an older sign-in did not answer requires-recent-login naming link(): %s" % outcome)
    outcome = tabs.call("a", "reauthenticateWithPassword", PASSWORD)
    check(isinstance(outcome.get("result", {}).get("idToken"), str), "reauthenticateWithPassword answered %s" % outcome)
    outcome = tabs.call("a", "link", pending, verifier)
    providers = [info["providerId"] for info in outcome.get("result", {}).get("providerUserInfo", [])]
    check(providers == ["google.com"], "the retried link answered %s" % outcome)
    outcome = tabs.call("a", "unlink", "google.com")
    check(outcome.get("result", {}).get("providerUserInfo") == [], "unlink answered %s" % outcome)
    check(tabs.call("a", "unlink", "google.com").get("error"), "a second unlink of google.com succeeded")


def test_update_email(tabs):
    check(tabs.call("a", "updateEmail", NEW_EMAIL) == {"result": {"sent": True}}, "updateEmail failed")
    check(tabs.run("a", "return window.app.user().email;") == EMAIL, "updateEmail changed the address before the link")
    tabs.follow(mailed_link(tabs.site.outbox, NEW_EMAIL, tabs.site.origin, "verifyAndChangeEmail"))
    # The old address is told, with a link that would undo it.
    mailed_link(tabs.site.outbox, EMAIL, tabs.site.origin, "recoverEmail")
    check(tabs.call("a", "getIdToken", {"forceRefresh": True}).get("result"), "the refresh after the change failed")
    check(tabs.run("a", "return window.app.user().email;") == NEW_EMAIL, "the followed link changed no address")


def test_update_password_and_sign_out_scopes(tabs):
    other = tabs.site.other_session(NEW_EMAIL, PASSWORD)
    check(tabs.call("a", "signOut", {"scope": "others"}) == {"result": {"signedOut": "others"}},
          "signOut({scope: 'others'}) failed")
    check(tabs.site.refresh_status(other) == 400, "signOut others left another device's session alive")
    check(tabs.call("a", "getIdToken", {"forceRefresh": True}).get("result"), "signOut others ended this session")
    outcome = tabs.call("a", "updatePassword", NEW_PASSWORD)
    result = outcome.get("result") or {}
    check(result.get("user", {}).get("email") == NEW_EMAIL and "refreshToken" not in result,
          "updatePassword answered %s" % {key: outcome.get(key) for key in ("error", "unexpected")})
    check(tabs.call("a", "getIdToken", {"forceRefresh": True}).get("result"), "updatePassword left no session here")
    check(tabs.site.post("/__/auth/password/sign-in", {"email": NEW_EMAIL, "password": PASSWORD})[0] == 400,
          "the old password still signs in")
    other = tabs.site.other_session(NEW_EMAIL, NEW_PASSWORD)
    events_in_b = len(tabs.run("b", "return window.app.events;"))
    check(tabs.call("a", "signOut", {"scope": "global"}) == {"result": {"signedOut": "global"}},
          "signOut({scope: 'global'}) failed")
    check(tabs.run("a", "return window.app.user();") is None, "tab a has a user after a global sign-out")
    tabs.wait("b", "return window.app.events.length > %d && window.app.events[window.app.events.length - 1] === null;"
              % events_in_b, "tab b to hear of the global sign-out")
    check(tabs.site.refresh_status(other) == 400, "a global sign-out left another device's session alive")
    check(tabs.call("a", "getIdToken", {"forceRefresh": True}) == {"result": None}, "the cookie outlived a global sign-out")


def test_password_reset_mail(tabs):
    check(tabs.call("a", "sendPasswordResetEmail", NEW_EMAIL) == {"result": {}}, "sendPasswordResetEmail failed")
    tabs.follow(mailed_link(tabs.site.outbox, NEW_EMAIL, tabs.site.origin, "resetPassword"), RESET_PASSWORD)
    check(tabs.call("a", "signInWithEmail", NEW_EMAIL, NEW_PASSWORD) == {"error": "invalid-credential",
                                                                        "operation": None},
          "the password before the reset still signs in")
    outcome = tabs.call("a", "signInWithEmail", NEW_EMAIL, RESET_PASSWORD)
    check(outcome.get("result", {}).get("user", {}).get("email") == NEW_EMAIL,
          "the reset password does not sign in: %s" % outcome.get("error"))


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
    outcome = tabs.call("a", "sendPasswordResetEmail", "not an address")
    check(outcome.get("error") == "invalid-email", "a reset of a malformed address answered %s" % outcome)
    check(tabs.run("a", "return window.app.user().email;") == "alice@example.com", "a failed call changed the user")
    local_id = tabs.run("a", "return window.app.user().sub;")
    outcome = tabs.call("a", "deleteUser")
    check(outcome.get("result", {}).get("deleted") == local_id, "deleteUser answered %s" % outcome)
    check(tabs.run("a", "return window.app.user();") is None, "tab a still has a user after deleteUser")
    tabs.wait("b", "return window.app.events[window.app.events.length - 1] === null;", "tab b to hear of the deletion")
    check(tabs.call("b", "getIdToken", {"forceRefresh": True}) == {"result": None}, "the deleted user's cookie works")


CASES = [test_sign_up, test_reload_restores_the_session, test_two_tabs_refresh_once, test_sign_out_reaches_every_tab,
         test_sign_in_and_no_refresh_token_in_page_reach, test_update_profile, test_verification_mail,
         test_requires_recent_login_then_link_and_unlink, test_update_email, test_update_password_and_sign_out_scopes,
         test_password_reset_mail, test_provider_sign_in_signs_the_module_in, test_errors_and_delete_user]


def main():
    site = AccountsSite()

    def setup(keep):
        browser = common.Browser(site.directory, "accounts")
        keep(browser.quit)
        return Tabs(site, browser)

    return common.run_in_order(CASES, site, setup, "browser accounts tests on " + common.ACCOUNTS_DATABASE)


if __name__ == "__main__":
    common.run_script(main)
