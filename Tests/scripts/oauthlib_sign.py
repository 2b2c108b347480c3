#!/usr/bin/env python3
"""Signs the cases read as JSON on stdin with oauthlib, for the Swift cross-check test.

Each case: method, url, params ([[name, value], ...], oauth_* included), consumer_secret,
token_secret. Output: a JSON list of {base_string, signature}, in order.
"""
import json
import sys

from oauthlib.oauth1.rfc5849 import signature as sig


def main():
    cases = json.load(sys.stdin)
    out = []
    for c in cases:
        params = [(k, v) for k, v in c["params"]]
        normalized = sig.normalize_parameters(params)
        uri = sig.base_string_uri(c["url"])
        base = sig.signature_base_string(c["method"].upper(), uri, normalized)
        signature = sig.sign_hmac_sha1(base, c["consumer_secret"], c["token_secret"])
        out.append({"base_string": base, "signature": signature})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
