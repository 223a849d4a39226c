#!/usr/bin/env python3
"""Verify a healthspan delivery as the Standard Webhooks specification defines, with Python's
standard library only (https://www.standardwebhooks.com).

    python3 examples/verify_standard_webhook.py SECRET WEBHOOK_ID WEBHOOK_TIMESTAMP WEBHOOK_SIGNATURE < body

SECRET is the `whsec_...` signing secret. The raw request body is read from standard input,
exactly as received. Prints `verified` and exits 0, or prints why not and exits 1.

The recipe: the key is the base64-decoded part of the secret after `whsec_`; the signed content
is `webhook-id + "." + webhook-timestamp + "." + body`; `webhook-signature` is a space-separated
list of `v1,<base64 HMAC-SHA256>` (several during a secret rotation): accept when any matches, in
constant time, and the timestamp is within five minutes of now.
"""
import base64
import hashlib
import hmac
import sys
import time

TOLERANCE_SECONDS = 300


def verify(secret, msg_id, timestamp, signatures, body, now=None):
    if secret.startswith("whsec_"):
        secret = secret[len("whsec_"):]
    # Secrets issued before Standard Webhooks used the URL-safe alphabet: accept both.
    key = base64.b64decode(secret.replace("-", "+").replace("_", "/") + "=" * (-len(secret) % 4))
    if not timestamp.isdigit():
        return "bad timestamp"
    now = time.time() if now is None else now
    if abs(now - int(timestamp)) > TOLERANCE_SECONDS:
        return "stale timestamp"
    signed = msg_id.encode() + b"." + timestamp.encode() + b"." + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    matched = False
    for item in signatures.split(" "):
        version, _, value = item.partition(",")
        if version == "v1" and hmac.compare_digest(value, expected):
            matched = True
    return None if matched else "no matching signature"


if __name__ == "__main__":
    if len(sys.argv) != 5:
        print(__doc__.strip().splitlines()[3].strip(), file=sys.stderr)
        sys.exit(2)
    problem = verify(*sys.argv[1:5], sys.stdin.buffer.read())
    print(problem or "verified")
    sys.exit(1 if problem else 0)
