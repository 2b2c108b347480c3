#!/usr/bin/env python3
"""Peak memory of a plan, a benchmark rather than a timed test: a plan streams (photos read,
planned and written to the job database in batches), so its peak resident set stays ≤ 128 MiB
at any library size. For each size P (default 30,000 and 100,000), against a release
flickr-sandbox (`--latency 0`) seeded with P photos of one user (the one seed generator) and a
library brought up to date by `flickr sync`, it runs, each as its own process, and reports the
process's maximum resident set size as `/usr/bin/time -v` prints it ("Maximum resident set size",
GNU time's %M; bench_edit.run):
- `flickr edit plan --find taken=..2030 --title '{date_taken:%Y-%m-%d} {title}' --shift-taken +9h
  --privacy friends,family --license by-sa --geo 64.1466,-21.9426,11 --add-to-set Iceland
  --create-set` (six field groups over every photo; the diff on stdout, to a file);
- `flickr retag plan --add sky` (a tag added to every photo, read from the
  library).
Goal: ≤ 128 MiB each, at each size. Usage: bench_plan_memory.py --bin DIR [--photos 30000,100000]"""
import argparse
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_sandbox import Sandbox, generated_world, print_rows  # noqa: E402
from bench_edit import run  # noqa: E402

GOAL_MIB = 128
EDIT = ["edit", "plan", "--find", "taken=..2030", "--title", "{date_taken:%Y-%m-%d} {title}", "--shift-taken", "+9h",
        "--privacy", "friends,family", "--license", "by-sa", "--geo", "64.1466,-21.9426,11", "--add-to-set", "Iceland",
        "--create-set"]
RETAG = ["retag", "plan", "--add", "sky"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--photos", default="30000,100000")
    args, _ = ap.parse_known_args()
    flickr = os.path.join(args.bin, "flickr")
    rows = []
    for P in [int(n) for n in args.photos.split(",")]:
        with tempfile.TemporaryDirectory(prefix="flickr-bench-plan-") as tmp:
            data = os.path.join(tmp, "seed.json")
            world = generated_world(args.bin, data, P)
            s = Sandbox(os.path.join(args.bin, "flickr-sandbox"), ["--data", data, "--latency", "0"])
            try:
                env = s.client_env(tmp)
                _, out, _ = run([flickr, "sync", "--json"], env, tmp, "sync")
                assert json.loads(out.strip().splitlines()[-1])["photos"] == len(world["photos"])
                for name, cmd in (("edit plan, six groups", EDIT), ("retag plan --add sky", RETAG)):
                    wall, out, rss = run([flickr] + cmd, env, tmp, name.split()[0], ok=(1,))
                    photos = out.count("\nphoto ") + out.startswith("photo ")
                    mib = rss / 1024
                    rows.append(("%s over %d photos (%d in the diff)" % (name, P, photos),
                                 "peak RSS %.1f MiB, %.1f s" % (mib, wall), "goal ≤ %d MiB" % GOAL_MIB, mib <= GOAL_MIB))
            finally:
                s.stop()
    print_rows(rows)


if __name__ == "__main__":
    main()
