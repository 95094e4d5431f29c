#!/usr/bin/python3
"""Verifies an accounts ID token with PyJWT, independently of auth-handler's own crypto.

Usage: verify_id_token.py JWKS_FILE TOKEN_FILE AUDIENCE ISSUER

Reads the JWKS the daemon publishes and a token from files, picks the key named by the token's `kid`, and checks
the ES256 signature (ES256 only), `aud`, `iss` and `exp`/`iat`. Exit 0 and the claims as JSON on stdout when the
token is valid; exit 1 with the reason on stderr when it is not; exit 2 on a usage error.
"""

import json
import sys

import jwt


def verify(jwks_file, token_file, audience, issuer):
    """The verified claims; raises jwt.PyJWTError or ValueError when the token must not be trusted."""
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
    except (jwt.PyJWTError, ValueError, OSError) as error:
        print("verify_id_token: refused: %s: %s" % (type(error).__name__, error), file=sys.stderr)
        return 1
    print(json.dumps(claims, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
