#!/usr/bin/python3
"""The pages people see, in real headless Chromium: the error page, the sign-in picker and `--once`'s done page.

Run with Debian's /usr/bin/python3 (python3-selenium); `make browser-test` builds and runs it after
browser_signin_test.py, whose servers, browser and sign-in helpers it reuses (the same two loopback sites, the same
rules: every server on 127.0.0.1:0, nothing beyond loopback, everything stopped at the end).

Each page is looked at 360 and 390 px wide (phones, as mobile viewports, so `<meta name=viewport>` counts) and
1280 px wide, and at 390 px in dark mode. The screenshots are kept in ARTIFACTS (default
.build/test-artifacts/pages/, which git ignores) for a person to look at. For each page and width the test checks
that the body does not scroll sideways at 360 and 390 px, that the title and the heading name the product configured in
`branding`, that the page is `lang="en"` with one `<main>` and one `<h1>`, and that the embedded stylesheet applied
(the Content-Security-Policy admits it by hash; a wrong hash would leave the card unstyled). The picker case then
signs in through it: it clicks `a[data-provider-id="google.com"]`, approves at the fake IdP and lands on the app
with a code that redeems.

Prints one line per case and `N passed, N failed`; exits 1 on any failure.
"""

import json
import os
import subprocess
import sys
import threading
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser_signin_test as base  # noqa: E402  (the shared harness, found beside this file)
from browser_signin_test import BINARY, STEP_TIMEOUT, check  # noqa: E402

PRODUCT = "Acme Notes"
ARTIFACTS = os.environ.get("AUTH_HANDLER_TEST_ARTIFACTS", os.path.join(base.REPO, ".build", "test-artifacts", "pages"))
WIDTHS = [(360, 740, True), (390, 844, True), (1280, 800, False)]  # width, height, mobile


class BrandedServers(base.Servers):
    """The harness's fake IdP, app and `serve`, with `branding` and a custom provider with a display name."""

    def _config(self):
        config = super()._config()
        config["branding"] = {"name": PRODUCT}
        idp, browse = self.idp_url, self.idp_browser_url
        config["providers"]["oidc.corp"] = {
            "protocol": "oidc", "displayName": "Acme Corp SSO", "clientId": "fake-client-id",
            "clientSecret": self._secret("corp-secret", "fake-client-secret"), "issuer": idp + "/oidc",
            "endpoints": {"authorization": browse + "/oidc/authorize"}}
        return config

    def once_config(self):
        """A config file for `--once`: the product name and google.com at the fake IdP."""
        config = self._config()
        path = os.path.join(self.directory, "once.json")
        with open(path, "w") as handle:
            json.dump({"branding": config["branding"], "providers": {"google.com": config["providers"]["google.com"]}},
                      handle)
        return path


# MARK: looking at a page


def set_viewport(browser, width, height, mobile, dark=False):
    """Emulates a viewport (a phone's honours `<meta name=viewport>`) and the colour scheme, without reloading."""
    browser.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})
    browser.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {
        "features": [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]})


def look_at(browser, name, expect_heading):
    """Screenshots the current page at each width (and 390 px dark), checking layout, names and styling."""
    from selenium.webdriver.common.by import By
    os.makedirs(ARTIFACTS, exist_ok=True)
    driver = browser.driver
    shots = [(width, height, mobile, False) for width, height, mobile in WIDTHS] + [(390, 844, True, True)]
    for width, height, mobile, dark in shots:
        set_viewport(browser, width, height, mobile, dark)
        facts = driver.execute_script("""
            const main = document.querySelector('main');
            return {inner: window.innerWidth, scroll: document.documentElement.scrollWidth,
                    title: document.title, lang: document.documentElement.lang,
                    mains: document.querySelectorAll('main').length, h1s: document.querySelectorAll('h1').length,
                    heading: (document.querySelector('h1') || {}).textContent || '',
                    radius: main ? getComputedStyle(main).borderTopLeftRadius : '',
                    background: getComputedStyle(document.body).backgroundColor};""")
        where = "%s at %d px%s" % (name, width, " (dark)" if dark else "")
        check(facts["inner"] == width, "%s: the viewport is %s px wide, expected %d" % (where, facts["inner"], width))
        if width <= 400:
            check(facts["scroll"] <= facts["inner"], "%s scrolls sideways: scrollWidth %s > innerWidth %s"
                  % (where, facts["scroll"], facts["inner"]))
        check(PRODUCT in facts["title"], "%s: the title %r does not name %r" % (where, facts["title"], PRODUCT))
        check(facts["heading"] == expect_heading, "%s: the heading is %r, expected %r"
              % (where, facts["heading"], expect_heading))
        check(facts["lang"] == "en" and facts["mains"] == 1 and facts["h1s"] == 1,
              "%s: lang %r, %d <main>, %d <h1>; expected en, 1, 1" % (where, facts["lang"], facts["mains"], facts["h1s"]))
        check(facts["radius"] == "16px", "%s: the card is not styled (border radius %r): the stylesheet did not apply"
              % (where, facts["radius"]))
        dark_page = facts["background"] == "rgb(15, 17, 21)"
        check(dark_page == dark, "%s: the page background is %s" % (where, facts["background"]))
        path = os.path.join(ARTIFACTS, "%s-%d%s.png" % (name, width, "-dark" if dark else ""))
        check(driver.save_screenshot(path), "could not save %s" % path)
        print("  screenshot %s" % os.path.relpath(path, base.REPO), flush=True)
    set_viewport(browser, 1280, 800, False)
    return driver.find_element(By.TAG_NAME, "main")


# MARK: cases


def test_error_page(case):
    """A start whose redirectUrl is not allowed: the 400 page names the product, explains, and shows the code small."""
    from selenium.webdriver.common.by import By
    servers = case.servers
    browser = case.browser("error")
    url = servers.handler_url + "/__/auth/handler?" + urllib.parse.urlencode({
        "providerId": "google.com", "redirectUrl": "https://elsewhere.example/app", "eventId": "e1"})
    browser.driver.get(url)
    browser.wait(lambda driver: driver.find_elements(By.ID, "error-code"), "the error page")
    check(browser.document_status(url) == 400, "the error page did not answer 400")
    main = look_at(browser, "error", "Couldn’t sign in to %s" % PRODUCT)
    code = main.find_element(By.ID, "error-code").text
    check(code == "unauthorized-redirect-url", "the error code shown is %r" % code)
    next_step = main.find_element(By.ID, "next-step").text
    check("try signing in again" in next_step, "the next step is %r" % next_step)
    check("allowedRedirectURLs" not in main.find_element(By.ID, "error-explanation").text,
          "the text for people carries the developer's message")


def test_picker_and_sign_in_through_it(case):
    """The picker lists every provider by name; clicking Google signs in and lands on the app with a code."""
    from selenium.webdriver.common.by import By
    servers = case.servers
    browser = case.browser("picker")
    sign_in = base.SignIn(servers, "google.com")
    picker_url = sign_in.start_url.replace("/__/auth/handler?providerId=google.com&", "/__/auth/signin?")
    check(picker_url != sign_in.start_url, "could not make the picker URL from %s" % sign_in.start_url)
    browser.driver.get(picker_url)
    browser.wait(lambda driver: driver.find_elements(By.CSS_SELECTOR, "a[data-provider-id]"), "the picker")
    main = look_at(browser, "picker", "Sign in to %s" % PRODUCT)
    buttons = {link.get_attribute("data-provider-id"): link.text
               for link in main.find_elements(By.CSS_SELECTOR, "a[data-provider-id]")}
    expected = {"apple.com": "Continue with Apple", "google.com": "Continue with Google",
                "oidc.corp": "Continue with Acme Corp SSO", "twitter.com": "Continue with X (Twitter)"}
    check(buttons == expected, "the picker offers %r, expected %r" % (buttons, expected))
    main.find_element(By.CSS_SELECTOR, 'a[data-provider-id="google.com"]').click()
    browser.at_login_page(servers)
    browser.approve("alice")
    arrival = servers.app.wait_for(sign_in.event_id)
    browser.wait(lambda driver: driver.current_url.startswith(servers.app.url), "the app's page")
    base.redeem(servers, sign_in, arrival, "alice")


def test_once_done_page(case):
    """`auth-handler --once` with a config naming the product: approve at the fake IdP, then its done page."""
    from selenium.webdriver.common.by import By
    servers = case.servers
    output = os.path.join(servers.directory, "once-result.json")
    once = OnceProcess([BINARY, "--once", "--provider", "google.com", "--no-browser", "--timeout", "60",
                        "--config", servers.once_config(), "--output", output], servers.directory)
    case.processes.append(once)
    url = once.sign_in_url()
    browser = case.browser("once")
    browser.driver.get(url)
    browser.at_login_page(servers)
    browser.approve("alice")
    browser.wait(lambda driver: driver.find_elements(By.ID, "outcome"), "the --once done page")
    main = look_at(browser, "once-done", "Signed in to %s" % PRODUCT)
    check("Google" in main.find_element(By.ID, "outcome").text, "the done page does not name the provider")
    check("return to your terminal" in main.find_element(By.ID, "next-step").text, "no next step on the done page")
    status = once.wait()
    check(status == 0, "--once exited %s: %s" % (status, once.stderr_tail()))
    with open(output) as handle:
        check(json.load(handle).get("providerId") == "google.com", "--once wrote no google.com result")


class OnceProcess:
    """`auth-handler --once`, whose sign-in URL is on stderr; stdout and stderr are kept in files."""

    def __init__(self, argv, directory):
        self.stderr_path = os.path.join(directory, "once.stderr")
        self.stderr = open(self.stderr_path, "w+b")
        self.process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, preexec_fn=base._die_with_parent)
        self.url = None
        self.found = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        prefix = b"Open this URL to sign in: "
        for line in self.process.stderr:
            self.stderr.write(line)
            self.stderr.flush()
            if line.startswith(prefix) and self.url is None:
                self.url = line[len(prefix):].strip().decode()
                self.found.set()
        self.found.set()

    def sign_in_url(self):
        check(self.found.wait(STEP_TIMEOUT) and self.url, "--once printed no sign-in URL: %s" % self.stderr_tail())
        return self.url

    def wait(self):
        try:
            return self.process.wait(STEP_TIMEOUT)
        except subprocess.TimeoutExpired:
            return None

    def stderr_tail(self):
        with open(self.stderr_path, "rb") as handle:
            return handle.read().decode("utf-8", "replace")[-1500:]

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)
        self.stderr.close()


class PagesCase(base.Case):
    """A case that may also start processes of its own (`--once`), stopped when it ends."""

    def __init__(self, servers):
        super().__init__(servers)
        self.processes = []

    def close(self):
        for process in self.processes:
            process.stop()
        return super().close()


CASES = [test_error_page, test_picker_and_sign_in_through_it, test_once_done_page]


def main():
    selected = [case for case in CASES if len(sys.argv) < 2 or any(name in case.__name__ for name in sys.argv[1:])]
    status = base.run_cases(selected, BrandedServers(), PagesCase, label="page tests")
    print("screenshots in %s" % ARTIFACTS, flush=True)
    return status


if __name__ == "__main__":
    base.signal.signal(base.signal.SIGTERM, base._terminated)
    sys.exit(main())
