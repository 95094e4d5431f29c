#!/usr/bin/env python3
"""Sequential complete sign-ins through mod_auth_openidc (bench/openidc.sh): the protected URL (302 to the fake IdP,
state cookie), the fake IdP's authorize (auto-approved through login_hint), the callback with the state cookie (302
back with the session cookie). Prints `SIGNINS SECONDS`; fails on the first step that answers otherwise.
"""
import http.client
import sys
import time
import urllib.parse


def get(url, cookies=None):
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    target = parts.path + ("?" + parts.query if parts.query else "")
    headers = {"Accept": "text/html"}
    if cookies:
        headers["Cookie"] = "; ".join(cookies)
    connection.request("GET", target, headers=headers)
    response = connection.getresponse()
    response.read()
    connection.close()
    return response.status, response.getheader("Location"), response.msg.get_all("Set-Cookie") or []


def sign_in(protected):
    status, location, cookies = get(protected)
    if status != 302 or not location:
        raise SystemExit(f"openidc sign-in: the protected URL answered {status}")
    state = [cookie.split(";", 1)[0] for cookie in cookies]
    status, callback, _ = get(location)
    if status != 302 or not callback or "code=" not in callback:
        raise SystemExit(f"openidc sign-in: the fake IdP answered {status}")
    status, back, cookies = get(callback, state)
    if status != 302 or not any(cookie.startswith("mod_auth_openidc_session") for cookie in cookies):
        raise SystemExit(f"openidc sign-in: the callback answered {status} without a session cookie")


def main():
    protected, count = sys.argv[1], int(sys.argv[2])
    began = time.monotonic()
    for _ in range(count):
        sign_in(protected)
    print(count, f"{time.monotonic() - began:.3f}")


if __name__ == "__main__":
    main()
