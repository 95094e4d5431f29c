#!/usr/bin/python3
"""A real SMTP server for the mail tests: Debian's aiosmtpd on 127.0.0.1, port 0.

Usage: smtp_sink.py DIRECTORY [--auth USER:PASSWORD] [--fail COUNT:REPLY] [--tls CERT:KEY]

Prints "port N" once listening. Every message accepted is written to DIRECTORY as NNNN.eml (the data as received,
dot-stuffing already undone by the server, RFC 5321 section 4.5.2) and NNNN.json (the envelope: MAIL FROM, RCPT TO,
their ESMTP parameters and the login that authenticated, if any; and the message as Python's e-mail parser reads it:
its header fields decoded, its text body decoded, its defects), then "received NNNN" is printed. With --auth the
server offers AUTH PLAIN and LOGIN without TLS (loopback only) and refuses mail without it. With --fail, the first
COUNT transactions are answered REPLY (e.g. "451 4.3.0 try later") at RCPT TO, as a server in trouble would. With
--tls, the server speaks TLS from the first byte (smtps, RFC 8314) with the certificate and key in those PEM files.
"""

import argparse
import asyncio
import json
import os
import ssl
import sys
from email import policy
from email.parser import BytesParser

from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword


class Sink:
    def __init__(self, directory, failures, reply):
        self.directory = directory
        self.failures = failures
        self.reply = reply
        self.count = 0

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if self.failures > 0:
            self.failures -= 1
            return self.reply
        envelope.rcpt_tos.append(address)
        envelope.rcpt_options.extend(rcpt_options)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.count += 1
        name = "%04d" % self.count
        login = session.auth_data.login.decode() if isinstance(session.auth_data, LoginPassword) else None
        record = {
            "mail_from": envelope.mail_from,
            "mail_options": envelope.mail_options,
            "rcpt_tos": envelope.rcpt_tos,
            "rcpt_options": envelope.rcpt_options,
            "login": login,
        }
        record.update(parsed(envelope.original_content))
        self.write(name + ".eml", envelope.original_content)
        self.write(name + ".json", json.dumps(record).encode())
        print("received " + name, flush=True)
        return "250 OK"

    def write(self, name, data):
        temporary = os.path.join(self.directory, "." + name)
        with open(temporary, "wb") as file:
            file.write(data)
        os.rename(temporary, os.path.join(self.directory, name))


def readable(text):
    """Text the parser left with surrogate escapes (raw UTF-8 in a header) as UTF-8, so that JSON can carry it."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def parsed(data):
    """The message as Python's own e-mail parser reads it: an independent check of the encoding."""
    message = BytesParser(policy=policy.default).parsebytes(data)
    return {
        "headers": [[name, readable(str(value))] for name, value in message.items()],
        "body": message.get_content() if message.get_content_maintype() == "text" else None,
        "defects": [type(defect).__name__ for defect in message.defects],
    }


def authenticator(user, password):
    def check(server, session, envelope, mechanism, auth_data):
        ok = isinstance(auth_data, LoginPassword) and auth_data.login == user and auth_data.password == password
        # handled=False: aiosmtpd then answers a failure 535 itself (its default, True, sends nothing).
        return AuthResult(success=ok, handled=False, auth_data=auth_data)

    return check


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("directory")
    parser.add_argument("--auth")
    parser.add_argument("--fail")
    parser.add_argument("--tls")
    arguments = parser.parse_args()
    failures, reply = 0, ""
    if arguments.fail:
        count, reply = arguments.fail.split(":", 1)
        failures = int(count)
    sink = Sink(arguments.directory, failures, reply)
    options = {"enable_SMTPUTF8": True, "decode_data": False, "hostname": "sink.test"}
    if arguments.auth:
        user, password = arguments.auth.split(":", 1)
        options.update(
            authenticator=authenticator(user.encode(), password.encode()),
            auth_required=True,
            auth_require_tls=False,
        )
    context = None
    if arguments.tls:
        certificate, key = arguments.tls.split(":", 1)
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(certificate, key)
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: SMTP(sink, **options), "127.0.0.1", 0, ssl=context)
    print("port %d" % server.sockets[0].getsockname()[1], flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
