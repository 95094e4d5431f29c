#!/usr/bin/python3
"""`auth-handler demo` without --headless, and its sample page in real Chromium (docs/HTTP-API.md §1.5).

Starts the demo as a user would after `make demo`, reads the sample page's URL from what it prints, and drives the page
as a person would: the page's own strict Content-Security-Policy (no inline script), an e-mail sign-up, the ID token,
a reload that restores the session from the HttpOnly cookie, a sign-out, a Google sign-in through the fake IdP's login
page (alice, whose account the demo's walk made) by redirect and in a popup, the account-exists link of a Google sign-in to a password account,
and a second tab that hears the first one's sign-out. Then SIGTERM: the demo must exit 0 and remove its temporary
directory.

Prints one line per case and `N passed, N failed`; exits 1 on any failure. The cases run in order on one browser.
"""

import base64
import json
import os
import re
import signal
import sys
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser_signin_test as common  # noqa: E402
from browser_accounts_test import follow_action_link, mailed_link  # noqa: E402
from browser_signin_test import BINARY, STEP_TIMEOUT, TestFailure, check  # noqa: E402

EMAIL = "erin@example.com"
PASSWORD = "correct horse battery staple 7"


class Demo:
    """`auth-handler demo` (no --headless) as a child process, and what it printed."""

    def __init__(self):
        self.servers = common.Servers()  # its directory, process list and stop(); its start() is not used
        self.directory = self.servers.directory

    def start(self):
        check(os.access(BINARY, os.X_OK), "%s is not built; run `swift build` first" % BINARY)
        self.process = self.servers._spawn("demo", [BINARY, "demo"])
        self.idp_browser_url = self.process.wait_for_line("fake IdP: ")
        accounts = self.process.wait_for_line("accounts: ")
        self.origin = accounts.split()[0]
        match = re.search(r"an outbox in (\S+)\)", accounts)
        check(match, "the demo did not print its accounts directory: %r" % accounts)
        self.accounts_directory = match.group(1)
        self.page_url = self.process.wait_for_line("sample page: ")
        check(self.page_url == self.origin + "/demo/",
              "the sample page %s is not on the accounts daemon's origin %s" % (self.page_url, self.origin))

    def fetch(self, path, method="GET", headers=None):
        """(status, headers, body) of one request to the accounts daemon."""
        request = urllib.request.Request(self.origin + path, method=method, headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=STEP_TIMEOUT) as response:
                return response.status, response.headers, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.headers, error.read()

    def stop(self):
        self.servers.stop()

    def failure_context(self):
        lines = self.process.lines[-15:] if getattr(self, "process", None) else []
        return "  demo's last lines:\n    " + "\n    ".join(lines) + "\n" + self.servers.failure_context()


class Page:
    """The browser on the sample page."""

    def __init__(self, demo, browser):
        self.demo = demo
        self.browser = browser
        self.driver = browser.driver

    def load(self):
        self.driver.get(self.demo.page_url)
        self.ready()

    def ready(self):
        self.browser.wait(lambda driver: driver.execute_script("return document.documentElement.dataset.ready;"),
                          "the sample page's script to finish loading")

    def text(self, element_id):
        return self.driver.execute_script("return document.getElementById(arguments[0]).textContent;", element_id)

    def visible(self, element_id):
        return self.driver.execute_script("return !document.getElementById(arguments[0]).hidden;", element_id)

    def click(self, element_id):
        from selenium.webdriver.common.by import By
        self.driver.find_element(By.ID, element_id).click()

    def type(self, element_id, text):
        from selenium.webdriver.common.by import By
        field = self.driver.find_element(By.ID, element_id)
        field.clear()
        field.send_keys(text)

    def google_redirect(self, user):
        """Signs in with Google as `user` through the fake IdP's login page, back to the page loaded again."""
        self.click("google-redirect")
        self.browser.at_login_page(self.demo)
        self.browser.approve(user)
        self.ready()

    def wait_signed_in(self, email):
        self.browser.wait(lambda driver: self.visible("signed-in") and self.text("who") == email,
                          "the page to show %s signed in (status: %r)" % (email, self.text("status")))

    def wait_signed_out(self):
        self.browser.wait(lambda driver: self.visible("signed-out") and not self.visible("signed-in"),
                          "the page to show no user (status: %r)" % self.text("status"))

    def events(self):
        return self.driver.execute_script(
            "return Array.from(document.querySelectorAll('#events li'), (item) => item.textContent);")

    def console_problems(self):
        """The browser console's policy violations and uncaught script errors since the last call (not the failed
        loads: a signed-out page's session restore is answered 400, and there is no favicon)."""
        return [entry["message"] for entry in self.driver.get_log("browser") if entry.get("level") == "SEVERE"
                and ("Content Security Policy" in entry["message"] or "Uncaught" in entry["message"])]


def claims_of(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def test_page_is_served_under_a_strict_policy(page):
    status, headers, body = page.demo.fetch("/demo/")
    check(status == 200 and b"/demo/app.js" not in body and b'src="app.js"' in body,
          "GET /demo/ answered %s" % status)
    policy = headers.get("Content-Security-Policy", "")
    check("script-src 'self'" in policy and "unsafe-inline" not in policy and "default-src 'none'" in policy,
          "the sample page's policy is %r" % policy)
    check(b"<script>" not in body and b"<script type=\"module\" src=" in body, "the page has an inline script")
    for path, kind in (("/demo/app.js", "text/javascript"), ("/demo/app.css", "text/css")):
        status, headers, _ = page.demo.fetch(path)
        check(status == 200 and headers.get("Content-Type", "").startswith(kind), "%s answered %s %s"
              % (path, status, headers.get("Content-Type")))
    check(page.demo.fetch("/demo/", method="POST")[0] == 405, "POST /demo/ was not refused")
    page.load()
    check(page.visible("signed-out") and page.text("status") == "Signed out",
          "a fresh page is not signed out: %r" % page.text("status"))
    problems = page.console_problems()
    check(problems == [], "the page logged errors: %s" % problems)
    # The policy is enforced, and its violations reach the log checked above: an inline script is refused.
    page.driver.execute_script("const script = document.createElement('script'); script.textContent = "
                               "'document.documentElement.dataset.inline = 1'; document.body.append(script);")
    check(page.driver.execute_script("return document.documentElement.dataset.inline;") is None,
          "an inline script ran on the sample page")
    check(any("Content Security Policy" in problem for problem in page.console_problems()),
          "the refused inline script was not reported")


def test_sign_up_and_id_token(page):
    page.type("name", "Erin")
    page.type("email", EMAIL)
    page.type("password", PASSWORD)
    page.click("sign-up")
    page.wait_signed_in(EMAIL)
    claims = json.loads(page.text("claims"))
    check(claims["email"] == EMAIL and claims["iss"] == page.demo.origin + "/__/auth",
          "currentUser() shows %s" % claims)
    check(page.events()[-1].endswith("signed in as " + EMAIL), "onAuthStateChanged showed %s" % page.events())
    page.click("get-token")
    page.browser.wait(lambda driver: page.text("token").startswith("eyJ"), "the ID token on the page")
    token = page.text("token")
    check(claims_of(token)["sub"] == claims["sub"], "the ID token is another user's")
    # The token works as an app's server would use it (HTTP-API.md §3.10).
    status, _, body = page.demo.fetch("/__/auth/user", headers={"Authorization": "Bearer " + token})
    check(status == 200 and json.loads(body)["email"] == EMAIL, "GET /__/auth/user with the page's token: %s" % status)
    page.click("force-refresh")
    page.browser.wait(lambda driver: page.text("token") not in ("", token) and page.text("token").startswith("eyJ"),
                      "a refreshed ID token on the page")
    cookies = {cookie["name"]: cookie for cookie in page.driver.execute_cdp_cmd("Network.getAllCookies", {})["cookies"]}
    check(cookies.get("auth_handler_session", {}).get("httpOnly") is True,
          "no HttpOnly session cookie: %s" % sorted(cookies))
    reach = page.driver.execute_script(
        "return [document.cookie, JSON.stringify(Object.entries(localStorage)), "
        "JSON.stringify(Object.entries(sessionStorage)), location.href].join('\\n');")
    check(cookies["auth_handler_session"]["value"] not in reach, "page script can read the refresh token")


def test_reload_restores_the_session(page):
    page.load()
    page.wait_signed_in(EMAIL)
    check(page.text("status") == "Signed in as " + EMAIL, "after a reload the page says %r" % page.text("status"))


def test_second_tab_hears_the_sign_out(page):
    first = page.driver.current_window_handle
    page.driver.switch_to.new_window("tab")
    page.load()
    page.wait_signed_in(EMAIL)
    second = page.driver.current_window_handle
    page.driver.switch_to.window(first)
    page.click("sign-out")
    page.wait_signed_out()
    page.driver.switch_to.window(second)
    page.wait_signed_out()
    check(page.events()[-1].endswith("signed out"), "the second tab's events: %s" % page.events())
    page.driver.close()
    page.driver.switch_to.window(first)
    page.load()
    check(page.visible("signed-out") and page.text("status") == "Signed out",
          "a reload after the sign-out says %r" % page.text("status"))


def test_google_sign_in_through_the_fake_idp(page):
    page.google_redirect("alice")
    page.wait_signed_in("alice@example.com")
    claims = json.loads(page.text("claims"))
    identities = claims.get("firebase", {}).get("identities", {})
    check("google.com" in identities, "alice's claims name no Google identity: %s" % claims)
    page.click("sign-out")
    page.wait_signed_out()
    # The same in a popup: the opener stays, the popup returns to /__/auth/popup and closes itself.
    opener = page.driver.current_window_handle
    page.click("google-popup")
    popup = page.browser.wait(lambda driver: [handle for handle in driver.window_handles if handle != opener] or None,
                              "the popup")[0]
    page.driver.switch_to.window(popup)
    page.browser.at_login_page(page.demo)
    page.browser.approve("alice")
    page.browser.wait(lambda driver: popup not in driver.window_handles, "the popup to close itself")
    page.driver.switch_to.window(opener)
    page.wait_signed_in("alice@example.com")
    page.click("sign-out")
    page.wait_signed_out()


def test_account_exists_then_link(page):
    # bob signs up with a password and verifies his address through the outbox's mail; his Google sign-in of the same
    # address is then answered account-exists (an unverified password account would be taken over instead).
    page.type("email", "bob@example.com")
    page.type("password", PASSWORD)
    page.click("sign-up")
    page.wait_signed_in("bob@example.com")
    page.click("send-verification")
    page.browser.wait(lambda driver: page.text("status").startswith("Sent"),
                      "the verification mail to be sent (status: %r)" % page.text("status"))
    outbox = os.path.join(page.demo.accounts_directory, "outbox")
    follow_action_link(page.browser, mailed_link(outbox, "bob@example.com", page.demo.origin, "verifyEmail"))
    page.load()
    page.click("sign-out")
    page.wait_signed_out()
    page.google_redirect("bob")
    check(page.visible("link-hint") and "bob@example.com" in page.text("link-hint"),
          "no link offer after account-exists: status %r" % page.text("status"))
    page.type("password", PASSWORD)
    page.click("sign-in")
    page.wait_signed_in("bob@example.com")
    page.browser.wait(lambda driver: page.text("status").startswith("Linked"),
                      "the link to finish (status: %r)" % page.text("status"))
    check("google.com" in page.text("status"), "the link's status: %r" % page.text("status"))
    page.click("sign-out")
    page.wait_signed_out()
    page.google_redirect("bob")
    page.wait_signed_in("bob@example.com")


def test_sigterm_stops_the_demo(page):
    process = page.demo.process.process
    check(process.poll() is None, "the demo exited by itself: %s" % process.poll())
    process.send_signal(signal.SIGTERM)
    try:
        status = process.wait(STEP_TIMEOUT)
    except Exception:
        raise TestFailure("the demo did not exit within %d s of SIGTERM" % STEP_TIMEOUT)
    check(status == 0, "the demo exited %s after SIGTERM; stderr: %s" % (status, page.demo.process.stderr_tail()))
    check(not os.path.exists(page.demo.accounts_directory),
          "the demo left its accounts directory %s" % page.demo.accounts_directory)


CASES = [test_page_is_served_under_a_strict_policy, test_sign_up_and_id_token, test_reload_restores_the_session,
         test_second_tab_hears_the_sign_out, test_google_sign_in_through_the_fake_idp, test_account_exists_then_link,
         test_sigterm_stops_the_demo]


def main():
    demo = Demo()

    def setup(keep):
        browser = common.Browser(demo.directory, "demo")
        keep(browser.quit)
        return Page(demo, browser)

    return common.run_in_order(CASES, demo, setup, "browser demo tests")


if __name__ == "__main__":
    common.run_script(main)
