#!/usr/bin/env python3
"""What one durable write costs as the library grows: the median time of a
flickr.photos.setTags with --state against a world of 1,000 photos and one of 100,000, and their
ratio against the goal ≤ 2× — --state writes what a call changed, so a write's cost must not grow
with the library. The worlds are flickr-sandbox --photos's, with what grows with a library: a
set per 100 photos and a favourite per 10 photos.
Usage: bench_sandbox_state.py --bin DIR [--writes N] [--small N] [--large N]"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_sandbox import Sandbox, generated_world  # noqa: E402


def median_set_tags(sandbox_bin, bench, tmp, photos, writes):
    """Starts a sandbox on a fresh --state of `photos` photos (the generated world, with a set
    per 100 photos); the median setTags in ms."""
    data = os.path.join(tmp, "seed-%d.json" % photos)
    world = generated_world(os.path.dirname(sandbox_bin), data, photos, sets=max(1, photos // 100))
    sets, faves = len(world.get("photosets", [])), len(world.get("favorites", []))
    s = Sandbox(sandbox_bin, ["--data", data, "--state", os.path.join(tmp, "state-%d" % photos)])
    try:
        out = subprocess.run([bench, "writes"] + s.creds() + ["7000000000", str(writes)],
                             check=True, capture_output=True, text=True, timeout=1200).stdout
        result = json.loads(out.strip().splitlines()[-1])
        return result["median_ms"], result["ms_per_write"], s.ready_seconds, sets, faves
    finally:
        s.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--writes", type=int, default=300)
    ap.add_argument("--small", type=int, default=1_000)
    ap.add_argument("--large", type=int, default=100_000)
    args, _ = ap.parse_known_args()
    sandbox_bin = os.path.join(args.bin, "flickr-sandbox")
    bench = os.path.join(args.bin, "flickr-bench")
    rows = []
    with tempfile.TemporaryDirectory(prefix="flickr-bench-state-") as tmp:
        figures = {}
        for n in (args.small, args.large):
            med, mean, ready, sets, faves = median_set_tags(sandbox_bin, bench, tmp, n, args.writes)
            figures[n] = med
            rows.append(("sandbox --state: setTags at %d photos, %d sets, %d faves (median of %d; first start %.2f s)"
                         % (n, sets, faves, args.writes, ready),
                         "%.2f ms (mean %.2f)" % (med, mean), "for information", True))
        ratio = figures[args.large] / figures[args.small]
        rows.append(("sandbox --state: setTags at %d vs %d photos" % (args.large, args.small),
                     "%.2f×" % ratio, "goal ≤ 2×", ratio <= 2))
    width = max(len(r[0]) for r in rows)
    for name, fig, verdict, ok in rows:
        print(f"{name:<{width}}  {fig}  →  {verdict}  {'MET' if ok else 'NOT MET'}")


if __name__ == "__main__":
    main()
