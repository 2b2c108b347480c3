#!/usr/bin/env python3
"""The `flickr` module in Debian's lua5.4, a benchmark rather than a timed test: the
release libflickr-lua.so (what scripts/install puts in lib/lua/5.4/flickr.so) loaded by
/usr/bin/lua5.4 through LUA_CPATH, making 10,000 signed calls (flickr.test.echo) against a
release flickr-sandbox with the FLICKR_* variables of its banner; lua/tests/module_calls.lua
reads VmRSS after a full collection at every 1,000th call. Rows:
- lua5.4: wall time, calls per second, RSS at 1,000 and at 10,000 calls and the growth between
  them (goal < 2 MiB: the answers of 9,000 calls, at a few hundred bytes each, would be
  several MiB if they were kept; LuaModuleTests holds the debug build to the same bound);
- the same script run by the `flickr` command, for comparison (not a goal).
Usage: bench_lua_module.py --bin DIR [--calls N]"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(ROOT, "lua", "tests", "module_calls.lua")
sys.path.insert(0, HERE)
from bench_sandbox import Sandbox  # noqa: E402

GOAL_KIB = 2048


def measure(cmd, env, calls):
    t = time.perf_counter()
    out = subprocess.run(cmd + [SCRIPT, str(calls)], env=env, check=True, capture_output=True, text=True,
                         timeout=1800).stdout
    wall = time.perf_counter() - t
    line = out.strip().splitlines()[-1]
    fields = dict(part.split("=", 1) for part in line.split())
    marks = [int(k) for k in fields["rss_kib"].split(",")]
    return wall, marks


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--calls", type=int, default=10_000)
    args, _ = ap.parse_known_args()
    calls = max(1000, args.calls - args.calls % 1000)
    library = os.path.join(args.bin, "libflickr-lua.so")
    rows = []
    with tempfile.TemporaryDirectory(prefix="flickr-bench-module-") as tmp:
        os.symlink(library, os.path.join(tmp, "flickr.so"))
        s = Sandbox(os.path.join(args.bin, "flickr-sandbox"), ["--latency", "0"])
        try:
            url, key, secret, token, token_secret = s.creds()
            env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": tmp, "XDG_CONFIG_HOME": tmp + "/config",
                   "XDG_STATE_HOME": tmp + "/state", "XDG_DATA_HOME": tmp + "/data", "LUA_CPATH": tmp + "/?.so",
                   "FLICKR_ENDPOINT": url, "FLICKR_API_KEY": key, "FLICKR_API_SECRET": secret,
                   "FLICKR_OAUTH_TOKEN": token, "FLICKR_OAUTH_TOKEN_SECRET": token_secret}
            for label, cmd in (("lua5.4 + flickr.so", ["/usr/bin/lua5.4"]),
                               ("flickr (the command), same script", [os.path.join(args.bin, "flickr")])):
                wall, marks = measure(cmd, env, calls)
                growth = marks[-1] - marks[0]
                figures = "%.1f s, %.0f calls/s, RSS %.1f MiB at 1,000 calls, %.1f MiB at %d: %+d KiB" % (
                    wall, calls / wall, marks[0] / 1024, marks[-1] / 1024, calls, growth)
                if cmd[0].endswith("lua5.4"):
                    rows.append(("%s: %d flickr.test.echo calls" % (label, calls), figures,
                                 "goal: growth from 1,000 to %d calls < %d KiB" % (calls, GOAL_KIB), growth < GOAL_KIB))
                else:
                    rows.append(("%s: %d calls" % (label, calls), figures, "for comparison", None))
        finally:
            s.stop()
    width = max(len(r[0]) for r in rows)
    for name, figures, verdict, ok in rows:
        mark = "" if ok is None else ("  MET" if ok else "  NOT MET")
        print(f"{name:<{width}}  {figures}  →  {verdict}{mark}")


if __name__ == "__main__":
    main()
