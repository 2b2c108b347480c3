#!/usr/bin/env python3
"""Retag jobs at scale, a benchmark rather than a timed test: a rename over N photos
among P, plan and apply, against a release flickr-sandbox on loopback (no budget: unpaced).
Reports the calls against the goal ⌈P/500⌉ + 2N + a small constant, wall times, the journal's
cost per photo (apply time per photo minus the cost of one bare write), and the plan's peak RSS
over 100,000 photos (goal ≤ 100 MiB). Usage: bench_jobs.py --bin DIR [--photos P] [--big P]"""
import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_sandbox import Sandbox, generated_world  # noqa: E402


def flickr(binary, args, env, measure_rss=False):
    t = time.perf_counter()
    if measure_rss:
        wrapper = ("import resource,subprocess,sys;r=subprocess.run(sys.argv[1:],capture_output=True,text=True);"
                   "print(json.dumps({'rc':r.returncode,'out':r.stdout,'err':r.stderr,"
                   "'rss_kb':resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))")
        out = subprocess.run([sys.executable, "-c", "import json;" + wrapper, binary] + args, env=env,
                             capture_output=True, text=True, timeout=7200).stdout
        r = json.loads(out)
        return time.perf_counter() - t, r["rc"], r["out"], r["err"], r["rss_kb"]
    r = subprocess.run([binary] + args, env=env, capture_output=True, text=True, timeout=7200)
    return time.perf_counter() - t, r.returncode, r.stdout, r.stderr, None


def job_calls(binary, env, job):
    out = subprocess.run([binary, "jobs", "--json"], env=env, capture_output=True, text=True, timeout=60).stdout
    return next(j for j in json.loads(out) if j["id"] == job)


def run(args, tmp, photos, rows, measure_rss=False):
    path = os.path.join(tmp, "seed-%d.json" % photos)
    generated_world(args.bin, path, photos)
    s = Sandbox(os.path.join(args.bin, "flickr-sandbox"), ["--data", path])
    try:
        i = s.info
        env = dict(os.environ, FLICKR_ENDPOINT=i["url"], FLICKR_API_KEY=i["api_key"], FLICKR_API_SECRET=i["api_secret"],
                   FLICKR_OAUTH_TOKEN=i["oauth_token"], FLICKR_OAUTH_TOKEN_SECRET=i["oauth_token_secret"],
                   XDG_STATE_HOME=os.path.join(tmp, "state-%d" % photos), XDG_CONFIG_HOME=os.path.join(tmp, "config"))
        flickr_bin = os.path.join(args.bin, "flickr")
        wall, rc, out, err, rss = flickr(flickr_bin, ["retag", "plan", "--rename", "tram", "Tram"], env, measure_rss)
        assert rc == 1, err
        job = next(l.split()[1].rstrip(":") for l in out.splitlines() if l.startswith("job "))
        planned = job_calls(flickr_bin, env, job)
        n = planned["photos"]
        label = "%d photos, %d to rename" % (photos, n)
        if measure_rss:
            rows.append(("retag plan over " + label, "%.1f s, %d calls, peak RSS %.1f MiB" % (wall, planned["calls"], rss / 1024),
                         "goal ≤ 100 MiB", rss / 1024 <= 100))
            return
        wall_apply, rc, out, err, _ = flickr(flickr_bin, ["retag", "apply", job, "--yes"], env)
        assert rc == 0, out + err
        applied = job_calls(flickr_bin, env, job)
        total = applied["calls"]
        bound = math.ceil(photos / 500) + 2 * n
        rows.append(("retag plan + apply, " + label,
                     "plan %.1f s, apply %.1f s; %d calls (plan %d)" % (wall, wall_apply, total, planned["calls"]),
                     "goal ≤ ⌈P/500⌉+2N+c = %d+c (c = %d)" % (bound, total - bound), total - bound <= 10))
        bare = subprocess.run([os.path.join(args.bin, "flickr-bench"), "writes"] + s.creds() + [str(7_000_000_000), "300"],
                              capture_output=True, text=True, timeout=600).stdout
        per_write = json.loads(bare.strip().splitlines()[-1])["ms_per_write"]
        per_photo = wall_apply * 1000 / max(1, n)
        rows.append(("  journal cost per photo (apply per photo − one bare setTags)",
                     "%.2f ms − %.2f ms = %.2f ms" % (per_photo, per_write, per_photo - per_write), "for information", True))
    finally:
        s.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--photos", type=int, default=10_000)
    ap.add_argument("--big", type=int, default=100_000)
    args, _ = ap.parse_known_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="flickr-bench-jobs-") as tmp:
        run(args, tmp, args.photos, rows)
        run(args, tmp, args.big, rows, measure_rss=True)
    width = max(len(r[0]) for r in rows)
    for name, figures, verdict, ok in rows:
        print(f"{name:<{width}}  {figures}  →  {verdict}  {'MET' if ok else 'NOT MET'}")


if __name__ == "__main__":
    main()
