"""Makes the import files EndToEndAccountsImportTests feeds `auth-handler accounts import`, with a second
implementation of each hash: Firebase's modified scrypt through Python's hashlib.scrypt and cryptography's AES-CTR
(firebase/scrypt's README gives the algorithm), bcrypt through libcrypt's crypt(3) by ctypes (Python 3.13 has no
crypt module).

Usage: make_import_files.py OUTDIR SPEC.json
SPEC: {"signerKey": B64, "saltSeparator": B64, "rounds": N, "memCost": N,
       "firebase": [{"localId", "email", "password" (or null), "salt" (B64, optional), "providers": [[id, rawId]],
                     "customAttributes" (optional)}],
       "bcrypt": [{"email", "password", "localId" (optional), "cost"}]}
Writes OUTDIR/firebase.json (as `firebase auth:export --format=json` does) and OUTDIR/bcrypt.csv.
"""
import base64
import ctypes
import hashlib
import json
import os
import sys

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes


def firebase_hash(password, salt, spec):
    key = hashlib.scrypt(
        password.encode("utf-8"), salt=salt + base64.b64decode(spec["saltSeparator"]), n=2 ** spec["memCost"],
        r=spec["rounds"], p=1, dklen=64, maxmem=64 * 1024 * 1024)
    encryptor = Cipher(algorithms.AES(key[:32]), modes.CTR(b"\0" * 16)).encryptor()
    return encryptor.update(base64.b64decode(spec["signerKey"])) + encryptor.finalize()


def bcrypt_hash(password, cost):
    libcrypt = ctypes.CDLL("libcrypt.so.1")
    libcrypt.crypt_gensalt.restype = ctypes.c_char_p
    libcrypt.crypt_gensalt.argtypes = [ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p, ctypes.c_int]
    libcrypt.crypt.restype = ctypes.c_char_p
    libcrypt.crypt.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    setting = libcrypt.crypt_gensalt(b"$2b$", cost, None, 0)
    return libcrypt.crypt(password.encode("utf-8"), setting).decode("ascii")


def main():
    outdir, spec = sys.argv[1], json.load(open(sys.argv[2]))
    users = []
    for entry in spec["firebase"]:
        user = {"localId": entry["localId"], "email": entry["email"], "emailVerified": True,
                "displayName": entry["localId"], "createdAt": "1486324027000", "lastSignedInAt": "1486324028000",
                "providerUserInfo": [{"providerId": p, "rawId": r, "email": entry["email"]}
                                     for p, r in entry.get("providers", [])]}
        if entry.get("password") is not None:
            salt = base64.b64decode(entry["salt"]) if "salt" in entry else os.urandom(10)
            user["passwordHash"] = base64.b64encode(firebase_hash(entry["password"], salt, spec)).decode()
            user["salt"] = base64.b64encode(salt).decode()
            user["providerUserInfo"].append({"providerId": "password", "rawId": entry["email"]})
        else:
            user["passwordHash"] = ""
        if "customAttributes" in entry:
            user["customAttributes"] = entry["customAttributes"]
        users.append(user)
    with open(os.path.join(outdir, "firebase.json"), "w") as out:
        json.dump({"users": users}, out, indent=2)
    with open(os.path.join(outdir, "bcrypt.csv"), "w") as out:
        out.write("email,bcrypt_hash,localId\n")
        for entry in spec["bcrypt"]:
            fields = [entry["email"], bcrypt_hash(entry["password"], entry["cost"])]
            if "localId" in entry:
                fields.append(entry["localId"])
            out.write(",".join(fields) + "\n")


main()
