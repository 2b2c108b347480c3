#!/usr/bin/env python3
"""The sandbox at Flickr's scale, a benchmark rather than a timed test:
a 100,000-photo --data seed (flickr-sandbox --photos's world; load time, goal < 5 s), a 500-per-page search over it (goal
< 50 ms), and what --state's durable commit costs per write (setTags, with and without
--state). Usage: bench_sandbox.py --bin DIR [--photos N]"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request


def generated_world(bin_dir, path, n, seed="bench", sets=None, videos=None):
    """The one seed generator (flickr-sandbox --photos N --write FILE, docs/SANDBOX.md): writes a
    world of `n` photos of alice's to `path` and returns it as JSON. The same arguments make the
    same file."""
    cmd = [os.path.join(bin_dir, "flickr-sandbox"), "--photos", str(n), "--seed", seed, "--write", path]
    if sets is not None:
        cmd += ["--sets", str(sets)]
    if videos is not None:
        cmd += ["--videos", str(videos)]
    subprocess.run(cmd, check=True, timeout=600)
    with open(path) as f:
        return json.load(f)


class Sandbox:
    """A flickr-sandbox process started with `args`, its url= … lines read (scripts/bench's one)."""
    def __init__(self, binary, args):
        t = time.perf_counter()
        self.proc = subprocess.Popen([binary, "--port", "0"] + args, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
        self.info = {}
        deadline = time.time() + 120
        while time.time() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("flickr-sandbox exited before 'ready'")
            line = line.strip()
            if line == "ready":
                break
            if "=" in line:
                k, v = line.split("=", 1)
                self.info[k] = v
        else:
            raise RuntimeError("flickr-sandbox did not become ready")
        self.ready_seconds = time.perf_counter() - t

    def get(self, params):
        q = urllib.parse.urlencode(dict(params, api_key=self.info["api_key"]))
        t = time.perf_counter()
        with urllib.request.urlopen(self.info["url"] + "/services/rest/?" + q, timeout=60) as r:
            body = r.read()
        return time.perf_counter() - t, body

    def creds(self):
        i = self.info
        return [i["url"], i["api_key"], i["api_secret"], i["oauth_token"], i["oauth_token_secret"]]

    def client_env(self, tmp):
        """The environment `flickr` runs in against this sandbox: its credentials from the banner,
        the XDG folders under `tmp`, no profile or budget of the user's."""
        i = self.info
        env = dict(os.environ, FLICKR_ENDPOINT=i["url"], FLICKR_API_KEY=i["api_key"], FLICKR_API_SECRET=i["api_secret"],
                   FLICKR_OAUTH_TOKEN=i["oauth_token"], FLICKR_OAUTH_TOKEN_SECRET=i["oauth_token_secret"],
                   XDG_DATA_HOME=os.path.join(tmp, "data"), XDG_STATE_HOME=os.path.join(tmp, "state"),
                   XDG_CONFIG_HOME=os.path.join(tmp, "config"))
        for k in ("FLICKR_PROFILE", "FLICKR_BUDGET"):
            env.pop(k, None)
        return env

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=60)


def print_rows(rows):
    """The benchmarks' table: name, figures, goal, MET or NOT MET, names aligned."""
    width = max(len(r[0]) for r in rows)
    for name, figures, verdict, ok in rows:
        print(f"{name:<{width}}  {figures}  →  {verdict}  {'MET' if ok else 'NOT MET'}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--photos", type=int, default=100_000)
    ap.add_argument("--writes", type=int, default=300)
    args, _ = ap.parse_known_args()
    sandbox_bin = os.path.join(args.bin, "flickr-sandbox")
    bench = os.path.join(args.bin, "flickr-bench")
    rows = []
    with tempfile.TemporaryDirectory(prefix="flickr-bench-sandbox-") as tmp:
        path = os.path.join(tmp, "seed.json")
        generated_world(args.bin, path, args.photos)
        mib = os.path.getsize(path) / (1 << 20)
        s = Sandbox(sandbox_bin, ["--data", path])
        try:
            rows.append(("sandbox: --data seed of %d photos (%.0f MiB) to ready" % (args.photos, mib),
                         "%.2f s" % s.ready_seconds, "goal < 5 s", s.ready_seconds < 5))
            times = []
            for page in range(1, 22):
                dt, body = s.get({"method": "flickr.photos.search", "user_id": "alice", "tags": "tram", "per_page": 500, "page": page})
                assert b'stat="ok"' in body and body.count(b"<photo ") == 500, body[:300]
                times.append(dt)
            med = statistics.median(times[1:]) * 1000
            rows.append(("sandbox: photos.search tags=tram, 500 per page, over %d photos (median of 20)" % args.photos,
                         "%.1f ms (max %.1f)" % (med, max(times[1:]) * 1000), "goal < 50 ms", med < 50))
            dt, body = s.get({"method": "flickr.photos.search", "user_id": "alice", "min_upload_date": "1420070400",
                              "max_upload_date": "1430070400", "per_page": 500})
            rows.append(("sandbox: photos.search with a date window over %d photos" % args.photos,
                         "%.1f ms" % (dt * 1000), "for information", True))
        finally:
            s.stop()
        # Cost of a durable write: the same sequential setTags with and without --state.
        per = {}
        for label, extra in (("memory", []), ("state", ["--state", os.path.join(tmp, "state")])):
            s = Sandbox(sandbox_bin, ["--data", path] + extra)
            try:
                if label == "state":
                    rows.append(("sandbox: first start with --state (seed written to SQLite)",
                                 "%.2f s" % s.ready_seconds, "for information", True))
                out = subprocess.run([bench, "writes"] + s.creds() + ["7000000000", str(args.writes)],
                                     check=True, capture_output=True, text=True, timeout=600).stdout
                per[label] = json.loads(out.strip().splitlines()[-1])["ms_per_write"]
            finally:
                s.stop()
        s = Sandbox(sandbox_bin, ["--state", os.path.join(tmp, "state")])
        try:
            rows.append(("sandbox: restart from --state with %d photos" % args.photos, "%.2f s" % s.ready_seconds,
                         "for information", True))
        finally:
            s.stop()
        rows.append(("sandbox: durable write (setTags ×%d, --state vs memory)" % args.writes,
                     "%.2f ms vs %.2f ms per write" % (per["state"], per["memory"]),
                     "cost %.2f ms per write" % (per["state"] - per["memory"]), True))
    width = max(len(r[0]) for r in rows)
    for name, figures, verdict, ok in rows:
        print(f"{name:<{width}}  {figures}  →  {verdict}  {'MET' if ok else 'NOT MET'}")


if __name__ == "__main__":
    main()
