#!/usr/bin/env python3
"""scripts/bench --soak: 50,000 reads through `flickr` against a separate flickr-sandbox that
injects 5 % of every fault kind (5xx, 429, reset, truncated body, HTML page, 105; 106 applies
to writes only, so reads never see it). Goals: every read succeeds (retries), the client's RSS
grows by at most 1 MiB after warm-up, its open file descriptors do not grow, the sandbox's RSS
stays bounded. The sandbox runs with --clock-skew 30 (OAuth servers commonly allow 300 s): it
remembers a nonce until its timestamp would be refused, so with a 30 s skew its nonce memory
fills within the first minute and must then level off, which the run is long enough to show
(with the default, the 50,000 reads end before the first nonce is forgotten).
The client prints a line per batch; this script samples both processes then.
RSS is sampled after a full Lua collection, with the batch's answers dropped, so it shows what
is kept, not what awaits the GC, and while the client waits for the sampler, so that no next
batch is in flight. Open descriptors are counted apart: sockets (the connection
pool's, which faults open and close) and the rest (which must not grow)."""
import argparse
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench_sandbox import Sandbox  # noqa: E402

SCRIPT = r"""
local total, batch = tonumber(arg[1]), tonumber(arg[2])
flickr.configure{ retries = 14, timeout = 10 }
local ids = {}
for i = 1, batch do ids[i] = i end
local done = 0
while done < total do
  local results = flickr.map(ids, function(i) return flickr.test.echo{ i = i, batch = done } end, { concurrency = 64 })
  for i = 1, batch do assert(results[i].i._text == tostring(i), "read " .. i .. " of batch " .. done) end
  done = done + batch
  -- Dropped before the collection: otherwise this batch's 5,000 answers are still alive while
  -- the next batch builds its own, and the allocator's high-water mark holds two batches.
  results = nil
  collectgarbage()
  io.write("done ", done, "\n")
  io.flush()
  -- Wait until the sampler has read RSS and descriptors: otherwise the next batch is already
  -- under way when it looks, and its answers in flight count as growth.
  io.read("l")
end
"""


def rss_kib(pid, field="VmRSS"):
    """A size from /proc/PID/status in KiB: VmRSS (the goal's figure), or RssAnon (the process's
    own memory, without the pages of its executable it has read)."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return -1


def fds(pid):
    """(sockets, other descriptors) open in `pid`. Sockets come and go with the connection pool
    (AsyncHTTPClient keeps up to 8 per host; faults reset some); the others — files, pipes, the
    event loops' epoll and eventfd descriptors — must stay constant."""
    sockets = other = 0
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            target = os.readlink("/proc/%d/fd/%s" % (pid, fd))
        except OSError:
            continue
        if target.startswith("socket:"):
            sockets += 1
        else:
            other += 1
    return sockets, other


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--soak-calls", type=int, default=50_000)
    ap.add_argument("--batch", type=int, default=5_000)
    ap.add_argument("--clock-skew", type=int, default=30)
    args, _ = ap.parse_known_args()
    faults = "5xx=0.05,429=0.05,reset=0.05,truncate=0.05,html=0.05,105=0.05,106=0.05"
    sandbox = Sandbox(os.path.join(args.bin, "flickr-sandbox"),
                      ["--faults", faults, "--clock-skew", str(args.clock_skew)])
    try:
        i = sandbox.info
        with tempfile.TemporaryDirectory(prefix="flickr-soak-") as tmp:
            script = os.path.join(tmp, "soak.lua")
            with open(script, "w") as f:
                f.write(SCRIPT)
            env = dict(os.environ, FLICKR_ENDPOINT=i["url"], FLICKR_API_KEY=i["api_key"], FLICKR_API_SECRET=i["api_secret"],
                       FLICKR_OAUTH_TOKEN=i["oauth_token"], FLICKR_OAUTH_TOKEN_SECRET=i["oauth_token_secret"],
                       HOME=tmp, XDG_CONFIG_HOME=tmp, XDG_STATE_HOME=tmp)
            start = time.perf_counter()
            proc = subprocess.Popen([os.path.join(args.bin, "flickr"), script, str(args.soak_calls), str(args.batch)],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
            samples = []
            for line in proc.stdout:
                if line.startswith("done "):
                    sockets, other = fds(proc.pid)
                    samples.append((int(line.split()[1]), rss_kib(proc.pid), other, rss_kib(sandbox.proc.pid), sockets,
                                    rss_kib(proc.pid, "RssAnon"), time.perf_counter() - start))
                    proc.stdin.write("\n")  # the client waits for this before its next batch
                    proc.stdin.flush()
            err = proc.stderr.read()
            status = proc.wait(timeout=3600)
            seconds = time.perf_counter() - start
    finally:
        sandbox.stop()
    if status != 0 or not samples or samples[-1][0] < args.soak_calls:
        print("soak: the client failed (status %d): %s" % (status, err[-2000:]))
        sys.exit(1)
    warm = next((s for s in samples if s[0] >= args.soak_calls // 10), samples[0])
    last = samples[-1]
    after = [s for s in samples if s[0] >= warm[0]]  # the samples from warm-up on
    growth_kib = max(s[1] for s in after) - warm[1]
    fd_growth = max(s[2] for s in after) - warm[2]
    max_sockets = max(s[4] for s in samples)
    # The trend: least-squares slope of RSS over reads after warm-up. A leak shows as a steady
    # positive slope; allocator fragmentation as samples scattered about a flat line.
    mean_x = sum(s[0] for s in after) / len(after)
    mean_y = sum(s[1] for s in after) / len(after)
    spread = sum((s[0] - mean_x) ** 2 for s in after)
    slope = sum((s[0] - mean_x) * (s[1] - mean_y) for s in after) / spread if spread else 0.0
    sandbox_peak = max(s[3] for s in samples)
    # The sandbox forgets a nonce at most 2 × skew after it arrived: from the first sample past
    # that (and past the client's warm-up) on, its memory holds a window's worth and must not grow.
    settled = next((s for s in samples if s[6] >= 2 * args.clock_skew and s[0] >= warm[0]), None)
    if settled is None:
        sandbox_row = ("  sandbox RSS once its nonce window is full", "no sample came %d s into the run" % (2 * args.clock_skew), False)
    else:
        sandbox_growth = max(s[3] for s in samples if s[0] >= settled[0]) - settled[3]
        sandbox_row = ("  sandbox RSS once its nonce window is full (%.0f s in)" % settled[6],
                       "%.1f → %.1f MiB, growth %.2f MiB (goal: bounded, ≤ 1 MiB); first sample %.1f MiB, peak %.1f MiB"
                       % (settled[3] / 1024, last[3] / 1024, sandbox_growth / 1024, samples[0][3] / 1024, sandbox_peak / 1024),
                       sandbox_growth <= 1024)
    rows = [
        ("soak: %d reads, 5 %% of each fault kind" % last[0], "%.0f s, %.0f reads/s, all succeeded" % (seconds, last[0] / seconds), True),
        ("  client RSS after warm-up (%d reads)" % warm[0],
         "%.1f → %.1f MiB, growth %.2f MiB (goal ≤ 1 MiB)" % (warm[1] / 1024, last[1] / 1024, growth_kib / 1024), growth_kib <= 1024),
        ("  client RSS trend after warm-up", "%+.0f KiB per 10,000 reads (least squares over %d samples); samples span %.2f MiB"
         % (slope * 10_000, len(after), (max(s[1] for s in after) - min(s[1] for s in after)) / 1024), None),
        ("  client RssAnon (RSS without the executable's pages)", "%.1f → %.1f MiB, most %.1f MiB"
         % (warm[5] / 1024, last[5] / 1024, max(s[5] for s in after) / 1024), None),
        ("  client descriptors other than sockets", "%d → %d, most %d (goal: no growth)"
         % (warm[2], last[2], warm[2] + fd_growth), fd_growth <= 0),
        ("  client sockets (the connection pool)", "at most %d at a batch's end (the pool keeps up to 8)" % max_sockets,
         max_sockets <= 8),
        sandbox_row,
    ]
    width = max(len(r[0]) for r in rows)
    for name, figures, ok in rows:
        verdict = "" if ok is None else ("  →  MET" if ok else "  →  NOT MET")
        print(f"{name:<{width}}  {figures}{verdict}")
    print("samples (reads, client RSS KiB, client non-socket fds, sandbox RSS KiB, client sockets, client RssAnon KiB, seconds): "
          + " ".join("%d/%d/%d/%d/%d/%d/%.0f" % s for s in samples))


if __name__ == "__main__":
    main()
