#!/usr/bin/env python3
"""Orchestrates scripts/bench: each measurement runs in its own process so that peak RSS
belongs to one task. Prints a table of figures and ratios against the issue's goals."""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench_sandbox import Sandbox  # noqa: E402
PY = [sys.executable, os.path.join(HERE, "bench_python.py")]


def run_json(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=1800).stdout
    return json.loads(out.strip().splitlines()[-1])


def peak_rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            m = re.search(r"VmHWM:\s+(\d+)", f.read())
            return int(m.group(1)) if m else -1
    except OSError:
        return -1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--upload-gib", type=float, default=2.0)
    ap.add_argument("--calls", type=int, default=500)
    ap.add_argument("--runs", type=int, default=9)
    args = ap.parse_args()
    bench = os.path.join(args.bin, "flickr-bench")
    rows = []
    with tempfile.TemporaryDirectory(prefix="flickr-bench-") as tmp:
        # 1. XML mapping of a ~1 MB photo list vs xml.etree + dicts.
        xml = os.path.join(tmp, "photos.xml")
        subprocess.run(PY + ["gen", xml], check=True)
        swift = run_json([bench, "xml", xml, str(args.runs)])
        py = run_json(PY + ["xml", xml, str(args.runs)])
        ratio = py["best_ms"] / swift["best_ms"]
        rows.append(("XML → tree, 1.1 MB, 3000 photos (best of %d)" % args.runs,
                     "Swift %.1f ms vs Python ET+dict %.1f ms" % (swift["best_ms"], py["best_ms"]),
                     "%.2f× (goal ≥ 3×)" % ratio, ratio >= 3))

        sandbox = Sandbox(os.path.join(args.bin, "flickr-sandbox"), ["--state", os.path.join(tmp, "state")])
        try:
            # 2. Sequential calls per second vs python-flickrapi 2.4, same sandbox.
            sw = run_json([bench, "calls"] + sandbox.creds() + [str(args.calls)])
            pf = run_json(PY + ["calls"] + sandbox.creds() + [str(args.calls)])
            ratio = sw["per_second"] / pf["per_second"]
            rows.append(("sequential signed calls (flickr.test.echo ×%d)" % args.calls,
                         "Swift %.0f/s vs python-flickrapi %.0f/s" % (sw["per_second"], pf["per_second"]),
                         "%.2f× (goal ≥ 3×)" % ratio, ratio >= 3))
            # 3. Streamed upload of a large file.
            # A JPEG header and trailer around random bytes: the sandbox, like Flickr, refuses
            # files it does not recognise as images.
            big = os.path.join(tmp, "big.jpg")
            size = int(args.upload_gib * (1 << 30))
            with open(big, "wb") as f:
                f.write(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00")
                chunk = os.urandom(1 << 20)
                for _ in range(size >> 20):
                    f.write(chunk)
                f.write(b"\xff\xd9")
            up = run_json([bench, "upload"] + sandbox.creds() + [big])
            gibps = up["bytes"] / up["seconds"] / (1 << 30)
            rss_mib = up["peak_rss_kb"] / 1024
            rows.append(("upload %.1f GiB to the sandbox" % args.upload_gib,
                         "%.2f s, %.2f GiB/s; client peak RSS %.1f MiB; sandbox peak RSS %.1f MiB"
                         % (up["seconds"], gibps, rss_mib, peak_rss_kb(sandbox.proc.pid) / 1024),
                         "goal ≥ 1 GiB/s and ≤ 64 MiB", gibps >= 1 and rss_mib <= 64))
            # The same file to a receiver that discards the bytes: the client alone.
            sink = subprocess.Popen([sys.executable, os.path.join(HERE, "bench_sink.py"), "18765"],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                time.sleep(1)
                alone = run_json([bench, "upload", "http://127.0.0.1:18765", "k", "s", "t", "ts", big])
            finally:
                sink.terminate()
                sink.wait(timeout=10)
            rows.append(("  same file to a discarding receiver (Python)",
                         "%.2f s, %.2f GiB/s; client peak RSS %.1f MiB"
                         % (alone["seconds"], alone["bytes"] / alone["seconds"] / (1 << 30), alone["peak_rss_kb"] / 1024),
                         "the client alone", True))
            os.remove(big)

        finally:
            sandbox.stop()

    # 4. flickr.map overlapping calls: 32 getInfo, concurrency 8, the sandbox answering each after
    #    100 ms (ConcurrencyTests checks the overlap; the time is this row's).
    slow = Sandbox(os.path.join(args.bin, "flickr-sandbox"), ["--latency", "100"])
    try:
        i = slow.info
        env = dict(os.environ, FLICKR_ENDPOINT=i["url"], FLICKR_API_KEY=i["api_key"], FLICKR_API_SECRET=i["api_secret"],
                   FLICKR_OAUTH_TOKEN=i["oauth_token"], FLICKR_OAUTH_TOKEN_SECRET=i["oauth_token_secret"],
                   XDG_CONFIG_HOME=tempfile.gettempdir())
        best = float("inf")
        for _ in range(args.runs):
            t = time.perf_counter()
            subprocess.run([os.path.join(args.bin, "flickr"), "-e",
                            "local ids = {} "
                            "for i, p in ipairs(flickr.photos.search{ user_id = 'me', per_page = 32 }.photos.photo) do ids[i] = p.id end "
                            "assert(#ids == 32) "
                            "flickr.map(ids, function(id) return flickr.photos.getInfo{ photo_id = id } end, { concurrency = 8 })"],
                           check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            best = min(best, time.perf_counter() - t)
    finally:
        slow.stop()
    rows.append(("flickr.map, 32 getInfo at concurrency 8, 100 ms latency (best of %d)" % args.runs,
                 "%.0f ms including start-up and one search (sequential ≥ 3,300 ms)" % (best * 1000),
                 "goal ≤ 1,200 ms", best <= 1.2))

    # 5. Start-up: `flickr -e ''` against `python3 -c 'import flickrapi'`, best of N each.
    def best_wall(cmd, n):
        best = float("inf")
        for _ in range(n):
            t = time.perf_counter()
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           env=dict(os.environ, FLICKR_API_KEY="", XDG_CONFIG_HOME=tempfile.gettempdir()))
            best = min(best, time.perf_counter() - t)
        return best
    ours = best_wall([os.path.join(args.bin, "flickr"), "-e", ""], args.runs)
    theirs = best_wall([sys.executable, "-c", "import flickrapi"], args.runs)
    rows.append(("start-up (best of %d)" % args.runs,
                 "flickr -e '' %.1f ms vs python3 -c 'import flickrapi' %.1f ms" % (ours * 1000, theirs * 1000),
                 "1/%.1f (goal ≤ 1/5)" % (theirs / ours), theirs / ours >= 5))

    width = max(len(r[0]) for r in rows)
    for name, figures, verdict, ok in rows:
        print(f"{name:<{width}}  {figures}  →  {verdict}  {'MET' if ok else 'NOT MET'}")


if __name__ == "__main__":
    main()
