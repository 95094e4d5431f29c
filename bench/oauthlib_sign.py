#!/usr/bin/python3
"""Reference: Python oauthlib signing Twitter's "Creating a signature" request, signatures per second.

Run with Debian's /usr/bin/python3 (python3-oauthlib). Prints one number: signatures/s.
"""
import sys
import time

from oauthlib.oauth1 import Client

seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
client = Client(
    "xvz1evFS4wEEPTGEFPHBog",
    client_secret="kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw",
    resource_owner_key="370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb",
    resource_owner_secret="LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE",
)
url = "https://api.twitter.com/1.1/statuses/update.json?include_entities=true"
body = "status=Hello%20Ladies%20%2B%20Gentlemen%2C%20a%20signed%20OAuth%20request%21"
headers = {"Content-Type": "application/x-www-form-urlencoded"}

count = 0
start = time.perf_counter()
deadline = start + seconds
while True:
    for _ in range(200):
        client.sign(url, http_method="POST", body=body, headers=headers)
    count += 200
    now = time.perf_counter()
    if now >= deadline:
        break
print(f"{count / (now - start):.0f}")
