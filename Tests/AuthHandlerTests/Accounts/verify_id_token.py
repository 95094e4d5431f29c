#!/usr/bin/python3
"""Verifies an accounts ID token with PyJWT, independently of auth-handler's own crypto.

Usage: verify_id_token.py JWKS_FILE TOKEN_FILE AUDIENCE ISSUER
       verify_id_token.py --discovery TOKEN_FILE AUDIENCE ISSUER

Reads the JWKS the daemon publishes and a token from files, picks the key named by the token's `kid`, and checks
the ES256 signature (ES256 only), `aud`, `iss` and `exp`/`iat`. With --discovery the JWKS is found as an API would:
ISSUER + "/.well-known/openid-configuration" is fetched, its `issuer` must be ISSUER (OpenID Connect Discovery 1.0
§4.3), and its `jwks_uri` is fetched. Exit 0 and the claims as JSON on stdout when the token is valid; exit 1 with
the reason on stderr when it is not; exit 2 on a usage error.
"""

import json
import sys
import urllib.request

import jwt


def fetch_json(url):
    """The JSON document at url (http or https only)."""
    if not url.startswith(("http://", "https://")):
        raise ValueError("not an http(s) URL: %r" % (url,))
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.load(response)


def discovered_key_set(issuer):
    """The JWKS named by the issuer's discovery document."""
    configuration = fetch_json(issuer + "/.well-known/openid-configuration")
    if configuration.get("issuer") != issuer:
        raise ValueError("the discovery document names issuer %r" % (configuration.get("issuer"),))
    if "ES256" not in configuration.get("id_token_signing_alg_values_supported", []):
        raise ValueError("the discovery document does not list ES256")
    return fetch_json(configuration["jwks_uri"])


def verify(jwks_file, token_file, audience, issuer):
    """The verified claims; raises jwt.PyJWTError or ValueError when the token must not be trusted."""
    if jwks_file == "--discovery":
        key_set = jwt.PyJWKSet.from_dict(discovered_key_set(issuer))
    else:
        with open(jwks_file, encoding="utf-8") as handle:
            key_set = jwt.PyJWKSet.from_dict(json.load(handle))
    with open(token_file, encoding="utf-8") as handle:
        token = handle.read().strip()
    kid = jwt.get_unverified_header(token).get("kid")
    matching = [key for key in key_set.keys if key.key_id == kid]
    if len(matching) != 1:
        raise ValueError("no key with kid %r in the JWKS" % (kid,))
    return jwt.decode(
        token,
        matching[0].key,
        algorithms=["ES256"],
        audience=audience,
        issuer=issuer,
        options={"require": ["iss", "sub", "aud", "exp", "iat"]},
    )


def main(argv):
    if len(argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        claims = verify(*argv[1:])
    except (jwt.PyJWTError, ValueError, OSError, KeyError) as error:
        print("verify_id_token: refused: %s: %s" % (type(error).__name__, error), file=sys.stderr)
        return 1
    print(json.dumps(claims, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
