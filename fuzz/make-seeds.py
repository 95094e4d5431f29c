#!/usr/bin/python3
"""Writes the seed corpora in fuzz/corpus/<target>/ (CONTRIBUTING.md "Fuzzing"): small valid inputs and edge cases.

Run it again after changing a seed below; libFuzzer's own finds go to .build/fuzz/corpus/, not here. The cookie
seeds are sealed under the fixed test key ring of fuzz/Sources/auth-handler-fuzz/CookieTarget.swift, so this needs
Debian's python3-cryptography.
"""
import base64
import json
import os
import pathlib
import shutil

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

ROOT = pathlib.Path(__file__).resolve().parent
CORPUS = ROOT / "corpus"


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def compact(header, payload, signature=b""):
    encode = lambda value: b64url(json.dumps(value, separators=(",", ":")).encode())
    return ".".join([encode(header), encode(payload), b64url(signature)])


# Twitter's documented example header and RFC 5849's own (§1.2, §3.5.1).
TWITTER_HEADER = (
    'OAuth oauth_consumer_key="xvz1evFS4wEEPTGEFPHBog", '
    'oauth_nonce="kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg", '
    'oauth_signature="tnnArxj06cWHq44gCs1OSKk%2FjLY%3D", oauth_signature_method="HMAC-SHA1", '
    'oauth_timestamp="1318622958", oauth_token="370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb", '
    'oauth_version="1.0"'
)
RFC5849_HEADER = (
    'OAuth realm="Example",oauth_consumer_key="9djdj82h48djs9d2",oauth_token="kkk9d7dh3k39sjv7",'
    'oauth_signature_method="HMAC-SHA1",oauth_timestamp="137131201",oauth_nonce="7d8f3e4a",'
    'oauth_signature="bYT5CMsGcbgUdFHObYMEfcx6bsw%3D"'
)

CLAIMS = {
    "iss": "https://idp.example.com", "sub": "alice", "aud": "client-1", "exp": 1800000300,
    "iat": 1800000000, "nonce": "n-0S6_WzA2Mj", "auth_time": 1799999000, "email": "alice@example.com",
    "email_verified": True, "name": "Alice",
}

# RFC 7517 Appendix A.1's public keys.
RSA_JWK = {
    "kty": "RSA", "kid": "2011-04-29", "alg": "RS256", "e": "AQAB",
    "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3o"
    "knjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6"
    "qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awap"
    "JzKnqDKgw",
}
EC_JWK = {
    "kty": "EC", "crv": "P-256", "kid": "1", "use": "sig",
    "x": "MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4", "y": "4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM",
}

# CookieTarget's ring and cookie name; AAD as StateKeyRing.aad (docs/ARCHITECTURE.md, the sealed state).
STATE_KEY = bytes([0x42]) * 32
PREVIOUS_STATE_KEY = bytes([0x17]) * 32
COOKIE_NAME = "auth-handler-AAAAAAAAAAAAAAAA"
REFERENCE_DATE = 978307200  # JSONEncoder's default Date: seconds since 2001-01-01
SESSION = {
    "p": "google.com", "s": "state-8f3a", "r": "https://app.example.com/signed-in", "a": "signInViaRedirect",
    "e": "event-1", "c": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "sc": ["openid", "email"],
    "v": "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", "n": "n-0S6_WzA2Mj",
    "ct": 1800000000 - REFERENCE_DATE, "x": 1800000600 - REFERENCE_DATE,
}
OAUTH1_SESSION = {
    "p": "twitter.com", "r": "com.example.app:/auth", "a": "signInViaRedirect", "sc": [],
    "t": "hh5s93j4hdidpola", "ts": "hdhd0244k9j7ao03",
    "ct": 1800000000 - REFERENCE_DATE, "x": 1800000600 - REFERENCE_DATE,
}


def sealed(plaintext, key=STATE_KEY, name=COOKIE_NAME):
    nonce = bytes(range(12))
    aad = b"auth-handler pending sign-in v1\x00" + name.encode()
    return b64url(bytes([1]) + nonce + AESGCM(key).encrypt(nonce, plaintext, aad))


# PendingCredentialTarget's key; a credential is base64url(nonce ‖ AES-256-GCM ciphertext ‖ tag), no AAD.
PENDING_KEY = bytes([0x5A]) * 32
PENDING = {
    "p": "google.com", "u": "1001", "e": "alice@example.com", "n": "Alice Example", "ph": None,
    "l": "AbCdEfGhIjKlMnOpQrStUvWxYz01", "v": "47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU",
    "i": 1800000000, "x": 1800000600, "d": "Zm9vYmFyLWlkLTAxMjM0NTY3ODktYWJjZGVmZ2hpamts",
}


def pending_sealed(credential):
    nonce = bytes(range(12))
    plaintext = json.dumps(credential, separators=(",", ":")).encode()
    return b64url(nonce + AESGCM(PENDING_KEY).encrypt(nonce, plaintext, None))


def session_json(session):
    return json.dumps(session, separators=(",", ":")).encode()


def seeds():
    with open(ROOT.parent / "Config" / "example.json", "rb") as example:
        example_config = example.read()
    cookie = sealed(session_json(SESSION))
    return {
        "form": [
            "providerId=google.com&redirectUrl=https%3A%2F%2Fapp.example.com%2Fsigned-in&eventId=e1",
            "code=4%2F0AX4XfWh&state=state-8f3a&scope=openid+email+profile&authuser=0",
            "oauth_token=hh5s93j4hdidpola&oauth_verifier=hfdp7dh39dks9884",
            "customParameters=%7B%22prompt%22%3A%22consent%22%2C%22login_hint%22%3A%22a%40b.c%22%7D",
            "a+b=c%20d&%E2%9C%93=%C3%A9&empty=&noequals&&=x",
            "bad=%ZZ&short=%4",
            "utf8=%FF%FE",
        ],
        "oauth1-header": [
            TWITTER_HEADER,
            RFC5849_HEADER,
            'OAuth oauth_callback="http%3A%2F%2Fprinter.example.com%2Fready", oauth_version="1.0"',
            'oauth  realm="" ,\toauth_token="a%20b",oauth_token="dup"',
            'OAuth oauth_nonce=unquoted, oauth_signature="unterminated',
            'Bearer abc',
        ],
        "oauth1-token-response": [
            "oauth_token=hh5s93j4hdidpola&oauth_token_secret=hdhd0244k9j7ao03&oauth_callback_confirmed=true",
            "oauth_token=nnch734d00sl2jdk&oauth_token_secret=pfkkdhi9sl3r4s00",
            "oauth_token=6253282-eWudHldSbIaelX7swmsiHImEL4KinwaGloHANdrY&oauth_token_secret=2EEfA6BG5ly3sR3XjE0I"
            "BSnlQu4ZrUzPiYTmrkVU&user_id=6253282&screen_name=twitterapi",
            "oauth_token=&oauth_token_secret=s&oauth_callback_confirmed=false",
            '{"errors":[{"code":89,"message":"Invalid or expired token."}]}',
            "oauth_problem=token_rejected&oauth_problem_advice=try%20again",
        ],
        "jws": [
            compact({"alg": "RS256", "kid": "2011-04-29", "typ": "JWT"}, CLAIMS, bytes(256)),
            compact({"alg": "ES256", "kid": "1"}, dict(CLAIMS, aud=["client-1", "other"], azp="client-1"), bytes(64)),
            compact({"alg": "none"}, CLAIMS),
            compact({"alg": "HS256"}, dict(CLAIMS, exp=1e300, iat=-1.5)),
            compact({"alg": "RS256", "jku": "https://evil.example/jwks"}, {"iss": 1, "aud": []}, b"x"),
            "e30.e30.",
            "not.a.jws.token",
        ],
        "jwks": [
            json.dumps({"keys": [RSA_JWK, EC_JWK]}),
            json.dumps({"keys": [dict(RSA_JWK, kid="key-1"), {"kty": "oct", "k": "AAAA"}, {"kty": "EC"}]}),
            json.dumps({"keys": [dict(EC_JWK, crv="P-384"), dict(RSA_JWK, e="", n="AA")]}),
            '{"keys": []}',
            '{"keys": {"kty": "RSA"}}',
            "[]",
        ],
        "redirect-url": [
            "https://app.example.com/auth/done",
            "https://app.example.com/auth/done?state=1&keep=%20",
            "http://127.0.0.1:53123/callback",
            "http://[::1]:8080/cb",
            "com.example.app:/oauth2redirect",
            "https://app.example.com:8443/x?keep=1",
            "HTTPS://APP.EXAMPLE.COM:443/auth/done",
            "https://app.example.com/auth/done?c%256Fde=1",
            "https://app.example.com/auth/done?Event.Id[]=x;error=1",
            "https://app.example.com\\@evil.example/auth/done",
            "https://evil.example#@app.example.com/auth/done",
            "https://user:pass@app.example.com/auth/done",
            "https://app.example.com./auth/done",
            "https://app.example.com/auth/%2e%2e/done",
            "https://app%2eexample.com/auth/done",
            "https://app.example.com:0/auth/done",
            "https:/app.example.com/auth/done",
            "javascript:alert(1)//https://app.example.com/auth/done",
            "http://127.0.0.1%09/callback",
            "https://xn--pp-ykc.example.com/auth/done",
            # Found by this target: user info whose escapes do not decode to UTF-8 (RedirectURLPolicyTests).
            "https://u2%F2dsIntpass@app.example.com/auth/done",
        ],
        "cookie": [
            b"0" + f"{COOKIE_NAME}={cookie}".encode(),
            b"0" + f"theme=dark; {COOKIE_NAME}={cookie}; __Host-auth-handler-BBBBBBBBBBBBBBBB=AQ".encode(),
            b"0" + f"{COOKIE_NAME}={sealed(session_json(OAUTH1_SESSION), PREVIOUS_STATE_KEY)}".encode(),
            b"0" + f"{COOKIE_NAME}=AQ\n{COOKIE_NAME}= {cookie} \n{COOKIE_NAME}".encode(),
            b"0" + f"{COOKIE_NAME}={sealed(session_json(SESSION), name='auth-handler-other')}".encode(),
            b"1" + session_json(SESSION),
            b"1" + session_json(OAUTH1_SESSION),
            b"1" + session_json(dict(SESSION, a="unknownType", ct="yesterday")),
            b"1{}",
        ],
        "config": [
            example_config,
            '{"listen": ["127.0.0.1:8080"], "publicURL": "https://auth.example.com", '
            '"allowedRedirectURLs": ["https://app.example.com/signed-in"], '
            '"providers": {"github.com": {"clientId": "c", "clientSecret": {"env": "FIXTURE_SECRET"}}}}',
            '{"listen": ["127.0.0.1:0"], "store": {"kind": "redis", "url": "redis://127.0.0.1:6379/0"}, '
            '"providers": {"oidc.x": {"protocol": "oidc", "issuer": "https://idp.example", "clientId": "c", '
            '"scopes": ["openid"], "customParameters": {"prompt": "login"}}}}',
            '{"listen": "nope", "sessionTTLSeconds": -1, "providers": {"": {}}, "unknownKey": [1, 2.5e400, null]}',
            '{"a": 1, "a": 2}',
            "[",
        ],
        "accounts-json-body": [
            '{"email": "alice@example.com", "password": "correct horse battery staple", "session": "cookie"}',
            '{"email": "Alice@Example.com", "password": "pw", "displayName": null}',
            '{"pendingCredential": "AAAA", "verifier": "v"}',
            '{"email": "a\\u0000b@example.com", "password": "\\ud83d\\ude00"}',
            '{"email": 1, "password": [], "session": true}',
            '{"email": "a@b.c", "admin": true}',
            '{"email": "a@b.c", "email": "b@c.d"}',
            '["alice@example.com"]',
            '{"email": "a@b.c"',
            "",
        ],
        "email-address": [
            "alice@example.com",
            "Alice.Example+tag@Example.COM",
            "straße@bücher.example",
            "ALICE@xn--bcher-kva.example",
            "user@例え.テスト",
            "e\u0301@example.com",
            "a..b@example.com",
            "\"quoted\"@example.com",
            "a@b@example.com",
            "a@localhost",
            "a@-bad-.example",
            "x" * 65 + "@example.com",
            "a\x00b@example.com",
        ],
        "pending-credential": [
            b"0" + pending_sealed(PENDING).encode(),
            b"0" + pending_sealed(dict(PENDING, e=None, n=None, ph="https://example.com/a.png")).encode(),
            b"0AAAA",
            b"0" + b"A" * 5000,
            b"1" + json.dumps(PENDING, separators=(",", ":")).encode(),
            b"1" + json.dumps(dict(PENDING, l="short", i="yesterday"), separators=(",", ":")).encode(),
            b"1" + json.dumps(dict(PENDING, v="!!", x=-1), separators=(",", ":")).encode(),
            b"1{}",
        ],
        # A flags byte (bit 0: HTTP/1.0), the request target, then header lines (ListenerTarget.swift).
        "listener": [
            b"\x00/__/auth/handler?providerId=google.com\r\nHost: 127.0.0.1:8080\r\nAccept: text/html\r\n",
            b"\x00/__/auth/result\r\nHost: [::1]:8080\r\nContent-Length: 12\r\n",
            b"\x00/x\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n",
            b"\x00/x\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n",
            b"\x01/x\r\nTransfer-Encoding: chunked\r\n",
            b"\x00/a b\r\nHost: a\r\n",
            b"\x00/x\r\nHost: evil.example/x\r\nHost: b\r\n",
            b"\x00/x\r\nHost: %zz\r\nX-A: a\rb\r\nTransfer-Encoding : chunked\r\n",
        ],
    }


def main():
    for target, inputs in seeds().items():
        directory = CORPUS / target
        shutil.rmtree(directory, ignore_errors=True)
        os.makedirs(directory)
        for number, seed in enumerate(inputs, 1):
            data = seed if isinstance(seed, bytes) else seed.encode()
            (directory / f"seed-{number:02d}").write_bytes(data)


if __name__ == "__main__":
    main()
