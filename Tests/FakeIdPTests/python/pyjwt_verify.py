#!/usr/bin/python3
"""Verifies an ID token from the fake IdP with PyJWT, independently of auth-handler's own crypto.

Usage: pyjwt_verify.py JWKS_URL ID_TOKEN CLIENT_ID ISSUER NONCE

Fetches the JWKS (loopback only, no proxy), picks the key named by the token's `kid`, and checks the
RS256 signature, `aud`, `iss`, `exp`/`iat` and `nonce`. Exit 0 and the claims as JSON on stdout when the
token is valid; exit 1 with the reason on stderr when it is not; exit 2 on a usage error.
"""

import ipaddress
import json
import sys
import urllib.parse
import urllib.request

import jwt


def fetch_jwks(url):
    """Reads the key set over plain HTTP from a loopback address, ignoring any proxy settings."""
    parsed = urllib.parse.urlsplit(url)
    if parsed.scheme != "http" or not ipaddress.ip_address(parsed.hostname or "0.0.0.0").is_loopback:
        raise ValueError("the JWKS URL must be http:// on a loopback address, got " + url)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(url, timeout=10) as response:
        return json.load(response)


def verify(jwks_url, token, client_id, issuer, nonce):
    """The verified claims; raises jwt.PyJWTError or ValueError when the token must not be trusted."""
    key_set = jwt.PyJWKSet.from_dict(fetch_jwks(jwks_url))
    kid = jwt.get_unverified_header(token).get("kid")
    matching = [key for key in key_set.keys if key.key_id == kid]
    if len(matching) != 1:
        raise ValueError("no key with kid %r in the JWKS" % (kid,))
    claims = jwt.decode(
        token,
        matching[0].key,
        algorithms=["RS256"],
        audience=client_id,
        issuer=issuer,
        options={"require": ["iss", "sub", "aud", "exp", "iat", "nonce"]},
    )
    if claims.get("nonce") != nonce:
        raise ValueError("nonce %r is not the expected %r" % (claims.get("nonce"), nonce))
    return claims


def main(argv):
    if len(argv) != 6:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        claims = verify(*argv[1:])
    except (jwt.PyJWTError, ValueError, OSError) as error:
        print("pyjwt_verify: refused: %s: %s" % (type(error).__name__, error), file=sys.stderr)
        return 1
    print(json.dumps(claims, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
