#!/usr/bin/env python3
"""Signs a REST call with a wrong consumer secret using oauthlib (an independent OAuth
implementation), sends it to the sandbox, and reports the 401 next to the base string that
oauthlib signed.

Usage: sandbox_wrong_secret.py URL API_KEY TOKEN TOKEN_SECRET
Prints JSON: {status, content_type, body, client_base_string}.
"""
import json
import sys

import requests
from oauthlib.oauth1 import Client
from oauthlib.oauth1.rfc5849 import signature as sig


def main():
    base, key, token, token_secret = sys.argv[1:5]
    url = base + "/services/rest/"
    body = {"method": "flickr.photos.addTags", "photo_id": "1", "tags": 'x "a b" c:d=e+f',
            "format": "rest", "nojsoncallback": "1"}
    client = Client(key, client_secret="definitely-not-the-secret", resource_owner_key=token,
                    resource_owner_secret=token_secret, signature_type="AUTH_HEADER")
    form = "&".join("%s=%s" % (requests.utils.quote(k, safe=""), requests.utils.quote(v, safe=""))
                    for k, v in body.items())
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    uri, headers, form = client.sign(url + "?extra=q%20v", "POST", form, headers)

    # The base string oauthlib signed, rebuilt from the signed request with oauthlib itself.
    params = sig.collect_parameters(uri_query=uri.split("?", 1)[1], body=form, headers=headers,
                                    exclude_oauth_signature=True)
    client_base = sig.signature_base_string("POST", sig.base_string_uri(uri), sig.normalize_parameters(params))

    r = requests.post(uri, data=form, headers=headers, timeout=10)
    print(json.dumps({"status": r.status_code, "content_type": r.headers.get("Content-Type"),
                      "body": r.text, "client_base_string": client_base}))


if __name__ == "__main__":
    main()
