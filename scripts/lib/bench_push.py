#!/usr/bin/env python3
"""`flickr push`, a benchmark rather than a timed test, against a release flickr-sandbox
(`--latency 0`): N small JPEGs (default 30,000, distinct bytes) are pushed once (`--sets none`);
then a plan with nothing changed is timed and its calls counted — goal: no file read, ≤ 5 calls,
≤ 10 s. Hashing: a first plan of new, larger files (default 40 × 25 MiB) is timed beside
`sha256sum` over the same files (each figure MB/s of the files' bytes; the plan's wall time
includes its walk, its metadata reads and the library's writes, so it is a lower bound of the
hashing speed). Usage: bench_push.py --bin DIR [--files 30000] [--big 40] [--big-mib 25]"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_sandbox import Sandbox, print_rows  # noqa: E402
from bench_edit import run  # noqa: E402


def small_tree(root, n):
    from PIL import Image
    for i in range(n):
        folder = os.path.join(root, "%03d" % (i // 1000))
        os.makedirs(folder, exist_ok=True)
        Image.new("RGB", (8, 8), ((i * 37) % 256, (i * 91) % 256, 128)).save(
            os.path.join(folder, "p%05d.jpg" % i), quality=90, comment=b"bench %d" % i)


def big_tree(root, n, mib):
    os.makedirs(root, exist_ok=True)
    head = bytes.fromhex("ffd8ffe000104a46494600010100000100010000")  # a JPEG's first bytes (JFIF)
    for i in range(n):
        with open(os.path.join(root, "big%03d.jpg" % i), "wb") as f:
            f.write(head)
            f.write(os.urandom(mib << 20))


def calls(out):
    m = re.search(r"(\d+) calls? to plan", out)
    return int(m.group(1)) if m else -1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--files", type=int, default=30_000)
    ap.add_argument("--big", type=int, default=40)
    ap.add_argument("--big-mib", type=int, default=25)
    args, _ = ap.parse_known_args()
    flickr = os.path.join(args.bin, "flickr")
    rows = []
    with tempfile.TemporaryDirectory(prefix="flickr-bench-push-") as tmp:
        s = Sandbox(os.path.join(args.bin, "flickr-sandbox"), ["--latency", "0"])
        try:
            env = s.client_env(tmp)
            photos = os.path.join(tmp, "photos")
            small_tree(photos, args.files)
            wall, out, _ = run([flickr, "push", "plan", photos, "--sets", "none"], env, tmp, "plan1", ok=(1,))
            rows.append(("first plan of %d new files" % args.files, "%.1f s, %d calls" % (wall, calls(out)), "(reads every file)", True))
            wall, out, _ = run([flickr, "push", "apply", "last", "--yes"], env, tmp, "apply")
            rows.append(("apply: %d uploads" % args.files, "%.1f s" % wall, "(one upload per file)", True))
            # A sync reads again what changed in the 300 s before the previous sync began (its margin
            # for clocks that disagree): the sync before the timed plan begins once the uploads are
            # older than that, as a push run the next day finds them.
            time.sleep(305)
            run([flickr, "push", "plan", photos, "--sets", "none"], env, tmp, "plan2")  # its sync reads the uploads
            wall, out, _ = run([flickr, "push", "plan", photos, "--sets", "none"], env, tmp, "plan3")
            hashed = re.search(r"(\d+) files? hashed", out)
            ok = wall <= 10 and 0 <= calls(out) <= 5 and hashed and hashed.group(1) == "0"
            rows.append(("plan of %d files already pushed, unchanged" % args.files,
                         "%.2f s, %d calls, %s files read" % (wall, calls(out), hashed.group(1) if hashed else "?"),
                         "goal ≤ 10 s, ≤ 5 calls, none read", ok))
            big = os.path.join(tmp, "big")
            big_tree(big, args.big, args.big_mib)
            total = args.big * (args.big_mib << 20)
            subprocess.run(["sync"], check=False)
            wall, out, _ = run([flickr, "push", "plan", big, "--sets", "none"], env, tmp, "plan-big", ok=(1,))
            t = time.perf_counter()
            subprocess.run(["sha256sum"] + [os.path.join(big, f) for f in sorted(os.listdir(big))], stdout=subprocess.DEVNULL, check=True)
            reference = time.perf_counter() - t
            # The plan says how long its hashing took (the rest of its wall time is the walk, the
            # sync and the metadata reads).
            m = re.search(r"hashed \([^)]* in ([0-9.]+) s", out)
            hashing = float(m.group(1)) if m else wall
            rows.append(("hashing %d files, %d MiB" % (args.big, total >> 20),
                         "push plan hashing %.0f MB/s (whole plan %.0f MB/s), sha256sum %.0f MB/s"
                         % (total / hashing / 1e6, total / wall / 1e6, total / reference / 1e6),
                         "goal: the disk's speed (sha256sum's)", hashing <= reference * 1.1))
        finally:
            s.stop()
    print_rows(rows)


if __name__ == "__main__":
    main()
