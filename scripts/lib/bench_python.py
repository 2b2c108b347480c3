#!/usr/bin/env python3
"""Python sides of scripts/bench.

  bench_python.py gen FILE            write the ~1 MB Flickr-style photo list
  bench_python.py xml FILE RUNS       xml.etree parse + conversion to dicts, RUNS times after 0.3 s untimed (best, median)
  bench_python.py calls URL KEY SECRET TOKEN TOKEN_SECRET N
                                      python-flickrapi 2.4 sequential flickr.test.echo calls
  bench_python.py search URL KEY SECRET TOKEN TOKEN_SECRET N [etree|parsed-json]
                                      python-flickrapi 2.4 sequential 500-photo flickr.photos.search
Each measurement prints one JSON object.
"""
import json
import random
import statistics
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from xml.sax.saxutils import escape


WORDS = ["river", "lake", "dog", "city", "night", "sunset", "bridge", "street", "portrait", "café",
         "mountain", "snow", "forest", "beach", "market", "train", "old", "blue", "Zürich", "東京"]


def photos(n):
    """n Flickr-style photos (search extras included), the same every time: each a list of
    (attribute, value), values unescaped; ints where Flickr's JSON has numbers."""
    rnd = random.Random(7)
    for i in range(n):
        title = " ".join(rnd.choice(WORDS) for _ in range(3)).capitalize()
        if i % 17 == 0:
            title += ' & "friends" <3'
        tags = " ".join(rnd.choice(WORDS) for _ in range(6))
        pid = 52000000000 + i * 7919
        secret = "%010x" % rnd.getrandbits(40)
        url_q = "https://live.staticflickr.com/65535/%d_%010x_q.jpg" % (pid, rnd.getrandbits(40))
        yield [("id", str(pid)), ("owner", "%d@N0%d" % (10000000 + i % 97, i % 8)), ("secret", secret),
               ("server", "65535"), ("farm", 66), ("title", title), ("ispublic", 1), ("isfriend", 0),
               ("isfamily", 0), ("license", str(i % 10)), ("dateupload", str(1600000000 + i * 613)),
               ("ownername", "user %d" % (i % 97)), ("views", str(i * 13 % 9000)), ("tags", tags),
               ("url_q", url_q), ("height_q", 150), ("width_q", 150)]


def photo_list_xml(n, pages, total):
    """A Flickr XML answer holding a page of n photos."""
    out = ['<?xml version="1.0" encoding="utf-8" ?>\n<rsp stat="ok">\n'
           '<photos page="1" pages="%d" perpage="%d" total="%d">\n' % (pages, n, total)]
    for attrs in photos(n):
        out.append("\t<photo %s />\n" % " ".join('%s="%s"' % (k, escape(str(v), {'"': "&quot;"})) for k, v in attrs))
    out.append("</photos>\n</rsp>\n")
    return "".join(out)


def photo_list_json(n, pages, total):
    """The same page as Flickr's JSON (format=json&nojsoncallback=1)."""
    page = {"page": 1, "pages": pages, "perpage": n, "total": total, "photo": [dict(a) for a in photos(n)]}
    return json.dumps({"photos": page, "stat": "ok"}, separators=(",", ":"), ensure_ascii=False)


def gen(path):
    with open(path, "w", encoding="utf-8") as f:
        f.write(photo_list_xml(3000, pages=12, total=35211))


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


WARM_UP_SECONDS = 0.3


def xml(path, runs):
    with open(path, "rb") as f:
        data = f.read()
    best = float("inf")
    times = []
    tree = None
    count = 0
    # Untimed warm-up, as flickr-bench's XML modes: a process's first runs pay for its heap
    # growing and cold caches, which neither side's median should carry.
    end = time.perf_counter() + WARM_UP_SECONDS
    while time.perf_counter() < end:
        tree = None
        tree = to_dict(ET.fromstring(data))
    for _ in range(runs):
        tree = None  # free the last tree outside the timing, as the Swift side does
        t = time.perf_counter()
        tree = to_dict(ET.fromstring(data))
        dt = time.perf_counter() - t
        count = len(tree["photos"]["photo"])
        best = min(best, dt)
        times.append(round(dt * 1000, 2))
    print(json.dumps({"best_ms": best * 1000, "median_ms": statistics.median(times), "runs_ms": times, "photos": count, "bytes": len(data)}))


def flickr_api(url, key, secret, token, token_secret, fmt):
    """python-flickrapi 2.4 pointed at `url` (its REST, upload and replace paths), logged in."""
    import flickrapi
    base = url.rstrip("/")
    flickrapi.FlickrAPI.REST_URL = base + "/services/rest/"
    flickrapi.FlickrAPI.UPLOAD_URL = base + "/services/upload/"
    flickrapi.FlickrAPI.REPLACE_URL = base + "/services/replace/"
    cache = tempfile.mkdtemp(prefix="flickr-bench-")
    return flickrapi.FlickrAPI(key, secret, format=fmt, token_cache_location=cache,
                               token=flickrapi.auth.FlickrAccessToken(token, token_secret, "write"))


def timed(n, call):
    """n sequential calls of call(i), after one untimed call (connection and first-use costs)."""
    call(-1)
    t = time.perf_counter()
    for i in range(n):
        call(i)
    dt = time.perf_counter() - t
    return {"calls": n, "seconds": dt, "per_second": n / dt}


def calls(url, key, secret, token, token_secret, n):
    """flickr.test.echo, in python-flickrapi's default format (etree: the XML parsed by ElementTree)."""
    api = flickr_api(url, key, secret, token, token_secret, "etree")
    print(json.dumps(timed(n, lambda i: api.test.echo(i=str(i)))))


def search(url, key, secret, token, token_secret, n, fmt):
    """flickr.photos.search for a 500-photo page in format `fmt`: etree (python-flickrapi's default,
    XML → ElementTree) or parsed-json (JSON → dicts and lists)."""
    api = flickr_api(url, key, secret, token, token_secret, fmt)
    first = api.photos.search(text="bench", per_page="500")
    count = len(first.find("photos").findall("photo")) if fmt == "etree" else len(first["photos"]["photo"])
    figures = timed(n, lambda i: api.photos.search(text="bench", per_page="500"))
    print(json.dumps(dict(figures, photos=count, format=fmt)))


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "gen":
        gen(sys.argv[2])
    elif cmd == "xml":
        xml(sys.argv[2], int(sys.argv[3]))
    elif cmd == "calls":
        calls(*sys.argv[2:7], int(sys.argv[7]))
    elif cmd == "search":
        search(*sys.argv[2:7], int(sys.argv[7]), sys.argv[8] if len(sys.argv) > 8 else "etree")
    else:
        sys.exit("unknown command " + cmd)
