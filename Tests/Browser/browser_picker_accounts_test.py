#!/usr/bin/python3
"""The sign-in picker's e-mail entry (HTTP-API.md §3.6, issue 26 §1) in real Chromium, with JavaScript off and on.

The deployment is browser_accounts_test.py's (whose AccountsSite this extends): nginx serves the app under
`Content-Security-Policy: script-src 'self'; connect-src 'self'` and proxies `/__/auth/` to `auth-handler serve` on the
same origin, with backend `accounts`, here sending its mail to a real SMTP server the test runs (python3-aiosmtpd).

Each case runs twice, in two browsers: one with JavaScript off (Chrome's `profile.managed_default_content_settings.
javascript: 2`), where the picker is opened by a link with the app's redirectUrl and resultChallenge and the test
redeems the code as an app's server would; one with JavaScript on, where the app page's `signInWithRedirect(null)`
opens the picker and the module redeems the code when the browser returns. The cases: an e-mail sign-up, a sign-in
after a wrong password (the inline error), and Forgot password (the mail received, its link followed, a new password
set, a sign-in with it), and the account-exists link (a password account with a verified address; Google at the
fake IdP with the same address; the picker's account-exists page; a sign-in with the password; one result, the
identity linked, as `GET /__/auth/user`'s providerUserInfo shows); with JavaScript on, also `signInWithPopup(null)`
through the e-mail form.

Prints one line per case and `N passed, N failed`; exits 1 on any failure.
"""

import base64
import email
import hashlib
import json
import os
import queue
import re
import signal
import socket
import sys
import time
import urllib.parse
import urllib.request
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser_accounts_test as accounts  # noqa: E402
import browser_signin_test as common  # noqa: E402
from browser_signin_test import TestFailure, check  # noqa: E402

STEP_TIMEOUT = common.STEP_TIMEOUT
PASSWORD = "picker passphrase 2026"
NEW_PASSWORD = "a brand new picker passphrase"
WEAK_PASSWORD = "password123456789"
VERIFIER = "browser-picker-verifier-0123456789-abcdefghijklmnop"
CHALLENGE = base64.urlsafe_b64encode(hashlib.sha256(VERIFIER.encode()).digest()).rstrip(b"=").decode()
DONE_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>done</title></head>
<body><p>signed in</p><noscript><p id="noscript">JavaScript is off</p></noscript></body></html>
"""


class Mailbox:
    """A real SMTP server on 127.0.0.1 (aiosmtpd); each message's text, in arrival order."""

    def __init__(self):
        self.messages = queue.Queue()
        self.controller = None

    def start(self):
        try:
            from aiosmtpd.controller import Controller
        except ImportError as error:
            raise TestFailure("python3-aiosmtpd is not importable (%s); install the Debian package python3-aiosmtpd "
                              "(scripts/install-deps.sh test)" % error)
        with socket.socket() as probe:  # a free port: aiosmtpd's readiness check connects to the port it is given
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        mailbox = self

        class Handler:
            async def handle_DATA(self, server, session, envelope):
                mailbox.messages.put((list(envelope.rcpt_tos), envelope.content))
                return "250 OK"

        self.controller = Controller(Handler(), hostname="127.0.0.1", port=self.port)
        self.controller.start()  # returns once the server answers

    def next_mail(self, recipient):
        """The text of the plain-text part of the next mail to `recipient` (mails to others, such as the other run's
        identity-linked notice, are passed over), waiting up to STEP_TIMEOUT for it."""
        deadline = time.monotonic() + STEP_TIMEOUT
        while True:
            try:
                recipients, content = self.messages.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise TestFailure("no mail to %s reached the SMTP server within %d s" % (recipient, STEP_TIMEOUT))
            if recipient in recipients:
                break
        message = email.message_from_bytes(content)
        for part in message.walk():
            if part.get_content_type() == "text/plain":
                return part.get_payload(decode=True).decode("utf-8", "replace")
        raise TestFailure("the mail has no text/plain part")

    def stop(self):
        if self.controller:
            self.controller.stop()


class PickerSite(accounts.AccountsSite):
    """browser_accounts_test.py's site, its accounts mailing through the test's SMTP server; `/app/done.html` is the
    JavaScript-off app's return page."""

    def __init__(self):
        super().__init__()
        self.mailbox = Mailbox()

    def _daemon_config(self):
        config = super()._daemon_config()
        config["allowedRedirectURLs"].append(self.origin + "/app/done.html")
        config["backend"]["email"] = {"from": "App <no-reply@example.com>",
                                      "smtp": {"url": "smtp://127.0.0.1:%d" % self.mailbox.port}}
        # A common password, refused whatever its length: the weak-password case passes the form's minlength, as a
        # person's would, and is refused by the daemon.
        blocked = os.path.join(self.directory, "blocked-passwords.txt")
        with open(blocked, "w") as handle:
            handle.write(WEAK_PASSWORD + "\n")
        config["backend"]["password"] = {"rateLimit": {"perMinute": 600, "burst": 50}, "blockList": {"file": blocked}}
        return config

    def start(self):
        self.mailbox.start()
        super().start()
        with open(os.path.join(self.directory, "site", "app", "done.html"), "w") as handle:
            handle.write(DONE_PAGE)

    def stop(self):
        super().stop()
        self.mailbox.stop()

    def redeem(self, code):
        """POST /__/auth/result as the app's server: the JSON answer."""
        body = urllib.parse.urlencode({"code": code, "verifier": VERIFIER}).encode()
        request = urllib.request.Request(self.origin + "/__/auth/result", data=body, headers={
            "Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=STEP_TIMEOUT) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as error:
            raise TestFailure("the redemption answered %d: %s" % (error.code, error.read()[:300]))


    def verified_account(self, address):
        """A password account for `address` made through the API, its address marked verified in the database (as a
        followed verification link would): the account an account-exists answer names. Its localId."""
        body = json.dumps({"email": address, "password": PASSWORD}).encode()
        request = urllib.request.Request(self.daemon_url + "/__/auth/password/sign-up", data=body,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=STEP_TIMEOUT) as response:
            local_id = json.loads(response.read())["localId"]
        updated = self.database.rows("UPDATE account_users SET email_verified = TRUE WHERE normalized_email = :address "
                                     "RETURNING local_id", address=address)
        check(updated == [(local_id,)], "marking %s verified in the %s database changed %s, not %s"
              % (address, self.database.engine, updated, local_id))
        return local_id

    def account(self, id_token):
        """GET /__/auth/user with the ID token."""
        request = urllib.request.Request(self.origin + "/__/auth/user", headers={
            "Authorization": "Bearer " + id_token, "Accept": "application/json"})
        with urllib.request.urlopen(request, timeout=STEP_TIMEOUT) as response:
            return json.loads(response.read())


class Run:
    """One browser, JavaScript on or off, and how its app opens the picker and receives the result."""

    def __init__(self, site, javascript):
        self.site = site
        self.javascript = javascript
        self.label = "js-on" if javascript else "js-off"
        prefs = None if javascript else {"profile.managed_default_content_settings.javascript": 2}
        self.browser = common.Browser(site.directory, "picker-" + self.label, prefs=prefs)
        self.driver = self.browser.driver

    def address(self, name):
        return "%s-%s@example.com" % (name, self.label)

    def open_picker(self):
        """The picker, opened as the app opens it."""
        if self.javascript:
            self.driver.get(self.site.page_url)
            self.browser.wait(lambda driver: driver.execute_script("return !!(window.app && window.app.loaded);"),
                              "the app page's script")
            self.driver.execute_script("window.app.redirect(null);")
        else:
            query = urllib.parse.urlencode({"redirectUrl": self.site.origin + "/app/done.html",
                                            "resultChallenge": CHALLENGE, "eventId": "picker-js-off"})
            self.driver.get(self.site.origin + "/__/auth/signin?" + query)
        self.browser.wait(lambda driver: driver.current_url.startswith(self.site.origin + "/__/auth/signin")
                          and self.find("email"), "the picker")

    def find(self, element_id):
        from selenium.webdriver.common.by import By
        found = self.driver.find_elements(By.ID, element_id)
        return found[0] if found else None

    def fill(self, values):
        for element_id, text in values:
            field = self.find(element_id)
            check(field is not None, "the form has no #%s" % element_id)
            field.clear()
            field.send_keys(text)

    def submit(self):
        self.find("email-submit").click()

    def follow(self, element_id):
        link = self.find(element_id)
        check(link is not None, "the page has no #%s" % element_id)
        link.click()

    def signed_in(self, address):
        """Waits for the return to the app; the redemption's signIn (redeemed by the test with JavaScript off, by the
        module with it on)."""
        if self.javascript:
            outcome = self.browser.wait(
                lambda driver: driver.current_url.startswith(self.site.page_url)
                and driver.execute_script("return window.app && window.app.returned;"), "the return to the app page")
            result = outcome.get("result") or {}
            check(result.get("providerId") == "password", "the module's redemption answered %s" % outcome)
            sign_in = result.get("signIn") or {}
            check("refreshToken" not in sign_in, "the redemption handed the page a refresh token")
            user = self.driver.execute_script("return window.app.user();")
            check(user and user.get("email") == address, "the module is not signed in as %s: %s" % (address, user))
            check(self.driver.execute_script("return window.app.violations;") == [], "the page broke its CSP")
            return sign_in
        done = self.site.origin + "/app/done.html?"
        self.browser.wait(lambda driver: driver.current_url.startswith(done), "the return to the app")
        check(self.find("noscript") is not None, "JavaScript runs in the js-off browser (<noscript> is not shown)")
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.driver.current_url).query)
        check(query.get("eventId") == ["picker-js-off"], "the return carries %s" % sorted(query))
        answer = self.site.redeem(query["code"][0])
        sign_in = answer.get("signIn") or {}
        check(answer.get("providerId") == "password" and sign_in.get("localId") and sign_in.get("refreshToken"),
              "the redemption answered %s" % sorted(answer))
        return sign_in

    def inline_error(self):
        from selenium.webdriver.common.by import By
        alerts = self.browser.wait(lambda driver: driver.find_elements(By.CSS_SELECTOR, "[role=alert]"),
                                   "the form to come back with an inline error")
        return alerts[0].get_attribute("data-code"), alerts[0].text

    def quit(self):
        self.browser.quit()


def test_sign_up(run):
    run.open_picker()
    run.follow("create-account")
    check(run.find("newPassword").get_attribute("autocomplete") == "new-password", "the new password's autocomplete")
    check(run.find("displayName").get_attribute("autocomplete") == "name", "the name's autocomplete")
    run.fill([("displayName", "Erin"), ("email", run.address("erin")), ("newPassword", WEAK_PASSWORD)])
    run.submit()
    code, text = run.inline_error()
    check(code == "weak-password" and "too common" in text, "a common password answered %s: %s" % (code, text))
    check(run.find("email").get_attribute("value") == run.address("erin"), "the address was not kept")
    check(run.find("newPassword").get_attribute("value") == "", "the password was put back in the page")
    resubmit(run, "newPassword", new_user=True)


def resubmit(run, field, new_user):
    """The form again with the right password in `field`: the browser returns to the app, signed in."""
    run.fill([(field, PASSWORD)])
    run.submit()
    sign_in = run.signed_in(run.address("erin"))
    check(sign_in.get("isNewUser") is new_user, "the redemption answered isNewUser %s" % sign_in.get("isNewUser"))


def test_sign_in(run):
    run.open_picker()
    check(run.find("password").get_attribute("autocomplete") == "current-password", "the password's autocomplete")
    check(run.find("email").get_attribute("autocomplete") == "email", "the address's autocomplete")
    run.fill([("email", run.address("erin")), ("password", "not the password")])
    run.submit()
    code, text = run.inline_error()
    check(code == "invalid-credential" and "wrong" in text, "a wrong password answered %s: %s" % (code, text))
    resubmit(run, "password", new_user=False)


def test_reset(run):
    run.open_picker()
    run.follow("forgot-password")
    run.fill([("email", run.address("erin"))])
    run.submit()
    run.browser.wait(lambda driver: run.find("reset-sent"), "the check-your-mail page")
    text = run.site.mailbox.next_mail(run.address("erin"))
    match = re.search(r"(http://\S+/__/auth/action\?\S+)", text)
    check(match, "the reset mail holds no action link")
    run.driver.get(match.group(1))
    run.browser.wait(lambda driver: run.find("newPassword"), "the reset page's form")
    run.fill([("newPassword", NEW_PASSWORD)])
    run.find("action-confirm").click()
    run.browser.wait(lambda driver: run.find("action-done"), "the page after the reset")
    run.open_picker()
    run.fill([("email", run.address("erin")), ("password", NEW_PASSWORD)])
    run.submit()
    run.signed_in(run.address("erin"))


def test_account_exists_link(run):
    # The fake IdP's users bob and carol: Google vouches for bob@example.com and carol@example.com.
    user = "carol" if run.javascript else "bob"
    address = user + "@example.com"
    local_id = run.site.verified_account(address)
    run.open_picker()
    from selenium.webdriver.common.by import By
    run.driver.find_element(By.CSS_SELECTOR, 'a[data-provider-id="google.com"]').click()
    run.browser.at_login_page(run.site)
    run.browser.approve(user)
    notice = run.browser.wait(lambda driver: run.find("account-exists"), "the account-exists page")
    check("You already have an account with %s" % address in notice.text and "password to link" in notice.text,
          "the account-exists page says %r" % notice.text)
    check(run.find("email").get_attribute("value") == address, "the e-mail form is not prefilled")
    check("pendingCredential" not in run.driver.current_url, "the pending credential is in the URL")
    run.fill([("password", PASSWORD)])
    run.submit()
    sign_in = run.signed_in(address)
    check(sign_in.get("localId") == local_id, "the result is not the existing account's: %s" % sign_in.get("localId"))
    account = run.site.account(sign_in["idToken"])
    providers = [entry.get("providerId") for entry in account.get("providerUserInfo", [])]
    check("google.com" in providers, "Google was not linked: providerUserInfo has %s" % providers)


def test_popup_sign_in(run):
    """signInWithPopup(null) (JavaScript on only): the picker in a popup, the e-mail form, the result to the opener."""
    driver = run.driver
    driver.get(run.site.page_url)
    run.browser.wait(lambda d: d.execute_script("return !!(window.app && window.app.loaded);"), "the app page")
    opener = driver.current_window_handle
    driver.execute_script("window.app.start('popup', 'signInWithPopup', null);")
    popup = run.browser.wait(lambda d: [h for h in d.window_handles if h != opener], "the popup")[0]
    driver.switch_to.window(popup)
    run.browser.wait(lambda d: run.find("email"), "the picker in the popup")
    run.fill([("email", run.address("erin")), ("password", NEW_PASSWORD)])
    run.submit()
    driver.switch_to.window(opener)
    outcome = run.browser.wait(lambda d: d.execute_script("return window.app.pending.popup;"), "the popup's result")
    result = outcome.get("result") or {}
    check(result.get("providerId") == "password" and (result.get("signIn") or {}).get("idToken"),
          "signInWithPopup(null) answered %s" % outcome)
    check("refreshToken" not in result.get("signIn", {}), "the popup's redemption handed the page a refresh token")
    user = driver.execute_script("return window.app.user();")
    check(user and user.get("email") == run.address("erin"), "the module is not signed in: %s" % user)


CASES = [test_sign_up, test_sign_in, test_reset, test_account_exists_link]
# A popup needs the module, so it runs with JavaScript on only.
JAVASCRIPT_CASES = [test_popup_sign_in]


def main():
    passed = failed = 0
    site = PickerSite()
    began = time.monotonic()
    try:
        setup_error = common.failure_of(site.start)
        for javascript in (False, True):
            run = None
            error = setup_error
            if not error:
                try:
                    run = Run(site, javascript)
                except TestFailure as failure:
                    error = str(failure)
            try:
                for test in CASES + (JAVASCRIPT_CASES if javascript else []):
                    name = "%s [%s]" % (test.__name__, "js-on" if javascript else "js-off")
                    started = time.monotonic()
                    problem = error or common.failure_of(lambda: test(run))
                    took = time.monotonic() - started
                    if problem:
                        failed += 1
                        print("FAIL %s (%.1f s): %s" % (name, took, problem), flush=True)
                        if not error:
                            print(site.failure_context(), flush=True)
                    else:
                        passed += 1
                        print("ok   %s (%.1f s)" % (name, took), flush=True)
            finally:
                if run:
                    run.quit()
    finally:
        site.stop()
    print("browser picker accounts tests on %s took %.1f s\n%d passed, %d failed"
          % (common.ACCOUNTS_DATABASE, time.monotonic() - began, passed, failed), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    warnings.filterwarnings("ignore", module="trio_websocket")
    signal.signal(signal.SIGTERM, common._terminated)  # unwinds, so every browser and server is stopped
    sys.exit(main())
