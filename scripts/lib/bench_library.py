#!/usr/bin/env python3
"""The library on disk at 100,000 photos, a benchmark rather than a timed test.
Against a release flickr-sandbox seeded with 100,000 photos of one user (the generated world of
flickr-sandbox --photos: tags, untagged photos, descriptions, geo on some, privacy, licences, videos
and sets), its access log counting the calls:
- the first `flickr sync`: calls (goal ≤ ⌈P/500⌉ + 1 + Σ⌈set size/500⌉ + 10, which is 210 for
  100,000 photos and no set) and wall time;
- the database on disk, the .sqlite plus its -wal (goal ≤ 100 MB);
- inside one Lua process, run 5 times (each figure the wall-clock median of the 5 runs; the clock
  is SQLite's, read through flickr.library.sql): every documented filter as
  `flickr.library.count`, each call timed by itself, the first call of the process included
  (goal ≤ 50 ms); `flickr.library.photos{ order = …, limit = 100 }` read whole, for every order
  (goal ≤ 50 ms); the whole walk `for p in flickr.library.photos{} do n = n + 1 end` (goal ≤ 1 s);
- `flickr find FILTER --ids` as a process, start-up included, for each filter matching fewer than
  10,000 photos (median of 5; goal ≤ 150 ms), and `flickr find --json` of every photo (median of 5;
  goal ≤ 3 s);
- an incremental sync with nothing changed: calls (goal ≤ 5).
`flickr` runs with XDG_DATA_HOME (and XDG_STATE_HOME, XDG_CONFIG_HOME) in a temporary folder and
the FLICKR_* variables from the sandbox's banner.
Usage: bench_library.py --bin DIR [--photos N]"""
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
from bench_sandbox import Sandbox, generated_world, print_rows  # noqa: E402

# The filters timed, as `flickr find` words and as Lua table constructors (the same query), over
# the generated world's vocabulary (flickr-sandbox --photos, docs/SANDBOX.md).
FILTERS = [
    (["tags=tram"], '{ tags = "tram" }'),
    (["tags=tram,night"], '{ tags = { "tram", "night" } }'),
    (["any_tags=snow,beach", "order=-views", "limit=100"], '{ any_tags = { "snow", "beach" }, order = "-views", limit = 100 }'),
    (["untagged", "taken=2016"], '{ untagged = true, taken = "2016" }'),
    (["taken=2016-03-01..2016-06-30", "has_geo"], '{ taken = { from = "2016-03-01", to = "2016-06-30" }, has_geo = true }'),
    (["uploaded=2017"], '{ uploaded = "2017" }'),
    (["updated=2018"], '{ updated = "2018" }'),
    (["text=harbour"], '{ text = "harbour" }'),
    (["text=Bridge 1"], '{ text = "Bridge 1" }'),
    (["set=Everything early"], '{ set = "Everything early" }'),
    (["privacy=private", "media=video"], '{ privacy = "private", media = "video" }'),
    (["license=4"], '{ license = "4" }'),
    (["has_geo=false"], '{ has_geo = false }'),
    (["machine_tags=camera:make=nikon"], '{ machine_tags = "camera:make=nikon" }'),
]

# The orders of flickr.library.photos{ order = …, limit = 100 }.
ORDERS = ["taken", "-taken", "uploaded", "-uploaded", "updated", "-updated", "views", "-views"]

def calls_in(log, since):
    """The REST calls the access log holds past byte offset `since`, and the log's new end."""
    with open(log) as f:
        f.seek(since)
        lines = [json.loads(line) for line in f if line.strip()]
        end = f.tell()
    return [e for e in lines if e.get("method")], end


def lua_script(path):
    """The calls timed inside one Lua process, each once (the first of the process included), by
    the wall clock (SQLite's, in milliseconds): prints one JSON line."""
    body = ["local L, out = flickr.library, {}",
            "local function now() return L.sql(\"SELECT (julianday('now') - 2440587.5) * 86400000.0 AS t\")[1].t end",
            "local function time(f) local t = now(); local r = f(); return now() - t, r end",
            "local rows = {}"]
    for words, lua in FILTERS:
        body.append("do local ms, n = time(function() return L.count(%s) end)" % lua)
        body.append("  rows[#rows + 1] = string.format('{\"filter\":%%q,\"n\":%%d,\"ms\":%%.3f}', %r, n, ms) end" % " ".join(words))
    body.append("local orders = {}")
    for order in ORDERS:
        body.append("do local ms, n = time(function() local n = 0; for p in L.photos{ order = %r, limit = 100 } do n = n + 1 end; return n end)"
                    % order)
        body.append("  orders[#orders + 1] = string.format('{\"order\":%%q,\"n\":%%d,\"ms\":%%.3f}', %r, n, ms) end" % order)
    body += ["local all_ms, n = time(function() local n = 0; for p in L.photos{} do n = n + 1 end; return n end)",
             "local st = L.status()",
             "print(string.format('{\"rows\":[%s],\"orders\":[%s],\"all_n\":%d,\"all_ms\":%.3f,\"status_photos\":%d}',"
             " table.concat(rows, ','), table.concat(orders, ','), n, all_ms, st.photos))"]
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
            env = s.client_env(tmp)
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

            # Queries inside one Lua process, the process run 5 times.
            script = os.path.join(tmp, "queries.lua")
            lua_script(script)
            runs = []
            for _ in range(5):
                _, out = run([flickr, script], env)
                runs.append(json.loads(out.strip().splitlines()[-1]))
            calls, offset = calls_in(log, offset)
            assert not calls, "a query made calls: %r" % calls
            counts = {}
            for i, (words, _) in enumerate(FILTERS):
                ms = statistics.median(r["rows"][i]["ms"] for r in runs)
                counts[" ".join(words)] = runs[0]["rows"][i]["n"]
                rows.append(("library: flickr.library.count{%s}: %d photos (first call of a process, wall, median of 5)"
                             % (" ".join(words), runs[0]["rows"][i]["n"]), "%.1f ms" % ms, "goal ≤ 50 ms", ms <= 50))
            for i, order in enumerate(ORDERS):
                ms = statistics.median(r["orders"][i]["ms"] for r in runs)
                rows.append(("library: flickr.library.photos{ order = %r, limit = 100 } read whole (wall, median of 5)" % order,
                             "%.1f ms" % ms, "goal ≤ 50 ms", ms <= 50))
            all_s = statistics.median(r["all_ms"] for r in runs) / 1000
            rows.append(("library: Lua `for p in flickr.library.photos{} do n = n + 1 end` over %d photos (wall, median of 5)"
                         % runs[0]["all_n"], "%.2f s" % all_s, "goal ≤ 1 s", all_s <= 1))
            assert runs[0]["all_n"] == P and runs[0]["status_photos"] == P, runs[0]
            # `flickr find` as a process: start-up, the query, the ids printed; for the filters
            # matching fewer than 10,000 photos.
            empty = statistics.median(run([flickr, "-e", ""], env)[0] for _ in range(5))
            for words, _ in FILTERS:
                n = counts[" ".join(words)]
                if n >= 10_000:
                    continue
                wall = statistics.median(run([flickr, "find"] + words + ["--ids"], env)[0] for _ in range(5))
                rows.append(("library: `flickr find %s --ids` process, %d ids (wall, median of 5; `flickr -e ''` %.0f ms)"
                             % (" ".join(words), n, empty * 1000), "%.0f ms" % (wall * 1000), "goal ≤ 150 ms", wall <= 0.150))
            walls = []
            for _ in range(5):
                dt, out = run([flickr, "find", "--json"], env)
                walls.append(dt)
            assert out.count('"id":') == P, "find --json printed %d photos" % out.count('"id":')
            wall = statistics.median(walls)
            rows.append(("library: `flickr find --json` of all %d photos (wall, median of 5)" % P, "%.2f s" % wall, "goal ≤ 3 s", wall <= 3))
            calls, offset = calls_in(log, offset)
            assert not calls, "flickr find made calls: %r" % calls

            # An incremental sync with nothing changed.
            wall, out = run([flickr, "sync", "--json"], env)
            summary = json.loads(out.strip().splitlines()[-1])
            calls, offset = calls_in(log, offset)
            rows.append(("library: incremental sync, nothing changed (%s)" % ", ".join(c["method"].replace("flickr.", "") for c in calls),
                         "%d calls, %.2f s (%s)" % (len(calls), wall, summary["kind"]), "goal ≤ 5", len(calls) <= 5))
        finally:
            s.stop()
    print_rows(rows)


if __name__ == "__main__":
    main()
