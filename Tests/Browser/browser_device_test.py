#!/usr/bin/python3
"""Device sign-in (HTTP-API.md §3.9) in real headless Chromium: `auth-handler login` waits in a terminal while a
person types its code into the code page, reads the confirmation page and presses Continue or Cancel.

Run with Debian's /usr/bin/python3 (python3-selenium); `make browser-test` builds and runs it after the other two
browser tests, whose servers, browser and helpers it reuses (the same two loopback sites: the handler on
127.0.0.1, the fake IdP's pages on localhost; every server on 127.0.0.1:0, nothing beyond loopback, everything
stopped at the end). A screenshot of the confirmation page is kept in ARTIFACTS (default
.build/test-artifacts/device/, which git ignores).

Prints one line per case and `N passed, N failed`; exits 1 on any failure.
"""

import json
import os
import subprocess
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser_signin_test as base  # noqa: E402  (the shared harness, found beside this file)
from browser_signin_test import BINARY, STEP_TIMEOUT, TestFailure, check  # noqa: E402

ARTIFACTS = os.environ.get("AUTH_HANDLER_TEST_ARTIFACTS_DEVICE",
                           os.path.join(base.REPO, ".build", "test-artifacts", "device"))


class DeviceServers(base.Servers):
    """The harness's fake IdP, app and `serve`, with device sign-in on (a 1 s interval, so the CLI answers fast)."""

    def _config(self):
        config = super()._config()
        config["deviceAuthorization"] = {"enabled": True, "intervalSeconds": 1}
        return config


class Login:
    """`auth-handler login` as a child process; its stderr is read on a thread until it shows the code."""

    def __init__(self, servers, provider, extra=()):
        self.process = subprocess.Popen(
            [BINARY, "login", "--server", servers.handler_url, "--provider", provider, *extra],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            preexec_fn=base._die_with_parent)
        self.stderr = []
        self.code = None
        self.shown = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for raw in self.process.stderr:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            self.stderr.append(line)
            if line.startswith("    ") and line.strip():
                self.code = line.strip()
            if line.startswith("or open "):
                self.shown.set()
        self.shown.set()

    def wait_for_code(self):
        check(self.shown.wait(STEP_TIMEOUT) and self.code, "login showed no code: %s" % "\n".join(self.stderr))
        return self.code

    def finish(self):
        try:
            output, _ = self.process.communicate(timeout=STEP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise TestFailure("login did not exit after the browser finished: %s" % "\n".join(self.stderr))
        return self.process.returncode, output.decode("utf-8", "replace")

    def stop(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def enter_code(case, browser, code):
    """Types `code` (in lower case, without its dash: entry ignores both) into the code page and submits it."""
    from selenium.webdriver.common.by import By
    servers = case.servers
    browser.driver.get(servers.handler_url + "/__/auth/device")
    field = browser.wait(lambda driver: driver.find_elements(By.ID, "user_code"), "the code field")[0]
    field.send_keys(code.replace("-", "").lower())
    browser.driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    warning = browser.wait(lambda driver: driver.find_elements(By.ID, "device-warning"), "the confirmation page")[0]
    check("Continue only if you started this sign-in yourself" in warning.text,
          "the confirmation page lacks its warning: %r" % warning.text)
    summary = browser.driver.find_element(By.ID, "device-summary").text
    check("Google" in summary and code in summary, "the confirmation page does not name the provider and code: %r"
          % summary)
    origin = browser.driver.find_element(By.ID, "device-origin").text
    check("127.0.0.1" in origin, "the confirmation page does not name the requesting address: %r" % origin)


def test_login_signs_in_while_chromium_enters_the_code(case):
    from selenium.webdriver.common.by import By
    # A custom parameter the device chose: the page lists it (HTTP-API.md §3.9).
    login = Login(case.servers, "google.com", ["--param", "hd=example.com"])
    try:
        code = login.wait_for_code()
        browser = case.browser("device")
        enter_code(case, browser, code)
        parameters = browser.driver.find_element(By.ID, "device-parameters").text
        check("hd = example.com" in parameters, "the confirmation page does not list the parameter: %r" % parameters)
        scopes = browser.driver.find_element(By.ID, "device-scopes").text
        check("openid" in scopes, "the confirmation page does not list the scopes: %r" % scopes)
        os.makedirs(ARTIFACTS, exist_ok=True)
        browser.driver.set_window_size(390, 844)
        check(browser.driver.save_screenshot(os.path.join(ARTIFACTS, "confirmation-390.png")), "no screenshot")
        overflow = browser.driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
        check(overflow <= 0, "the confirmation page scrolls sideways at 390 px by %s px" % overflow)
        browser.driver.find_element(By.ID, "device-continue").click()
        browser.at_login_page(case.servers)
        browser.approve("alice")
        done = browser.wait(lambda driver: driver.find_elements(By.ID, "device-done"), "the done page")[0]
        check("Return to your terminal" in done.text, "the done page says %r" % done.text)
        status, output = login.finish()
        check(status == 0, "login exited %d: %s" % (status, "\n".join(login.stderr)))
        result = json.loads(output)
        check(result.get("providerId") == "google.com", "login wrote %s" % output[:200])
        check(result.get("profile", {}).get("email") == "alice@example.com", "the profile is not alice's")
    finally:
        login.stop()


def test_cancel_on_the_confirmation_page_ends_login_with_exit_1(case):
    from selenium.webdriver.common.by import By
    login = Login(case.servers, "google.com")
    try:
        code = login.wait_for_code()
        browser = case.browser("device-cancel")
        enter_code(case, browser, code)
        browser.driver.find_element(By.ID, "device-cancel").click()
        done = browser.wait(lambda driver: driver.find_elements(By.ID, "device-done"), "the done page")[0]
        check("cancelled" in done.text, "the done page says %r" % done.text)
        status, _ = login.finish()
        check(status == 1, "login exited %d after Cancel: %s" % (status, "\n".join(login.stderr)))
    finally:
        login.stop()


CASES = [
    test_login_signs_in_while_chromium_enters_the_code,
    test_cancel_on_the_confirmation_page_ends_login_with_exit_1,
]


def main():
    selected = [case for case in CASES if len(sys.argv) < 2 or any(name in case.__name__ for name in sys.argv[1:])]
    return base.run_cases(selected, DeviceServers(), label="device browser tests")


if __name__ == "__main__":
    import signal
    signal.signal(signal.SIGTERM, base._terminated)
    sys.exit(main())
