#!/usr/bin/env python3
"""Runs `flickr ARGS…` on an 80×24 pseudo-terminal, as a terminal emulator (pyte) shows it, and
checks the upload progress line a person sees:

    progress_pty.py FLICKR ARGS…

- after the first `uploading` frame the process is stopped (SIGSTOP), the window narrowed to
  60 columns (the kernel's SIGWINCH included) and the process continued (SIGCONT);
- it must exit 0 with a frame at 100 %;
- every frame drawn after the resize fits in 59 columns (a line as wide as the window wraps;
  what was written before the stop is read before the resize), but the first, which may have
  been laid out before the stop and written after it;
- at most 4 rows showing `uploading` are left in the scrollback and the screen (the frames
  redraw in place; a frame already on its way when the window narrowed may wrap once).

Prints `rows=N frames=N` and exits 0, or prints FAIL with the screen and exits 1.
"""
import os
import re
import signal
import sys
import time

import pexpect
import pyte

TIMEOUT = 120
ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def main():
    flickr, args = sys.argv[1], sys.argv[2:]
    screen = pyte.HistoryScreen(80, 24, history=10000)
    stream = pyte.ByteStream(screen)
    env = dict(os.environ, TERM="xterm")
    child = pexpect.spawn(flickr, args, env=env, timeout=TIMEOUT, dimensions=(24, 80))
    before = bytearray()   # what was drawn before the resize
    after = bytearray()    # and after it

    def pump(into, until=None):
        """Reads the child's output into `into` and the screen until `until` is in `into` (or EOF)."""
        while until is None or until not in into:
            try:
                data = child.read_nonblocking(65536, timeout=TIMEOUT)
            except pexpect.EOF:
                return False
            into += data
            stream.feed(data)
        return True

    if not pump(before, b"uploading"):
        fail(screen, "no progress frame before the end")
    os.kill(child.pid, signal.SIGSTOP)
    stopped(child.pid)
    drain(child, before, stream)        # frames written before the stop belong to the old width
    child.setwinsize(24, 60)            # the kernel sends SIGWINCH; it waits while stopped
    screen.resize(24, 60)
    os.kill(child.pid, signal.SIGCONT)
    pump(after)
    child.close()
    if child.exitstatus != 0:
        fail(screen, f"exit status {child.exitstatus}, signal {child.signalstatus}")

    text = after.decode("utf-8", "replace")
    frames = [ESCAPES.sub("", f) for f in re.split(r"[\r\n]", text) if "uploading" in f]
    if not frames or not any("100%" in f for f in frames):
        fail(screen, f"no frame at 100% after the resize: {frames[-3:]!r}")
    # The stop can land between laying a frame out and writing it: that one frame, the first
    # written after the resize, may still have the old width; every later one fits.
    wide = [f for f in frames[1:] if len(f) > 59] + [f for f in frames[:1] if len(f) > 79]
    if wide:
        fail(screen, f"{len(wide)} frames wider than 59 columns after the resize: {wide[:3]!r}")
    rows = [line for line in all_rows(screen) if "uploading" in line]
    if len(rows) > 4:
        fail(screen, f"{len(rows)} rows show 'uploading'")
    print(f"rows={len(rows)} frames={len(frames)}")


def stopped(pid):
    """Returns once the kernel shows the process stopped (state T), within the time limit."""
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        with open(f"/proc/{pid}/stat") as f:
            if f.read().rsplit(")", 1)[1].split()[0] == "T":
                return
        time.sleep(0.005)
    raise SystemExit("FAIL: the process did not stop on SIGSTOP")


def drain(child, into, stream):
    """Reads what the (stopped) child has written and is waiting in the terminal."""
    while True:
        try:
            data = child.read_nonblocking(65536, timeout=0)
        except (pexpect.TIMEOUT, pexpect.EOF):
            return
        into += data
        stream.feed(data)


def all_rows(screen):
    """Every row of the scrollback and the screen, as text."""
    def text(line):
        return "".join(line[x].data for x in sorted(line.keys())) if isinstance(line, dict) else str(line)
    return [text(l) for l in screen.history.top] + list(screen.display) + [text(l) for l in screen.history.bottom]


def fail(screen, why):
    print("FAIL: " + why)
    print("\n".join(r.rstrip() for r in all_rows(screen) if r.strip()))
    sys.exit(1)


if __name__ == "__main__":
    main()
