#!/usr/bin/env python3
"""A minimal loopback Flickr for scripts/bench, so that the figures are the clients' own cost and
not a server's: bench_sink.c, compiled here with the C compiler (cc, or the Swift toolchain's
clang) into a temporary folder and run as a process of its own. It checks nothing (no signature,
key or token) and answers from bodies made once — the 500-photo search page in XML and JSON is
made here (bench_python.py's generator, the pages the Python side also parses) and handed over in
files; what it answers to which request is described at the top of bench_sink.c.

A Python server (http.server-free, parsing by hand) did this before and cost 60-70 us of CPU a
call, which was in every per-call figure of both clients; the C one costs a few microseconds
besides the kernel's socket work.

From Python: `with Sink() as sink: sink.url` (it waits for the port line the server prints).
Alone: bench_sink.py [PORT] compiles and runs it in the foreground (default 0: any free port)."""
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_python import photo_list_json, photo_list_xml  # noqa: E402

SEARCH_PHOTOS = 500
SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench_sink.c")


def compiler():
    """The C compiler: $CC, else cc, else clang (which every Swift toolchain has)."""
    for name in (os.environ.get("CC"), "cc", "clang"):
        if name and shutil.which(name):
            return shutil.which(name)
    raise RuntimeError("bench_sink: no C compiler (set CC, or put cc or the Swift toolchain's clang on PATH)")


def prepare(folder):
    """Compiles bench_sink.c and writes the canned search pages into `folder`; returns the
    command line that serves them on any free port."""
    binary = os.path.join(folder, "bench_sink")
    built = subprocess.run([compiler(), "-O2", "-pthread", "-o", binary, SOURCE], capture_output=True, text=True, timeout=120)
    if built.returncode != 0:
        raise RuntimeError("bench_sink: compiling %s failed:\n%s" % (SOURCE, built.stderr[-2000:]))
    pages = []
    for fmt, make in (("xml", photo_list_xml), ("json", photo_list_json)):
        path = os.path.join(folder, "search." + fmt)
        with open(path, "w", encoding="utf-8") as f:
            f.write(make(SEARCH_PHOTOS, pages=71, total=35211))
        pages.append(path)
    return [binary, "0"] + pages


def read_line(proc, deadline, what):
    """The next line of proc's stdout (text mode), stripped ("" at its end), waiting no later than
    `deadline` (a time.monotonic() value); RuntimeError naming `what` when nothing came by then."""
    ready, _, _ = select.select([proc.stdout], [], [], max(0, deadline - time.monotonic()))
    if not ready:
        raise RuntimeError("%s: no output before the deadline" % what)
    return proc.stdout.readline().strip()


class Sink:
    """bench_sink.c in a process of its own (its CPU time is not the client's), compiled and
    started when entered; `url` is its base URL once it has printed its port."""

    def __init__(self, timeout=30):
        self.timeout = timeout
        self.proc = None
        self.url = None
        self.folder = None

    def __enter__(self):
        self.folder = tempfile.TemporaryDirectory(prefix="bench-sink-")
        try:
            self.proc = subprocess.Popen(prepare(self.folder.name), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self.url = "http://127.0.0.1:%d" % self.wait_for_port()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.stop()

    def wait_for_port(self):
        line = read_line(self.proc, time.monotonic() + self.timeout, "bench_sink")
        if not line.isdigit():
            raise RuntimeError("bench_sink did not report its port within %d s (it printed %r; stderr: %s)"
                               % (self.timeout, line, self.proc.stderr.read() if self.proc.poll() is not None else "-"))
        return int(line)

    def creds(self):
        """URL KEY SECRET TOKEN TOKEN_SECRET as flickr-bench and bench_python.py take them (any will do)."""
        return [self.url, "sink-key", "sink-secret", "sink-token", "sink-token-secret"]

    def env(self):
        """The environment that points the flickr command at the sink."""
        return dict(os.environ, FLICKR_ENDPOINT=self.url, FLICKR_API_KEY="sink-key", FLICKR_API_SECRET="sink-secret",
                    FLICKR_OAUTH_TOKEN="sink-token", FLICKR_OAUTH_TOKEN_SECRET="sink-token-secret")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
        if self.folder:
            self.folder.cleanup()
            self.folder = None


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="bench-sink-") as folder:
        command = prepare(folder)
        command[1] = sys.argv[1] if len(sys.argv) > 1 else "0"
        sys.exit(subprocess.call(command))  # not exec: the folder must outlive the server
