#!/usr/bin/env python3
"""The library on disk at 100,000 photos, a benchmark rather than a timed test.
Against a release flickr-sandbox seeded with 100,000 photos of one user (the generated world of
flickr-sandbox --photos: tags, untagged photos, descriptions, geo on some, privacy, licences, videos
and sets), its access log counting the calls:
- the first `flickr sync`: calls (goal ≤ ⌈P/500⌉ + 1 + Σ⌈set size/500⌉ + 10, which is 210 for
  100,000 photos and no set) and wall time;
- the database on disk, the .sqlite plus its -wal (goal ≤ 100 MB);
- filtered queries measured inside one Lua process (os.clock, CPU seconds of the process, median
  of 9) over flickr.library.count and flickr.library.photos (the query and its first page of
  rows) for several filters (goal ≤ 50 ms each), and the wall time of a `flickr find … --ids`
  process (start-up included, for information);
- iterating the whole library in Lua, `for p in flickr.library.photos{} do n = n + 1 end`
  (goal ≤ 1 s);
- an incremental sync with nothing changed: calls (goal ≤ 5).
`flickr` runs with XDG_DATA_HOME (and XDG_STATE_HOME, XDG_CONFIG_HOME) in a temporary folder and
the FLICKR_* variables from the sandbox's banner.
Usage: bench_library.py --bin DIR [--photos N] [--runs N]"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_sandbox import Sandbox, generated_world  # noqa: E402

# The filters timed, as `flickr find` words and as Lua table constructors (the same query), over
# the generated world's vocabulary (flickr-sandbox --photos, docs/SANDBOX.md).
FILTERS = [
    (["tags=tram"], '{ tags = "tram" }'),
    (["tags=tram,night"], '{ tags = { "tram", "night" } }'),
    (["any_tags=snow,beach", "order=-views", "limit=100"], '{ any_tags = { "snow", "beach" }, order = "-views", limit = 100 }'),
    (["untagged", "taken=2016"], '{ untagged = true, taken = "2016" }'),
    (["taken=2016-03-01..2016-06-30", "has_geo"], '{ taken = { from = "2016-03-01", to = "2016-06-30" }, has_geo = true }'),
    (["uploaded=2017"], '{ uploaded = "2017" }'),
    (["text=harbour"], '{ text = "harbour" }'),
    (["set=Everything early"], '{ set = "Everything early" }'),
    (["privacy=private", "media=video"], '{ privacy = "private", media = "video" }'),
    (["license=4"], '{ license = "4" }'),
    (["machine_tags=camera:make=nikon"], '{ machine_tags = "camera:make=nikon" }'),
]


def calls_in(log, since):
    """The REST calls the access log holds past byte offset `since`, and the log's new end."""
    with open(log) as f:
        f.seek(since)
        lines = [json.loads(line) for line in f if line.strip()]
        end = f.tell()
    return [e for e in lines if e.get("method")], end


def lua_script(path, runs):
    """The queries timed inside one Lua process: prints one JSON line."""
    body = ["local L, out = flickr.library, {}",
            "local function median(t) table.sort(t); return t[(#t + 1) // 2] end",
            "local function time(f) local ts = {} for _ = 1, %d do local t = os.clock(); f(); ts[#ts + 1] = os.clock() - t end"
            " return median(ts) * 1000 end" % runs,
            "local function first(filter) local it = L.photos(filter); return it() end",
            "local rows = {}"]
    for words, lua in FILTERS:
        body.append("do local f = %s; local n = L.count(f)" % lua)
        body.append("  local c = time(function() L.count(f) end); local p = time(function() first(f) end)")
        body.append("  rows[#rows + 1] = string.format('{\"filter\":%%q,\"n\":%%d,\"count_ms\":%%.3f,\"photos_ms\":%%.3f}', %r, n, c, p) end"
                    % " ".join(words))
    # The whole library, three times; the fields of a row read as a script would.
    body += ["local its, n = {}, 0",
             "for _ = 1, 3 do n = 0; local t = os.clock(); for p in L.photos{} do n = n + 1 end; its[#its + 1] = os.clock() - t end",
             "local st = L.status()",
             "print(string.format('{\"rows\":[%s],\"all_n\":%d,\"all_s\":%.3f,\"all_best_s\":%.3f,\"status_photos\":%d}',"
             " table.concat(rows, ','), n, median(its), math.min(table.unpack(its)), st.photos))"]
    with open(path, "w") as f:
        f.write("\n".join(body) + "\n")


def run(cmd, env, timeout=3600):
    t = time.perf_counter()
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError("%s exited %d: %s" % (" ".join(cmd[1:3]), r.returncode, r.stderr.strip()[-2000:]))
    return time.perf_counter() - t, r.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--photos", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=9)
    args, _ = ap.parse_known_args()
    flickr = os.path.join(args.bin, "flickr")
    rows = []
    with tempfile.TemporaryDirectory(prefix="flickr-bench-library-") as tmp:
        data, log = os.path.join(tmp, "seed.json"), os.path.join(tmp, "access.log")
        world = generated_world(args.bin, data, args.photos)
        P = len(world["photos"])
        set_pages = sum(max(1, math.ceil(len(s["photos"]) / 500)) for s in world["photosets"])
        s = Sandbox(os.path.join(args.bin, "flickr-sandbox"), ["--data", data, "--log", log])
        try:
            i = s.info
            env = dict(os.environ, FLICKR_ENDPOINT=i["url"], FLICKR_API_KEY=i["api_key"], FLICKR_API_SECRET=i["api_secret"],
                       FLICKR_OAUTH_TOKEN=i["oauth_token"], FLICKR_OAUTH_TOKEN_SECRET=i["oauth_token_secret"],
                       XDG_DATA_HOME=os.path.join(tmp, "data"), XDG_STATE_HOME=os.path.join(tmp, "state"),
                       XDG_CONFIG_HOME=os.path.join(tmp, "config"))
            for k in ("FLICKR_PROFILE", "FLICKR_BUDGET"):
                env.pop(k, None)
            _, offset = calls_in(log, 0)

            # The first sync.
            wall, out = run([flickr, "sync", "--json"], env)
            summary = json.loads(out.strip().splitlines()[-1])
            calls, offset = calls_in(log, offset)
            bound = math.ceil(P / 500) + 1 + set_pages + 10
            by = {}
            for c in calls:
                by[c["method"]] = by.get(c["method"], 0) + 1
            assert summary["photos"] == P, summary
            rows.append(("library: first sync of %d photos, %d sets (%s)" % (P, len(world["photosets"]),
                                                                          ", ".join("%s %d" % (m.replace("flickr.", ""), n)
                                                                                    for m, n in sorted(by.items()))),
                         "%d calls, %.1f s" % (len(calls), wall),
                         "goal ≤ ⌈P/500⌉+1+Σ⌈set/500⌉+10 = %d (210 with no set)" % bound, len(calls) <= bound))

            # The database on disk: now (the process has ended) and as a running query leaves it.
            libdir = os.path.join(tmp, "data", "flickr", "library")
            dbs = [f for f in os.listdir(libdir) if f.endswith(".sqlite")]
            assert len(dbs) == 1, os.listdir(libdir)
            db = os.path.join(libdir, dbs[0])
            size = sum(os.path.getsize(db + x) for x in ("", "-wal") if os.path.exists(db + x))
            wal = os.path.getsize(db + "-wal") if os.path.exists(db + "-wal") else 0
            rows.append(("library: database of %d photos on disk (.sqlite + -wal)" % P,
                         "%.1f MB (-wal %.1f MB)" % (size / 1e6, wal / 1e6), "goal ≤ 100 MB", size <= 100e6))

            # Queries inside one Lua process.
            script = os.path.join(tmp, "queries.lua")
            lua_script(script, args.runs)
            _, out = run([flickr, script], env)
            q = json.loads(out.strip().splitlines()[-1])
            calls, offset = calls_in(log, offset)
            assert not calls, "a query made calls: %r" % calls
            for r in q["rows"]:
                ms = max(r["count_ms"], r["photos_ms"])
                rows.append(("library: Lua query {%s}: %d photos (median of %d, os.clock)" % (r["filter"], r["n"], args.runs),
                             "count %.2f ms, photos (query + first page) %.2f ms" % (r["count_ms"], r["photos_ms"]),
                             "goal ≤ 50 ms", ms <= 50))
            # `flickr find` as a process: start-up, the query, the ids printed.
            walls = []
            for words, _ in FILTERS:
                ts = []
                for _ in range(3):
                    dt, out = run([flickr, "find"] + words + ["--ids"], env)
                    ts.append(dt)
                walls.append((statistics.median(ts), words, len(out.split())))
            calls, offset = calls_in(log, offset)
            assert not calls, "flickr find made calls: %r" % calls
            empty, _ = run([flickr, "-e", ""], env)
            slowest = max(walls)
            rows.append(("library: `flickr find … --ids` process wall, %d filters (median of 3 each; `flickr -e ''` %.0f ms)"
                         % (len(walls), empty * 1000),
                         "median %.0f ms, slowest %.0f ms (%s: %d ids)" % (statistics.median(w[0] for w in walls) * 1000,
                                                                           slowest[0] * 1000, " ".join(slowest[1]), slowest[2]),
                         "for information (no call made)", True))
            rows.append(("library: Lua `for p in flickr.library.photos{} do n = n + 1 end` over %d photos (median of 3, os.clock)"
                         % q["all_n"], "%.2f s (best %.2f s)" % (q["all_s"], q["all_best_s"]), "goal ≤ 1 s", q["all_s"] <= 1))
            assert q["all_n"] == P and q["status_photos"] == P, q

            # An incremental sync with nothing changed.
            wall, out = run([flickr, "sync", "--json"], env)
            summary = json.loads(out.strip().splitlines()[-1])
            calls, offset = calls_in(log, offset)
            rows.append(("library: incremental sync, nothing changed (%s)" % ", ".join(c["method"].replace("flickr.", "") for c in calls),
                         "%d calls, %.2f s (%s)" % (len(calls), wall, summary["kind"]), "goal ≤ 5", len(calls) <= 5))
        finally:
            s.stop()
    width = max(len(r[0]) for r in rows)
    for name, figures, verdict, ok in rows:
        print(f"{name:<{width}}  {figures}  →  {verdict}  {'MET' if ok else 'NOT MET'}")


if __name__ == "__main__":
    main()
