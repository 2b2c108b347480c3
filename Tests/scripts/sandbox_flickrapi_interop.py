#!/usr/bin/env python3
"""python-flickrapi 2.4 against flickr-sandbox: the OAuth dance, then calls that change state.

Usage: sandbox_flickrapi_interop.py URL API_KEY API_SECRET
The library is used unmodified; only its endpoint URLs are pointed at the sandbox.
Prints one JSON object with what happened; exits non-zero on any failure.
"""
import json
import os
import re
import sys
import tempfile

import flickrapi
import requests


def main():
    base, key, secret = sys.argv[1], sys.argv[2], sys.argv[3]
    flickrapi.FlickrAPI.REST_URL = base + "/services/rest/"
    flickrapi.FlickrAPI.UPLOAD_URL = base + "/services/upload/"
    flickrapi.FlickrAPI.REPLACE_URL = base + "/services/replace/"
    flickrapi.auth.OAuthFlickrInterface.REQUEST_TOKEN_URL = base + "/services/oauth/request_token"
    flickrapi.auth.OAuthFlickrInterface.AUTHORIZE_URL = base + "/services/oauth/authorize"
    flickrapi.auth.OAuthFlickrInterface.ACCESS_TOKEN_URL = base + "/services/oauth/access_token"

    out = {}
    with tempfile.TemporaryDirectory() as cache:
        api = flickrapi.FlickrAPI(key, secret, format="parsed-json", store_token=False,
                                  token_cache_location=cache)
        # OAuth dance: request token, authorize (fetch the page, read the verifier), access token.
        api.get_request_token(oauth_callback="oob")
        authorize_url = api.auth_url(perms="delete")
        page = requests.get(authorize_url, timeout=10)
        match = re.search(r'<span id="oauth_verifier">([^<]+)</span>', page.text)
        if not match:
            raise SystemExit("no verifier on the authorize page: %r" % page.text[:300])
        out["verifier"] = match.group(1)
        api.get_access_token(match.group(1))
        out["token_perms"] = api.token_cache.token.access_level
        out["token_valid"] = api.token_valid(perms="delete")

        login = api.test.login()
        out["login"] = login["user"]["username"]["_content"]
        out["nsid"] = login["user"]["id"]

        found = api.photos.search(user_id="me", tags="fog", extras="tags,url_m,o_dims,date_taken,owner_name",
                                  per_page=5)
        photos = found["photos"]["photo"]
        out["search_total"] = int(found["photos"]["total"])
        out["search_first"] = photos[0]
        photo_id = photos[0]["id"]
        out["photo_id"] = photo_id

        info = api.photos.getInfo(photo_id=photo_id)
        out["info_title"] = info["photo"]["title"]["_content"]
        out["info_secret"] = info["photo"]["secret"]

        api.photos.addTags(photo_id=photo_id, tags='interop "added by python" python:lib=flickrapi')
        tags = api.tags.getListPhoto(photo_id=photo_id)["photo"]["tags"]["tag"]
        out["after_add"] = [(t["raw"], t["_content"]) for t in tags]

        api.photos.setTags(photo_id=photo_id, tags='replaced "new york" fog')
        tags = api.tags.getListPhoto(photo_id=photo_id)["photo"]["tags"]["tag"]
        out["after_set"] = [(t["raw"], t["author"]) for t in tags]

        victim = [t for t in tags if t["raw"] == "replaced"][0]
        api.photos.removeTag(tag_id=victim["id"])
        tags = api.tags.getListPhoto(photo_id=photo_id)["photo"]["tags"]["tag"]
        out["after_remove"] = [t["raw"] for t in tags]
        out["removed_id"] = victim["id"]

        # Upload and replace a small JPEG (flickrapi returns an ElementTree for uploads).
        jpeg = os.path.join(cache, "harbour.jpg")
        with open(jpeg, "wb") as f:
            f.write(bytes.fromhex(sys.argv[4]) if len(sys.argv) > 4 else b"\xff\xd8\xff\xd9")
        rsp = api.upload(jpeg, title="Uploaded from Python", tags='upload "python test"', is_public="1",
                         format="etree")
        new_id = rsp.find("photoid").text
        out["upload_id"] = new_id
        info = api.photos.getInfo(photo_id=new_id)["photo"]
        out["upload_title"] = info["title"]["_content"]
        out["upload_tags"] = [t["raw"] for t in info["tags"]["tag"]]
        out["upload_secret"] = info["secret"]
        out["upload_osecret"] = info.get("originalsecret")

        rsp = api.replace(jpeg, photo_id=new_id, format="etree")
        out["replace_id"] = rsp.find("photoid").text
        info = api.photos.getInfo(photo_id=new_id)["photo"]
        out["replaced_secret"] = info["secret"]
        out["replaced_osecret"] = info.get("originalsecret")
        # The original is served back byte for byte.
        orig = "%s/static/%s/%s_%s_o.%s" % (base, info["server"], new_id, info["originalsecret"], info["originalformat"])
        out["original_bytes_match"] = requests.get(orig, timeout=10).content == open(jpeg, "rb").read()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
