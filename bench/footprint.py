#!/usr/bin/python3
"""Footprint of the release daemon, each figure beside a reference measured in the same run.

  once        `auth-handler --once` exec -> its loopback port accepting a TCP connection, median of 20 runs
              (github.com, whose endpoints are fixed: the start contacts nobody). Reference: `auth-handler --version`
              exec -> exit, the floor any run of the binary pays.
  idle        VmRSS of an idle `serve` (SQLite store, one built-in provider) 2 s after it answered /healthz, with
              /proc/PID/smaps_rollup's split (anonymous vs file-backed) and the largest mappings. Reference: the
              bench binary's `idle` (a static Foundation program doing nothing).
  growth      VmRSS of `serve` (SQLite) after 1,000 (warm), 10,000 and --signins (default 100,000) complete sign-ins
              through the fake IdP, driven by `auth-handler-bench signin`.

Prints `key value` lines (bench/run reads them). Standard library only (Debian's /usr/bin/python3).
"""

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def accepting(port):
    with socket.socket() as s:
        try:
            s.connect(("127.0.0.1", port))
            return True
        except ConnectionRefusedError:
            return False


def clean_env():
    return {name: value for name, value in os.environ.items() if not name.startswith("AUTH_HANDLER_")}


def once_startup(binary, work, runs):
    secret = os.path.join(work, "once-secret")
    with open(secret, "w") as f:
        f.write("bench-secret")
    times = []
    for _ in range(runs):
        port = free_port()
        began = time.perf_counter()
        process = subprocess.Popen(
            [binary, "--once", "--provider", "github.com", "--client-id", "bench", "--client-secret-file", secret,
             "--no-browser", "--port", str(port), "--timeout", "30"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=clean_env())
        while not accepting(port):
            time.sleep(0.0005)  # not a spin: the run being timed shares the machine's cores
            if process.poll() is not None:
                raise SystemExit(f"footprint: --once exited with {process.returncode} before listening")
            if time.perf_counter() - began > 10:
                process.kill()
                raise SystemExit("footprint: --once did not listen within 10 s")
        times.append(time.perf_counter() - began)
        process.terminate()
        process.wait()
    floor = []
    for _ in range(runs):
        began = time.perf_counter()
        subprocess.run([binary, "--version"], stdout=subprocess.DEVNULL, check=True)
        floor.append(time.perf_counter() - began)
    return statistics.median(times) * 1000, statistics.median(floor) * 1000


def start(command, prefix, work, name):
    """Starts `command`; returns (process, rest of its first stdout line starting with `prefix`)."""
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=open(os.path.join(work, name + ".err"), "w"), env=clean_env(), text=True)
    for line in process.stdout:
        if line.startswith(prefix):
            # Keep reading what it prints after, so that it never blocks on a full pipe.
            threading.Thread(target=process.stdout.read, daemon=True).start()
            return process, line[len(prefix):].strip()
    raise SystemExit(f"footprint: {name} exited without printing {prefix!r}")


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def rollup(pid):
    fields = {}
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and parts[2] == "kB":
                fields[parts[0].rstrip(":")] = int(parts[1])
    return fields


def largest_mappings(pid, count=4):
    """RSS by mapping name (the binary, [heap], [stack], anonymous), largest first."""
    by_name = {}
    name = None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            parts = line.split()
            if "-" in parts[0] and len(parts) >= 5 and not parts[0].endswith(":"):
                name = os.path.basename(parts[5]) if len(parts) > 5 else "anonymous"
            elif parts[0] == "Rss:":
                by_name[name] = by_name.get(name, 0) + int(parts[1])
    ranked = sorted(by_name.items(), key=lambda item: -item[1])[:count]
    return ",".join(f"{name}={kib / 1024:.1f}MiB" for name, kib in ranked)


def serve_config(work, name, idp=None):
    providers = {"github.com": {"clientId": "bench", "clientSecret": {"file": os.path.join(work, "once-secret")}}}
    if idp:
        providers = {"google.com": {"clientId": "fake-client-id", "issuer": idp + "/oidc",
                                    "clientSecret": {"file": os.path.join(work, "client-secret")}}}
    config = {
        "listen": ["127.0.0.1:0"],
        "store": {"kind": "sqlite", "path": os.path.join(work, name + ".sqlite")},
        "allowedRedirectURLs": ["http://127.0.0.1/app"],
        "backend": {"kind": "none"},
        "providers": providers,
    }
    path = os.path.join(work, name + ".json")
    with open(path, "w") as f:
        json.dump(config, f)
    return path


def idle_rss(binary, bench, work):
    process, url = start([binary, "serve", "--config", serve_config(work, "idle")], "auth-handler listening on ",
                         work, "idle")
    try:
        urllib.request.urlopen(url + "/healthz", timeout=10).read()
        time.sleep(2)
        ours, split, mappings = rss_kib(process.pid), rollup(process.pid), largest_mappings(process.pid)
    finally:
        process.terminate()
        process.wait()
    reference, _ = start([bench, "idle"], "ready", work, "reference")
    try:
        time.sleep(2)
        floor = rss_kib(reference.pid)
    finally:
        reference.kill()
        reference.wait()
    return ours, split, mappings, floor


def drive(bench, url, total, concurrency):
    result = subprocess.run(
        [bench, "signin", url + "/__/auth/handler?providerId=google.com", "http://127.0.0.1/app",
         "--total", str(total), "--concurrency", str(concurrency), "--seconds", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env())
    fields = result.stdout.split()
    if result.returncode != 0 or len(fields) < 5 or fields[3] != "0":
        raise SystemExit(f"footprint: the sign-in driver failed:\n{result.stdout}{result.stderr}")
    return int(fields[4])


def growth(binary, bench, work, signins, concurrency):
    with open(os.path.join(work, "client-secret"), "w") as f:
        f.write("fake-client-secret")
    idp, idp_url = start([binary, "fake-idp", "--listen", "127.0.0.1:0"], "fake-idp listening on ", work, "idp")
    daemon, url = start([binary, "serve", "--config", serve_config(work, "growth", idp_url)],
                        "auth-handler listening on ", work, "growth")
    samples = {}
    try:
        done = 0
        for target in sorted({min(n, signins) for n in (1000, 10000, signins // 4, signins // 2, signins)}):
            # The fake IdP keeps every request it received (its control API lists them): forget them, so that its
            # memory stays flat and it does not slow down over a long run.
            urllib.request.urlopen(urllib.request.Request(idp_url + "/__fake/requests", method="DELETE")).read()
            if target > done:
                done += drive(bench, url, target - done, concurrency)
                samples[done] = rss_kib(daemon.pid)
    finally:
        for process in (daemon, idp):
            process.terminate()
            process.wait()
    return samples


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-dir", default=".build/release")
    parser.add_argument("--signins", type=int, default=100000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    binary = os.path.join(args.bin_dir, "auth-handler")
    bench = os.path.join(args.bin_dir, "auth-handler-bench")
    with tempfile.TemporaryDirectory() as work:
        once, floor = once_startup(binary, work, args.runs)
        print(f"once-ms {once:.1f}")
        print(f"version-ms {floor:.1f}")
        ours, split, mappings, reference = idle_rss(binary, bench, work)
        print(f"idle-rss-mib {ours / 1024:.1f}")
        print(f"idle-anon-mib {split.get('Pss_Anon', 0) / 1024:.1f}")
        print(f"idle-file-mib {split.get('Pss_File', 0) / 1024:.1f}")
        print(f"idle-mappings {mappings}")
        print(f"reference-idle-rss-mib {reference / 1024:.1f}")
        samples = growth(binary, bench, work, args.signins, args.concurrency)
        counts = sorted(samples)
        print("growth " + " ".join(f"{count}:{samples[count] / 1024:.1f}" for count in counts))
        ten = min(counts, key=lambda count: abs(count - 10000))
        print(f"rss-10k-mib {samples[ten] / 1024:.1f}")
        print(f"rss-final-mib {samples[counts[-1]] / 1024:.1f}")
        print(f"signins-final {counts[-1]}")
        print(f"growth-percent {(samples[counts[-1]] - samples[ten]) / samples[ten] * 100:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
