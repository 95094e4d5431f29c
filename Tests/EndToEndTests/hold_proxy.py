"""A loopback TCP proxy for EndToEndClientAccountsTests' refresh race: usage hold_proxy.py UPSTREAM_PORT HELD_PATH.

It forwards every connection to 127.0.0.1:UPSTREAM_PORT as it comes, except the bytes of a `POST HELD_PATH` request:
those wait until a line arrives on stdin. It prints `listening PORT` once it listens and `held` for each request it
holds, so the test knows the refresh is in flight and cannot finish until the test lets it.
"""

import socket
import sys
import threading

released = threading.Event()


def wait_for_release():
    sys.stdin.readline()
    released.set()


def pump(source, target, held_line):
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            if held_line is not None and held_line in data and not released.is_set():
                print("held", flush=True)
                released.wait()
            target.sendall(data)
    except OSError:
        pass
    finally:
        for end in (source, target):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def serve(client, upstream_port, held_line):
    try:
        upstream = socket.create_connection(("127.0.0.1", upstream_port))
    except OSError:
        client.close()
        return
    threading.Thread(target=pump, args=(upstream, client, None), daemon=True).start()
    pump(client, upstream, held_line)


def main():
    upstream_port = int(sys.argv[1])
    held_line = b"POST " + sys.argv[2].encode() + b" "
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    threading.Thread(target=wait_for_release, daemon=True).start()
    print("listening %d" % listener.getsockname()[1], flush=True)
    while True:
        client, _ = listener.accept()
        threading.Thread(target=serve, args=(client, upstream_port, held_line), daemon=True).start()


main()
