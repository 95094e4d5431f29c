#!/usr/bin/env python3
"""Slow-header clients against a running daemon (bench/slow-clients.sh).

Opens PER_ADDRESS connections from each loopback source address (127.0.0.2-.5 work on Linux without setup), each
sending a request head without its end, then one more byte every second, as a slowloris client does. Once all are
open it runs COMMAND (a normal client) and times it, then waits for the daemon to close the slow connections and
reports when it did, relative to each connection's open. Prints one line:
`command-seconds S command-exit E open N closed C close-after-s MEDIAN MIN MAX answered A | COMMAND'S STDOUT`.
"""
import argparse
import selectors
import socket
import statistics
import subprocess
import sys
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--addresses", default="127.0.0.2,127.0.0.3,127.0.0.4,127.0.0.5")
    parser.add_argument("--per-address", type=int, default=256)
    parser.add_argument("--wait", type=float, default=30, help="seconds to wait for the daemon to close them")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()

    selector = selectors.DefaultSelector()
    opened = {}
    for address in args.addresses.split(","):
        for _ in range(args.per_address):
            connection = socket.socket()
            connection.bind((address, 0))
            connection.connect(("127.0.0.1", args.port))
            connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            connection.setblocking(False)
            opened[connection] = time.monotonic()
            selector.register(connection, selectors.EVENT_READ)

    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    began = time.monotonic()
    # The normal client runs while the slow ones trickle; the trickling goes on in this process meanwhile.
    normal = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    closed_after = {}
    answered = 0
    next_byte = time.monotonic() + 1
    command_seconds = None
    deadline = time.monotonic() + args.wait
    while time.monotonic() < deadline and (len(closed_after) < len(opened) or command_seconds is None):
        if command_seconds is None and normal.poll() is not None:
            command_seconds = time.monotonic() - began
        timeout = max(0, min(next_byte, deadline) - time.monotonic())
        for key, _ in selector.select(timeout=min(timeout, 0.05)):
            connection = key.fileobj
            try:
                data = connection.recv(4096)
            except OSError:
                data = b""
            if data:
                answered += 1
                continue
            closed_after[connection] = time.monotonic() - opened[connection]
            selector.unregister(connection)
            connection.close()
        if time.monotonic() >= next_byte:
            next_byte += 1
            for connection in opened:
                if connection not in closed_after:
                    try:
                        connection.send(b"a")
                    except OSError:
                        pass
    if command_seconds is None:
        normal.kill()
        command_seconds = float("nan")
    times = sorted(closed_after.values()) or [float("nan")]
    output = normal.communicate()[0].strip()
    print(
        f"command-seconds {command_seconds:.3f} command-exit {normal.wait()} open {len(opened)} "
        f"closed {len(closed_after)} close-after-s {statistics.median(times):.2f} {times[0]:.2f} {times[-1]:.2f} "
        f"answered {answered} | {output}")


if __name__ == "__main__":
    sys.exit(main())
