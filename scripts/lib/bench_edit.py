#!/usr/bin/env python3
"""Edit jobs at scale, a benchmark rather than a timed test. Against a release
flickr-sandbox (`--latency 0`, `--log FILE`, which counts the calls) seeded with P photos of one
user (bench_library.py's seed: privacy by i % 10, licences 0-6, every 43rd a video, a few sets):
- the first `flickr sync`: calls and wall time (for information), then an incremental
  `flickr sync` with nothing changed — "the sync's calls" the plan's goal is measured against;
- `flickr edit plan --find media=photo --title '{date_taken:%Y-%m-%d} {title}' --privacy friends
  --license 4 --json` (three field groups: meta, perms, license): calls (goal ≤ the incremental
  sync's calls + 10) and wall time;
- `flickr edit apply JOB --yes`: calls (goal = the writes the plan lists, one per changed group
  per photo, + ⌈changed/500⌉ + 10), wall time, calls per second, and flickr's peak RSS (GNU
  time's, as /usr/bin/time -v reports it);
- `flickr edit undo --yes`: calls and wall time. There is no goal for an undo; the line
  holds it to apply's rule plus the one getInfo per photo its plan reads (documented: the undo
  looks at each photo it would put back).
Each line names the calls by method beyond the writes. `flickr` runs with XDG_DATA_HOME (and
XDG_STATE_HOME, XDG_CONFIG_HOME) in a temporary folder and the FLICKR_* variables from the
sandbox's banner. Usage: bench_edit.py --bin DIR [--photos P]"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_sandbox import Sandbox, generated_world, print_rows  # noqa: E402
from bench_library import calls_in  # noqa: E402

# The edit measured: three field groups (meta, perms, license) over the seed's photos (not its videos).
FIND = ["media=photo"]
CHANGES = ["--title", "{date_taken:%Y-%m-%d} {title}", "--privacy", "friends", "--license", "4"]

# The writes each group makes (EditField's one call per group).
WRITES = {"flickr.photos.setMeta", "flickr.photos.setDates", "flickr.photos.setPerms", "flickr.photos.licenses.setLicense",
          "flickr.photos.setSafetyLevel", "flickr.photos.setContentType", "flickr.photos.geo.setLocation",
          "flickr.photos.geo.removeLocation", "flickr.photosets.addPhoto", "flickr.photosets.removePhoto",
          "flickr.photosets.create", "flickr.photos.setTags"}


def run(cmd, env, tmp, name, ok=(0,), timeout=7200):
    """Runs `cmd` with its output in files (no pipe to fill) under GNU time, as `/usr/bin/time -v`
    measures it. Returns (wall seconds, stdout, peak RSS in KiB). (Not this process's wait4: a
    child forked from it starts with this process's memory counted in its ru_maxrss, which
    survives the exec — a benchmark that loaded a 100,000-photo world saw its own size there.)"""
    out_path, err_path = os.path.join(tmp, name + ".out"), os.path.join(tmp, name + ".err")
    rss_path = os.path.join(tmp, name + ".rss")
    with open(out_path, "w") as out, open(err_path, "w") as err:
        t = time.perf_counter()
        proc = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", rss_path] + cmd, env=env, stdout=out, stderr=err,
                                stdin=subprocess.DEVNULL)
        deadline = time.time() + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.time() > deadline:
                proc.kill()
                raise RuntimeError("%s did not end within %d s" % (" ".join(cmd[1:3]), timeout))
            time.sleep(0.01)
        wall = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    with open(out_path) as f:
        stdout = f.read()
    if proc.returncode not in ok:
        with open(err_path) as f:
            raise RuntimeError("%s exited %d: %s\n%s" % (" ".join(cmd[1:4]), proc.returncode, stdout[-2000:], f.read()[-2000:]))
    with open(rss_path) as f:
        # GNU time writes "Command exited with non-zero status N" first when it did.
        rss = int(f.read().split()[-1])
    return wall, stdout, rss


def by_method(calls):
    counts = {}
    for c in calls:
        counts[c["method"]] = counts.get(c["method"], 0) + 1
    return counts


def named(counts, calls=None):
    """`method n, …`; with `calls`, recentlyUpdated's runs (one conflict check paging through
    its answer: consecutive calls with no other between) are told apart: `(20 checks: 1,1,2,… pages)`."""
    text = []
    for m, n in sorted(counts.items()):
        text.append("%s %d" % (m.replace("flickr.", ""), n))
        if calls is not None and m == "flickr.photos.recentlyUpdated":
            runs, last = [], None
            for c in calls:
                if c["method"] == m:
                    if last == m:
                        runs[-1] += 1
                    else:
                        runs.append(1)
                last = c["method"]
            text[-1] += " (%d checks of %s pages)" % (len(runs), ",".join(map(str, runs)))
    return ", ".join(text) or "none"


def failed(calls):
    bad = [c for c in calls if c.get("stat") != "ok"]
    return "" if not bad else "; %d answered other than ok (%s)" % (len(bad), named(by_method(bad)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--photos", type=int, default=10_000)
    args, _ = ap.parse_known_args()
    flickr = os.path.join(args.bin, "flickr")
    rows = []
    with tempfile.TemporaryDirectory(prefix="flickr-bench-edit-") as tmp:
        data, log = os.path.join(tmp, "seed.json"), os.path.join(tmp, "access.log")
        world = generated_world(args.bin, data, args.photos)
        P = len(world["photos"])
        s = Sandbox(os.path.join(args.bin, "flickr-sandbox"), ["--data", data, "--log", log, "--latency", "0"])
        try:
            env = s.client_env(tmp)
            _, offset = calls_in(log, 0)

            # (1) The first sync, then an incremental one with nothing changed: the sync a plan makes.
            wall, out, _ = run([flickr, "sync", "--json"], env, tmp, "sync")
            summary = json.loads(out.strip().splitlines()[-1])
            assert summary["photos"] == P, summary
            calls, offset = calls_in(log, offset)
            rows.append(("edit: first sync of %d photos (%s)" % (P, named(by_method(calls))),
                         "%d calls, %.1f s" % (len(calls), wall), "for information", True))
            wall, out, _ = run([flickr, "sync", "--json"], env, tmp, "sync-again")
            sync_calls, offset = calls_in(log, offset)

            # (2) The plan: three groups over the library's photos.
            wall, out, rss = run([flickr, "edit", "plan", "--find"] + FIND + CHANGES + ["--json"], env, tmp, "plan", ok=(1,))
            plan = json.loads(out)
            calls, offset = calls_in(log, offset)
            job, changed = plan["job"], len(plan["photos"])
            per_field = {}
            for p in plan["photos"]:
                for c in p["changes"]:
                    per_field[c["field"]] = per_field.get(c["field"], 0) + 1
            writes = sum(per_field.values())
            assert changed and not plan["refused"], (changed, plan["refused"][:3])
            bound = len(sync_calls) + 10
            rows.append(("edit plan --find %s, 3 groups: %d photos to change of %d (%s)"
                         % (" ".join(FIND), changed, plan["enumerated"], ", ".join("%s %d" % kv for kv in sorted(per_field.items()))),
                         "%d calls (%s), %.2f s, peak RSS %.1f MiB" % (len(calls), named(by_method(calls)), wall, rss / 1024),
                         "goal ≤ the sync's calls + 10 = %d + 10 = %d" % (len(sync_calls), bound), len(calls) <= bound))

            # (3) Apply.
            wall, out, rss = run([flickr, "edit", "apply", job, "--yes"], env, tmp, "apply")
            calls, offset = calls_in(log, offset)
            assert "%d of %d photos done, 0 failed, 0 conflicts" % (changed, changed) in out, out[-2000:]
            counts = by_method(calls)
            sent = sum(n for m, n in counts.items() if m in WRITES)
            others = {m: n for m, n in counts.items() if m not in WRITES}
            bound = writes + math.ceil(changed / 500) + 10
            rows.append(("edit apply: %d photos, %d writes planned (%d sent), other calls: %s%s"
                         % (changed, writes, sent, named(others, calls), failed(calls)),
                         "%d calls, %.1f s, %.0f calls/s, peak RSS %.1f MiB" % (len(calls), wall, len(calls) / wall, rss / 1024),
                         "goal = writes + ⌈changed/500⌉ + 10 = %d + %d + 10 = %d" % (writes, math.ceil(changed / 500), bound),
                         len(calls) <= bound and sent == writes))

            # (4) Undo.
            wall, out, rss = run([flickr, "edit", "undo", "--yes"], env, tmp, "undo")
            calls, offset = calls_in(log, offset)
            counts = by_method(calls)
            sent = sum(n for m, n in counts.items() if m in WRITES)
            others = {m: n for m, n in counts.items() if m not in WRITES}
            assert "failed, 0 conflicts" in out and " 0 failed" in out, out[-2000:]
            bound = writes + changed + math.ceil(changed / 500) + 10
            # The undo's plan reads each photo; its run starts with the first conflict check.
            first = next((k for k, c in enumerate(calls) if c["method"] == "flickr.photos.recentlyUpdated"), len(calls))
            reads = (sum(1 for c in calls[:first] if c["method"] == "flickr.photos.getInfo"),
                     sum(1 for c in calls[first:] if c["method"] == "flickr.photos.getInfo"))
            rows.append(("edit undo: %d writes sent, other calls: %s (getInfo: %d by its plan, %d by its run)%s"
                         % (sent, named(others, calls), reads[0], reads[1], failed(calls)),
                         "%d calls, %.1f s, %.0f calls/s, peak RSS %.1f MiB" % (len(calls), wall, len(calls) / wall, rss / 1024),
                         "goal (apply's + one getInfo per photo) = %d + %d + %d + 10 = %d"
                         % (writes, changed, math.ceil(changed / 500), bound), len(calls) <= bound and sent == writes))
        finally:
            s.stop()
    print_rows(rows)


if __name__ == "__main__":
    main()
