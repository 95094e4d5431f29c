#!/usr/bin/python3
"""Independence check: Python's oauthlib signs OAuth 1.0a requests, the fake IdP must accept them.

Usage: oauthlib_client.py BASEURL   (e.g. http://127.0.0.1:54321; loopback only)

For each of HMAC-SHA1, HMAC-SHA256 and PLAINTEXT, runs request_token -> authorize (screen_name=alice,
redirect read from Location, not followed) -> access_token -> verify_credentials, signed by
oauthlib.oauth1.Client (Debian python3-oauthlib), and checks that copies tampered after signing are
refused with 401. Exits 0 when every check passes, 1 with a message naming the failed step otherwise.
"""

import http.client
import json
import sys
import urllib.parse

try:
    from oauthlib.oauth1 import (
        SIGNATURE_HMAC_SHA1,
        SIGNATURE_HMAC_SHA256,
        SIGNATURE_PLAINTEXT,
        Client,
    )
except ImportError as error:
    print(f"oauthlib_client.py: FAIL: cannot import oauthlib ({error}); apt-get install python3-oauthlib",
          file=sys.stderr)
    sys.exit(1)

CONSUMER_KEY = "fake-consumer-key"
CONSUMER_SECRET = "fake-consumer-secret"
FORM = "application/x-www-form-urlencoded"


class CheckFailed(Exception):
    """A check of the fake IdP's behaviour failed; the message says which."""


def check(condition, message):
    if not condition:
        raise CheckFailed(message)


_connections = {}


def send(base, method, url, headers=None, body=None):
    """Sends one request over plain HTTP without following redirects; returns (status, headers, text).

    One keep-alive connection is reused, as a browser or curl does, rather than one connection per request.
    """
    parsed = urllib.parse.urlsplit(url)
    check(parsed.hostname == base.hostname and parsed.port == base.port, f"refusing to leave the fake IdP: {url}")
    target = parsed.path + (("?" + parsed.query) if parsed.query else "")
    key = (parsed.hostname, parsed.port)
    for attempt in (1, 2):
        connection = _connections.get(key)
        if connection is None:
            connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=10)
            _connections[key] = connection
        try:
            connection.request(method, target, body=body, headers=headers or {})
            response = connection.getresponse()
            text = response.read().decode("utf-8", "replace")
            if response.will_close:
                connection.close()
                del _connections[key]
            return response.status, {k.lower(): v for k, v in response.getheaders()}, text
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            # The server closed an idle keep-alive connection: reconnect once.
            connection.close()
            del _connections[key]
            if attempt == 2:
                raise
    raise CheckFailed("unreachable")


def expect_status(step, expected, result):
    status, _, text = result
    check(status == expected, f"{step}: expected HTTP {expected}, got {status}: {text.strip()[:300]}")


def form(text):
    return dict(urllib.parse.parse_qsl(text, keep_blank_values=True))


def run_flow(base_url, base, method):
    oauth1 = base_url + "/oauth1"
    callback = f"http://127.0.0.1:{base.port}/__/auth/handler"

    # request_token, signed by oauthlib with the consumer credentials and the callback.
    client = Client(CONSUMER_KEY, client_secret=CONSUMER_SECRET, callback_uri=callback, signature_method=method)
    uri, headers, body = client.sign(oauth1 + "/request_token", http_method="POST")
    result = send(base, "POST", uri, headers, body)
    expect_status(f"{method} request_token", 200, result)
    fields = form(result[2])
    check(fields.get("oauth_callback_confirmed") == "true", f"{method} request_token: no oauth_callback_confirmed=true")
    token, token_secret = fields.get("oauth_token"), fields.get("oauth_token_secret")
    check(token and token_secret, f"{method} request_token: no oauth_token / oauth_token_secret in {sorted(fields)}")

    # Tampered: a form parameter changed after signing.
    client = Client(CONSUMER_KEY, client_secret=CONSUMER_SECRET, callback_uri=callback, signature_method=method)
    uri, headers, body = client.sign(oauth1 + "/request_token", http_method="POST",
                                     body="x_auth_access_type=read", headers={"Content-Type": FORM})
    tampered = body.replace("read", "write") if isinstance(body, str) else "x_auth_access_type=write"
    if method != SIGNATURE_PLAINTEXT:  # PLAINTEXT signs no parameters (RFC 5849 §3.4.4), so nothing to tamper with.
        expect_status(f"{method} tampered request_token body", 401, send(base, "POST", uri, headers, tampered))

    # authorize: auto-approve as alice; read the redirect instead of following it.
    query = urllib.parse.urlencode({"oauth_token": token, "screen_name": "alice"})
    status, response_headers, text = send(base, "GET", oauth1 + "/authorize?" + query)
    check(status == 302, f"{method} authorize: expected a 302 redirect, got {status}: {text.strip()[:300]}")
    location = response_headers.get("location", "")
    check(location.startswith(callback + "?"), f"{method} authorize: Location {location!r} is not the callback")
    redirect = form(urllib.parse.urlsplit(location).query)
    check(redirect.get("oauth_token") == token, f"{method} authorize: the redirect carries another oauth_token")
    verifier = redirect.get("oauth_verifier")
    check(verifier, f"{method} authorize: the redirect carries no oauth_verifier")

    # access_token, signed with the request token and its verifier.
    client = Client(CONSUMER_KEY, client_secret=CONSUMER_SECRET, resource_owner_key=token,
                    resource_owner_secret=token_secret, verifier=verifier, signature_method=method)
    uri, headers, body = client.sign(oauth1 + "/access_token", http_method="POST")
    result = send(base, "POST", uri, headers, body)
    expect_status(f"{method} access_token", 200, result)
    fields = form(result[2])
    check(fields.get("screen_name") == "alice", f"{method} access_token: screen_name is {fields.get('screen_name')!r}")
    check(fields.get("user_id") == "1001", f"{method} access_token: user_id is {fields.get('user_id')!r}")
    access, access_secret = fields.get("oauth_token"), fields.get("oauth_token_secret")
    check(access and access_secret, f"{method} access_token: no oauth_token / oauth_token_secret")

    # The request token is single use: the same, correctly signed, exchange again is refused.
    uri, headers, body = client.sign(oauth1 + "/access_token", http_method="POST")
    expect_status(f"{method} reused request token", 401, send(base, "POST", uri, headers, body))

    # verify_credentials, signed with the access token; the query is part of the signature.
    client = Client(CONSUMER_KEY, client_secret=CONSUMER_SECRET, resource_owner_key=access,
                    resource_owner_secret=access_secret, signature_method=method)
    profile_url = oauth1 + "/account/verify_credentials.json?include_email=true&skip_status=true"
    uri, headers, body = client.sign(profile_url, http_method="GET")
    status, _, text = send(base, "GET", uri, headers)
    check(status == 200, f"{method} verify_credentials: expected HTTP 200, got {status}: {text.strip()[:300]}")
    profile = json.loads(text)
    check(profile.get("screen_name") == "alice",
          f"{method} verify_credentials: screen_name {profile.get('screen_name')!r}")
    check(profile.get("id") == 1001 and profile.get("id_str") == "1001", f"{method} verify_credentials: id {profile}")
    check(profile.get("email") == "alice@example.com", f"{method} verify_credentials: email {profile.get('email')!r}")

    # Tampered: the query changed after signing.
    uri, headers, body = client.sign(profile_url, http_method="GET")
    if method != SIGNATURE_PLAINTEXT:
        tampered_uri = uri.replace("include_email=true", "include_email=false")
        check(tampered_uri != uri, "could not tamper with the verify_credentials query")
        expect_status(f"{method} tampered verify_credentials query", 401, send(base, "GET", tampered_uri, headers))

    # Tampered: the Authorization header's token swapped after signing (any method, PLAINTEXT included).
    swapped = dict(headers)
    swapped["Authorization"] = swapped["Authorization"].replace(access, "0" + access)
    expect_status(f"{method} tampered verify_credentials token", 401, send(base, "GET", uri, swapped))

    # A wrong consumer secret is refused for every method.
    client = Client(CONSUMER_KEY, client_secret="not-the-secret", resource_owner_key=access,
                    resource_owner_secret=access_secret, signature_method=method)
    uri, headers, body = client.sign(profile_url, http_method="GET")
    expect_status(f"{method} wrong consumer secret", 401, send(base, "GET", uri, headers))


def main(argv):
    if len(argv) != 2:
        print("usage: oauthlib_client.py BASEURL", file=sys.stderr)
        return 2
    base_url = argv[1].rstrip("/")
    base = urllib.parse.urlsplit(base_url)
    if base.scheme != "http" or base.hostname not in ("127.0.0.1", "::1", "localhost") or base.port is None:
        print(f"oauthlib_client.py: FAIL: {base_url} is not a loopback http://HOST:PORT URL", file=sys.stderr)
        return 1
    try:
        for method in (SIGNATURE_HMAC_SHA1, SIGNATURE_HMAC_SHA256, SIGNATURE_PLAINTEXT):
            run_flow(base_url, base, method)
            print(f"oauthlib_client.py: {method}: request_token, authorize, access_token, verify_credentials "
                  "accepted; tampered copies refused")
    except CheckFailed as failure:
        print(f"oauthlib_client.py: FAIL: {failure}", file=sys.stderr)
        return 1
    except (OSError, ValueError, http.client.HTTPException) as error:
        print(f"oauthlib_client.py: FAIL: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
