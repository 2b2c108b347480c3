#!/usr/bin/env python3
"""Python sides of scripts/bench.

  bench_python.py gen FILE            write the ~1 MB Flickr-style photo list
  bench_python.py xml FILE RUNS       xml.etree parse + conversion to dicts, best of RUNS
  bench_python.py calls URL KEY SECRET TOKEN TOKEN_SECRET N
                                      python-flickrapi 2.4 sequential flickr.test.echo calls
Each measurement prints one JSON object.
"""
import json
import random
import sys
import tempfile
import time
import xml.etree.ElementTree as ET


def gen(path):
    rnd = random.Random(7)
    words = ["river", "lake", "dog", "city", "night", "sunset", "bridge", "street", "portrait", "café",
             "mountain", "snow", "forest", "beach", "market", "train", "old", "blue", "Zürich", "東京"]
    out = ['<?xml version="1.0" encoding="utf-8" ?>\n<rsp stat="ok">\n'
           '<photos page="1" pages="12" perpage="3000" total="35211">\n']
    for i in range(3000):
        title = " ".join(rnd.choice(words) for _ in range(3)).capitalize()
        if i % 17 == 0:
            title += ' &amp; &quot;friends&quot; &lt;3'
        tags = " ".join(rnd.choice(words) for _ in range(6))
        pid = 52000000000 + i * 7919
        out.append(
            f'\t<photo id="{pid}" owner="{10000000 + i % 97}@N0{i % 8}" secret="{rnd.getrandbits(40):010x}" '
            f'server="65535" farm="66" title="{title}" ispublic="1" isfriend="0" isfamily="0" '
            f'license="{i % 10}" dateupload="{1600000000 + i * 613}" ownername="user {i % 97}" views="{i * 13 % 9000}" '
            f'tags="{tags}" url_q="https://live.staticflickr.com/65535/{pid}_{rnd.getrandbits(40):010x}_q.jpg" '
            f'height_q="150" width_q="150" />\n')
    out.append("</photos>\n</rsp>\n")
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(out))


def to_dict(el):
    d = dict(el.attrib)
    text = (el.text or "").strip()
    if text:
        d["_text"] = text
    for child in el:
        value = to_dict(child)
        if child.tag in d:
            if isinstance(d[child.tag], list):
                d[child.tag].append(value)
            else:
                d[child.tag] = [d[child.tag], value]
        else:
            d[child.tag] = value
    return d


def xml(path, runs):
    with open(path, "rb") as f:
        data = f.read()
    best = float("inf")
    times = []
    tree = None
    count = 0
    for _ in range(runs):
        tree = None  # free the last tree outside the timing, as the Swift side does
        t = time.perf_counter()
        tree = to_dict(ET.fromstring(data))
        dt = time.perf_counter() - t
        count = len(tree["photos"]["photo"])
        best = min(best, dt)
        times.append(round(dt * 1000, 2))
    print(json.dumps({"best_ms": best * 1000, "runs_ms": times, "photos": count, "bytes": len(data)}))


def calls(url, key, secret, token, token_secret, n):
    import flickrapi
    base = url.rstrip("/")
    flickrapi.FlickrAPI.REST_URL = base + "/services/rest/"
    flickrapi.FlickrAPI.UPLOAD_URL = base + "/services/upload/"
    flickrapi.FlickrAPI.REPLACE_URL = base + "/services/replace/"
    cache = tempfile.mkdtemp(prefix="flickr-bench-")
    api = flickrapi.FlickrAPI(key, secret, format="etree", token_cache_location=cache,
                              token=flickrapi.auth.FlickrAccessToken(token, token_secret, "write"))
    api.test.echo(warm="up")
    t = time.perf_counter()
    for i in range(n):
        api.test.echo(i=str(i))
    dt = time.perf_counter() - t
    print(json.dumps({"calls": n, "seconds": dt, "per_second": n / dt}))


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "gen":
        gen(sys.argv[2])
    elif cmd == "xml":
        xml(sys.argv[2], int(sys.argv[3]))
    elif cmd == "calls":
        calls(*sys.argv[2:7], int(sys.argv[7]))
    else:
        sys.exit("unknown command " + cmd)
