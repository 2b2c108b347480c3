#!/usr/bin/env python3
"""Drives the `flickr` REPL through a real pseudo-terminal (readline on) with pexpect.

    repl_pty.py SCENARIO --flickr PATH [--sandbox PATH]

Scenarios: completion, pager, multiline, errors, commands, cancel, interrupt, history, color, plain, installed.
Each prints `ok: ...` lines and exits 0, or prints `FAIL: ...` with the transcript and exits 1.
Measurements are printed as `key=value` lines (cancel_seconds=...). Every wait is bounded.
Environment of the child: a throwaway HOME / XDG_* / INPUTRC, so no real profile, history or
~/.inputrc is touched or read.
"""
import argparse
import contextlib
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import pexpect

TIMEOUT = 20          # per expect; generous for a loaded machine
SGR = re.compile(rb"\x1b\[[0-9;]*m")


class Fail(Exception):
    pass


SESSIONS = []


class Session:
    """One flickr process in a pty, with its whole output kept for the report."""

    def __init__(self, args, flickr, env, dimensions=(40, 200)):
        SESSIONS.append(self)
        self.log = bytearray()
        self.child = pexpect.spawn(flickr, args, env=env, timeout=TIMEOUT, dimensions=dimensions)
        self.child.delaybeforesend = 0.02

    def expect(self, pattern, what, timeout=TIMEOUT):
        try:
            if isinstance(pattern, (str, bytes)):
                self.child.expect_exact(pattern, timeout=timeout)  # plain text, not a regex
            else:
                self.child.expect(pattern, timeout=timeout)
        except (pexpect.TIMEOUT, pexpect.EOF) as e:
            self._keep()
            raise Fail(f"{what}: did not see {pattern!r} ({type(e).__name__})")
        self._keep()
        return self.child.match

    def _keep(self):
        if isinstance(self.child.before, bytes):
            self.log += self.child.before
        if isinstance(self.child.after, bytes):
            self.log += self.child.after

    def send(self, data):
        self.child.send(data)

    def prompt(self, what="prompt"):
        # the prompt at the start of a line (after a newline or at the very beginning)
        return self.expect(re.compile(rb"(^|\n)> $", re.M), what)

    def prompt_after_pager(self, what="prompt after the pager"):
        # the primary prompt after a full-screen pager: it follows the pager's exit sequences
        # (leaving the alternate screen), not necessarily a newline; never `>> `
        return self.expect(re.compile(rb"(?<!>)> $"), what)

    def line(self, text, what=None):
        self.send(text + "\r")

    def finish(self, what="exit"):
        try:
            self.child.expect(pexpect.EOF, timeout=TIMEOUT)
        except pexpect.TIMEOUT:
            self._keep()
            self.child.terminate(force=True)
            raise Fail(f"{what}: the process did not exit")
        self._keep()
        self.child.close()
        return self.child.exitstatus

    def close(self):
        if self.child.isalive():
            self.child.terminate(force=True)

    def transcript(self):
        return self.log.decode("utf-8", "replace")


@contextlib.contextmanager
def repl(a, home, args=("--sandbox",), env=None, first="first prompt", quit_with="\x04", expect_status=0, what="exit",
         dimensions=(40, 200)):
    """One REPL session, start to end: spawns `flickr ARGS` in a pty (of `dimensions` rows and
    columns), waits for the first prompt (`first=None`: the scenario does), yields the Session; on
    leaving normally sends `quit_with` (Ctrl-D), waits for the exit and checks the status
    (`expect_status=None`: any). The child is always closed, also when the scenario fails."""
    s = Session(list(args), a.flickr, env if env is not None else base_env(home), dimensions=dimensions)
    try:
        if first is not None:
            s.prompt(first)
        yield s
        if quit_with is not None:
            s.send(quit_with)
            status = s.finish(what)
            if expect_status is not None and status != expect_status:
                raise Fail(f"{what}: exit status {status}")
    finally:
        s.close()


def base_env(home, color=False):
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": home,
        "XDG_CONFIG_HOME": os.path.join(home, "config"),
        "XDG_STATE_HOME": os.path.join(home, "state"),
        "INPUTRC": os.path.join(home, "inputrc"),
        "TERM": "xterm",
        "LANG": "C.UTF-8",
        # Long results go through $PAGER; `cat` keeps the scenarios independent of less.
        "PAGER": "cat",
    }
    if not color:
        env["NO_COLOR"] = "1"
    with open(env["INPUTRC"], "w") as f:
        f.write("set bell-style none\n")
    return env


def ok(msg):
    print("ok:", msg, flush=True)


# ---- scenarios ------------------------------------------------------------------------------

def complete_and_echo(s, word):
    """flickr.test.ec<TAB> completes in place to flickr.test.echo(, and the call then runs."""
    s.send("flickr.test.ec\t")
    s.expect("ho(", "unique completion of flickr.test.ec")
    s.send('{ word = "%s" })\r' % word)
    s.expect('word = { _text = "%s" }' % word, "echo result after completion")
    s.prompt()


def completion(a, home):
    with repl(a, home) as s:
        # ambiguous (geo. and get…): a second TAB lists the catalog's methods, the line stays
        s.send("flickr.photos.ge\t\t")
        m = s.expect(re.compile(rb"\r\ngeo\.(.|\n)*\n> flickr\.photos\.ge"), "listing of flickr.photos.ge")
        listing = m.group(0).decode("utf-8", "replace")
        for name in ("getInfo(", "getSizes(", "getExif(", "getContext(", "getRecent("):
            if not re.search(r"(^|\s)" + re.escape(name), listing):
                raise Fail(f"listing lacks {name}: {listing!r}")
        if "search" in listing or "flickr.photos.getInfo" in listing:
            raise Fail("listing shows other names, or full paths instead of the last component")
        ok("flickr.photos.ge<TAB><TAB> lists geo., getInfo(, getSizes(, getExif(, getContext(, getRecent(")
        s.send("t\t")  # now unique prefix 'get': TAB again narrows nothing but must not break the line
        s.send("Si\t")
        s.expect("zes(", "getSi<TAB> completes to getSizes(")  # readline writes only what it inserts
        s.send("\x15")  # Ctrl-U: kill the line
        # unique: completes in place, then the call goes to the in-process sandbox
        complete_and_echo(s, "tabbed")
        ok("flickr.test.ec<TAB> → flickr.test.echo( and the call runs")
        s.send('string.fo\t"%d", 7)\r')
        s.expect('"7"', "string.fo<TAB>")
        s.prompt()
        s.send('t = { ["key one"] = 1, key2 = { deep = true } }\r')
        s.prompt()
        s.send('t["key o\t\r')
        s.expect(re.compile(rb"\r\n1\r\n"), 't["key o<TAB>')
        s.prompt()
        s.send("t.key2.de\t\r")
        s.expect(re.compile(rb"\r\ntrue\r\n"), "t.key2.de<TAB>")
        s.prompt()
        s.send('s = "abc"\r')
        s.prompt()
        s.send("s:upp\t)\r")
        s.expect('"ABC"', "s:upp<TAB>")
        s.prompt()
        ok('string.fo, t["key o, t.key2.de, s:upp complete')
        # a table with an __index *function*: completion must not call it
        s.send('calls = 0; trap = setmetatable({}, { __index = function(t, k) calls = calls + 1 end })\r')
        s.prompt()
        s.send("trap.x.y\t\t\x15")
        s.send("calls\r")
        s.expect(re.compile(rb"\r\n0\r\n"), "calls after completing through an __index function")
        s.prompt()
        ok("completion never calls __index functions")
        # From the catalog: argument names inside a call's table, method names inside strings,
        # after :doc, and after a numeric index.
        s.send("r = flickr.photos.search{ us\t")
        s.expect("er_id = ", "flickr.photos.search{ us<TAB> completes user_id = ")
        s.send('"me", per_pa\t')
        s.expect("ge = ", "per_pa<TAB> completes per_page = ")
        s.send("2 }\r")
        s.prompt()
        s.send("r.photos.photo[1].ow\t\r")
        s.expect(re.compile(rb"ner\r\n\"[^\"]+@N\d+\"\r\n"), "r.photos.photo[1].ow<TAB> completes owner")
        s.prompt()
        s.send('flickr.call("flickr.test.ec\t')
        s.expect("ho", 'flickr.call("flickr.test.ec<TAB> completes the method name')
        s.send('").method._text\r')
        s.expect('"flickr.test.echo"', "the completed call runs")
        s.prompt()
        s.send(":doc photos.getSi\t\r")
        s.expect("zes", ":doc photos.getSi<TAB> completes")
        s.expect("flickr.photos.getSizes  (GET", ":doc of the completed name")
        s.prompt()
        ok("catalog completion: argument names in a call's table, method names in strings and after :doc, after [1]")


def pager(a, home):
    """The banner names endpoint and user; results taller than the terminal go through $PAGER;
    :set pager off, :set items, :set depth, :set."""
    env = base_env(home)
    env["PAGER"] = "echo PAGED-BEGIN; cat; echo PAGED-END"
    with repl(a, home, env=env, first=None, dimensions=(24, 100)) as s:
        s.expect(re.compile(rb"endpoint http://127\.0\.0\.1:\d+ \xc2\xb7 user \S+ \(\d+@N\d+\) \xc2\xb7 :help"), "banner names endpoint and user")
        s.prompt()
        ok("the banner names the endpoint and the user")
        s.send('t = {} for i = 1, 40 do t[i] = { n = i, name = "photo " .. i } end\r')
        s.prompt()
        s.send("t\r")
        s.expect("PAGED-BEGIN", "a 42-line result on a 24-line terminal goes through the pager")
        s.expect('name = "photo 40"', "the pager gets the whole result")
        s.expect("PAGED-END", "the pager ends")
        s.prompt()
        s.send("{ 1, 2 }\r")
        m = s.expect(re.compile(rb"\r\n(.*)\r\n> $"), "a short result")
        if b"PAGED" in m.group(0):
            raise Fail("a short result went through the pager")
        ok("tall results through $PAGER, short ones printed")
        s.send(":set pager off\r")
        s.prompt()
        s.send("t\r")
        m = s.expect(re.compile(rb'name = "photo 40".*\r\n> $', re.S), "pager off prints straight")
        if b"PAGED-BEGIN" in m.group(0):
            raise Fail(":set pager off still paged")
        s.send(":set items 3\r")
        s.prompt()
        s.send("t\r")
        s.expect("… 37 more".encode(), ":set items 3 shows 3 entries")
        s.prompt()
        s.send(":set depth 1\r")
        s.prompt()
        s.send("{ a = { b = 1 } }\r")
        s.expect("{ a = {…} }".encode(), ":set depth 1")
        s.prompt()
        s.send(":set depth all\r")
        s.prompt()
        s.send(":set\r")
        s.expect("depth all  items 3  pager off", ":set shows the settings")
        s.prompt()
        s.send(":set depth zero\r")
        s.expect("depth: a positive number or all", "a bad value says what is expected")
        s.prompt()
        ok(":set pager off, :set items, :set depth, :set")


def multiline(a, home):
    with repl(a, home, quit_with=":quit\r") as s:
        s.send("for i = 1, 3 do\r")
        s.expect(re.compile(rb"\n>> $"), "continuation prompt after 'for ... do'")
        s.send("  print(i * 10)\r")
        s.expect(re.compile(rb"\n>> $"), "continuation prompt after the body")
        s.send("end\r")
        s.expect(re.compile(rb"10\r\n20\r\n30\r\n"), "loop output")
        s.prompt()
        ok("multi-line for loop runs with >> continuation")
        s.send("x = { 1, 2, name = 'a', nested = { z = 1.0 } }\r")
        s.prompt()
        s.send("x\r")
        s.expect('{ 1, 2, name = "a", nested = { z = 1.0 } }', "pretty-printed table")
        s.prompt()
        s.send("_.name\r")
        s.expect(re.compile(rb'\r\n"a"\r\n'), "_ holds the last result")
        s.prompt()
        s.send("1, 2.0, 'three', nil\r")
        s.expect(re.compile(rb'\r\n1\t2\.0\t"three"\tnil\r\n'), "several results, tab-separated")
        s.prompt()
        s.send("c = {}; c.self = c\r")
        s.prompt()
        s.send("c\r")
        s.expect(re.compile(rb"self = <cycle"), "cycle marker")
        s.prompt()
        s.send("{\r")
        s.expect(re.compile(rb"\n>> $"), "continuation for a table constructor")
        s.send("  10, 20,\r")
        s.expect(re.compile(rb"\n>> $"), "continuation 2")
        s.send("}\r")
        s.expect("{ 10, 20 }", "multi-line expression printed")
        s.prompt()
        ok("pretty printer: tables, _, several results, integer vs float, cycles, multi-line expression")
        # a paste: several lines arrive in one write and are read one by one, continuation included
        s.send("for i = 1, 2 do\rprint('pasted', i)\rend\r2 + 3\r")
        s.expect(re.compile(rb"pasted\t1\r\npasted\t2\r\n"), "pasted loop")
        s.expect(re.compile(rb"\r\n5\r\n"), "line after the pasted loop")
        s.prompt()
        ok("pasted multi-line input")


def errors(a, home):
    with repl(a, home) as s:
        s.send("local function inner() error('boom') end; inner()\r")
        s.expect("stdin:1: boom", "error message")
        s.expect("stack traceback:", "traceback header")
        s.expect("in local 'inner'", "traceback frame of the function")
        s.prompt("prompt after an error")
        ok("runtime error prints message and traceback, prompt returns")
        s.send("1 +\r")
        s.expect(re.compile(rb"\n>> $"), "incomplete expression continues")
        s.send(")\r")
        s.expect("unexpected symbol", "syntax error reported")
        s.prompt()
        ok("syntax error reported")
        s.send("flickr.photos.getInfo{ photo_id = '999999999' }\r")
        s.expect(re.compile(rb"flickr\.photos\.getInfo: \[1\] [^\r\n]+"), "flickr.Error via __tostring")
        s.expect("stack traceback:", "flickr error traceback")
        s.prompt()
        ok("flickr.Error prints as 'method: [code] message' with a traceback")
        s.send("2 + 2\r")
        s.expect(re.compile(rb"\r\n4\r\n"), "REPL still evaluates after errors")
        s.prompt()


def commands(a, home):
    with repl(a, home, quit_with=":quit\r") as s:
        s.send(":help\r")
        s.expect(":doc METHOD", ":help lists :doc")
        s.expect("flickr.walk", ":help includes the flickr overview")
        s.prompt()
        s.send(":doc photos.search\r")
        s.expect("flickr.photos.search  (GET, needs no permission)", ":doc header")
        s.expect("Optional arguments:", ":doc optional arguments")
        s.expect("tags", ":doc lists tags")
        s.prompt()
        s.send(":doc flickr.photos.serch\r")
        s.expect("did you mean flickr.photos.search", ":doc of an unknown method suggests the nearest")
        s.send(":doc photos.comments\r")
        s.expect("Methods in photos.comments:", ":doc of a group lists it")
        s.prompt()
        s.send(":time flickr.test.echo{ n = 1 }\r")
        s.expect(re.compile(rb"time: \d+\.\d{3} s"), ":time prints the elapsed time")
        s.prompt()
        s.send("local v = 1\r")
        s.expect("locals do not survive", "note about locals at the prompt")
        s.prompt()
        s.send("_PROMPT = 'flickr> '\r")
        s.expect(re.compile(rb"\nflickr> $"), "_PROMPT honoured")
        s.send("_PROMPT = nil\r")
        s.prompt()
        s.send(":frobnicate\r")
        s.expect("unknown command :frobnicate", "unknown command")
        s.prompt()
        ok(":help, :doc, :time, local note, _PROMPT, unknown command")
    ok(":quit exits 0")


# What `flickr --debug` traces as a request goes out.
SENT = "\u2192 GET http".encode()


def start_sandbox(a, latency):
    proc = subprocess.Popen([a.sandbox, "--port", "0", "--latency", str(latency)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    values = {}
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        line = line.strip()
        if line == "ready":
            return proc, values
        if "=" in line:
            k, v = line.split("=", 1)
            values[k] = v
    proc.kill()
    raise Fail("flickr-sandbox did not become ready")


@contextlib.contextmanager
def sandbox_process(a, latency):
    """A flickr-sandbox process answering after `latency` ms, for the `with` block; yields its
    settings (url=, api_key=, …) and stops it on leaving."""
    proc, v = start_sandbox(a, latency)
    try:
        yield v
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def sandbox_env(home, v):
    """base_env with the sandbox's endpoint and credentials."""
    env = base_env(home)
    env.update({"FLICKR_ENDPOINT": v["url"], "FLICKR_API_KEY": v["api_key"], "FLICKR_API_SECRET": v["api_secret"],
                "FLICKR_OAUTH_TOKEN": v["oauth_token"], "FLICKR_OAUTH_TOKEN_SECRET": v["oauth_token_secret"]})
    return env


def cancel(a, home):
    # The answer is 20 s away: a call back within 10 s was cancelled, not answered, with room for a
    # busy machine. --debug traces each request as it goes out: the Ctrl-C is sent once it is
    # in flight (told by the trace, not guessed by a sleep).
    with sandbox_process(a, 20000) as v:
        env = sandbox_env(home, v)
        with repl(a, home, args=["--endpoint", v["url"], "--debug"], env=env) as s:
            s.send("r = flickr.test.echo{ slow = 'yes' }\r")
            s.expect(SENT, "the request is on its way")
            t0 = time.monotonic()
            s.send("\x03")
            s.expect(re.compile(rb"interrupted!"), "cancelled call reports interrupted!")
            s.prompt("prompt after cancelling")
            elapsed = time.monotonic() - t0
            print(f"cancel_seconds={elapsed:.3f}", flush=True)
            if elapsed >= 10.0:
                raise Fail(f"Ctrl-C took {elapsed:.2f} s to cancel a 20 s call")
            ok(f"Ctrl-C cancelled a call to a --latency 20000 sandbox in {elapsed:.2f} s, prompt back")
            # the same cancel inside pcall: the error value says what happened
            s.send("ok, e = pcall(flickr.test.echo, {})\r")
            s.expect(SENT, "the second request is on its way")
            s.send("\x03")
            s.prompt("prompt after a second cancel")
            s.send("e.kind\r")
            s.expect('"cancelled"', "error kind cancelled")
            s.prompt()
            ok("the error of a cancelled call has kind 'cancelled'")


def interrupt(a, home):
    with repl(a, home) as s:
        # Ctrl-C while editing clears the line
        s.send("this would be a syntax error")
        s.send("\x03")
        s.prompt("new prompt after Ctrl-C while editing")
        s.send("6 * 7\r")
        s.expect(re.compile(rb"\r\n42\r\n"), "line was cleared by Ctrl-C")
        s.prompt()
        ok("Ctrl-C while editing clears the line")
        # Ctrl-C in a continuation drops the whole pending chunk
        s.send("for i = 1, 2 do\r")
        s.expect(re.compile(rb"\n>> $"), "continuation")
        s.send("\x03")
        s.prompt("primary prompt after Ctrl-C in a continuation")
        s.send("'fresh'\r")
        s.expect('"fresh"', "pending chunk dropped")
        s.prompt()
        ok("Ctrl-C in a continuation drops the pending chunk")
        # A busy Lua loop: two Ctrl-Cs quickly must interrupt, not kill
        s.send("while true do end\r")
        # Readline has taken the line (it echoes the newline): a Ctrl-C before that would only
        # clear the line being edited.
        s.expect("while true do end\r\n", "the loop line entered")
        s.send("\x03")
        s.send("\x03")
        s.expect("interrupted!", "busy loop interrupted")
        s.prompt("prompt after interrupting a loop")
        s.send("'alive'\r")
        s.expect('"alive"', "still alive after two Ctrl-Cs")
        ok("two Ctrl-Cs during a busy loop interrupt it and don't kill the process")


def history(a, home):
    env = base_env(home)
    path = os.path.join(home, "state", "flickr", "history")
    with repl(a, home, env=env, what="first run") as s:
        s.send("40 + 2\r")
        s.expect(re.compile(rb"\r\n42\r\n"), "first run value")
        s.prompt()
        s.send("for i = 1, 2 do\r")
        s.expect(re.compile(rb"\n>> $"), "continuation")
        s.send("print('loop', i)\r")
        s.expect(re.compile(rb"\n>> $"), "continuation")
        s.send("end\r")
        s.expect(re.compile(rb"loop\t2\r\n"), "loop ran")
        s.prompt()
        s.send("'last one'\r")
        s.prompt()
    if not os.path.exists(path):
        raise Fail(f"no history file at {path}")
    with open(path, encoding="utf-8") as f:
        saved = f.read()
    if "for i = 1, 2 do\nprint('loop', i)\nend" not in saved:
        raise Fail(f"multi-line chunk not saved whole: {saved!r}")
    ok("Ctrl-D saved the history file with the multi-line chunk")
    with repl(a, home, env=env, quit_with=":quit\r", what="second run") as s2:
        s2.send("\x1b[A\x1b[A")   # Up twice: the for loop, whole
        s2.expect("end", "the multi-line entry is recalled whole")
        s2.send("\r")
        s2.expect(re.compile(rb"loop\t1\r\nloop\t2\r\n"), "recalled loop runs")
        s2.prompt()
        ok("Up recalls the multi-line chunk from the previous run as one entry")
        s2.send("\x12")            # Ctrl-R
        s2.send("40 +")
        s2.expect("40 + 2", "reverse search finds the entry")
        s2.send("\r")
        s2.expect(re.compile(rb"\r\n42\r\n"), "found entry runs")
        s2.prompt()
        ok("Ctrl-R finds '40 + 2' from the previous run")

    def saved():
        with open(path, encoding="utf-8") as f:
            return f.read()
    # Two sessions at once: the one that leaves first keeps its lines when the other leaves.
    with repl(a, home, env=env, quit_with=None, what="third run") as s3, repl(a, home, env=env, what="fourth run") as s4:
        for session, text in ((s3, "'from three'"), (s4, "'from four'")):
            session.send(text + "\r")
            session.prompt()
        s3.send("\x04")
        if s3.finish("third run") != 0:
            raise Fail("the third run did not exit 0")
        s4.send("'four again'\r")
        s4.prompt()
    for text in ("'from three'", "'from four'", "'four again'", "40 + 2"):
        if text not in saved():
            raise Fail(f"two sessions at once: {text} is not in the history file: {saved()!r}")
    ok("two sessions at once keep both their lines")
    # A closed terminal (SIGHUP): what was entered is in the file already.
    with repl(a, home, env=env, quit_with=None, what="hung-up run") as s5:
        s5.send("'before the hangup'\r")
        s5.prompt()
        s5.child.kill(signal.SIGHUP)
        s5.finish("hung-up run")
    if "'before the hangup'" not in saved():
        raise Fail(f"SIGHUP lost the session's line: {saved()!r}")
    ok("SIGHUP loses nothing: each line reached the file when it was entered")


def color(a, home):
    # colour on a terminal without NO_COLOR …
    with repl(a, home, env=base_env(home, color=True), expect_status=None, first=None) as s:
        s.expect("> ", "prompt")
        s.send("{ 1, 'two', x = true }\r")
        s.expect("true", "coloured value")
        s.expect("> ", "prompt")
    if not SGR.search(bytes(s.log)):
        raise Fail("no colour on a terminal without NO_COLOR (the NO_COLOR check would prove nothing)")
    ok("colour sequences on a terminal")
    # … and none at all under NO_COLOR or --no-color
    for args, env, label in ((["--sandbox"], base_env(home), "NO_COLOR=1"),
                             (["--no-color", "--sandbox"], base_env(home, color=True), "--no-color")):
        with repl(a, home, args=args, env=env, expect_status=None) as s:
            s.send("{ 1, 'two', x = true }\r")
            s.expect('{ 1, "two", x = true }', "plain value")
            s.prompt()
            s.send("error('red?')\r")
            s.expect("stack traceback", "error")
            s.prompt()
        found = SGR.findall(bytes(s.log))
        if found:
            raise Fail(f"{label}: colour sequences in the output: {found[:5]}")
        ok(f"{label}: no SGR sequence anywhere in the pty output")


def plain(a, home):
    env = base_env(home, color=True)
    script = "x = 20\nfor i = 1, 2 do\nprint('p', i)\nend\nx + 1\n{ 'a', n = 1 }\nerror('oops')\n:doc test.echo\n'after'\n"
    r = subprocess.run([a.flickr, "--sandbox", "-i"], input=script.encode(), env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    out, err = r.stdout.decode(), r.stderr.decode()
    print(out)
    print(err)
    # Off a terminal the results go to `print`, as lua5.4 -i < file gives them.
    for want in ("p\t1\np\t2\n", "21\n", "table: 0x", "flickr.test.echo", "after\n"):
        if want not in out:
            raise Fail(f"plain stdin: {want!r} not in stdout")
    if "oops" not in err or "stack traceback" not in err:
        raise Fail("plain stdin: error not on stderr")
    if "\x1b" in out + err:
        raise Fail("plain stdin: escape sequences in the output")
    if r.returncode != 0:
        raise Fail(f"plain stdin: exit status {r.returncode}")
    ok("non-terminal stdin: same evaluation, no escape sequences, exit 0 at end of input")
    # lua.c's -i off a terminal: a _PROMPT with __tostring is called for each prompt; a nil
    # print is "error calling 'print'".
    counted = subprocess.run([a.flickr, "-e", "local C=0; _PROMPT=setmetatable({},{__tostring=function() C=C+1 return C end})", "-i"],
                             input=b" --\na = 2\n", env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    if "\n1 --\n2a = 2\n3\n" not in counted.stdout.decode():  # after the banner, as lua5.4 prints it with -i
        raise Fail(f"_PROMPT's __tostring not called per prompt: {counted.stdout!r}")
    noprint = subprocess.run([a.flickr, "-e", "print=nil", "-i"], input=b"10\n", env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    if "error calling 'print'" not in noprint.stderr.decode():
        raise Fail(f"a nil print is not reported: {noprint.stderr!r}")
    # A session off a terminal reads as lua5.4's: each line after its prompt, results, errors.
    session = b"x = 1\nprint(x)\nfor i = 1, 2 do\nprint(i)\nend\nerror(setmetatable({}, {__tostring = function() return 'obj' end}))\nx + 1\n"
    transcripts = []
    for program in ("lua5.4", a.flickr):
        r = subprocess.run([program, "-i"], input=session, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
        lines = r.stdout.decode().split("\n")
        transcripts.append("\n".join(l for l in lines if "Copyright" not in l and not l.startswith("flickr ")))
    if transcripts[0] != transcripts[1]:
        raise Fail(f"-i off a terminal differs from lua5.4's:\n{transcripts[0]!r}\n{transcripts[1]!r}")
    ok("-i off a terminal: print, _PROMPT's __tostring and a nil print as lua.c; the same transcript as lua5.4")


def installed(a, home):
    """The installed command (--flickr may be a wrapper that hides the checkout): shipped Lua
    compiled in — the pretty printer and catalog completion work with no lua/ directory."""
    with repl(a, home) as s:
        s.send("{ b = 1, a = { 1, 2.0 }, 'x' }\r")
        s.expect('{ "x", a = { 1, 2.0 }, b = 1 }', "pretty printed table")
        s.prompt()
        ok("tables print through the compiled-in flickr.pretty")
        complete_and_echo(s, "installed")
        ok("flickr.test.ec<TAB> completes from the compiled-in catalog and the call runs")


def secrets(a, home):
    """The REPL with real credentials (the FLICKR_* and XDG_* variables of this driver's
    environment) and --debug: nothing it shows, traces or keeps in its history holds one of the
    space-separated SECRETS."""
    env = base_env(home)
    for k in ("FLICKR_ENDPOINT", "FLICKR_API_KEY", "FLICKR_API_SECRET", "FLICKR_OAUTH_TOKEN", "FLICKR_OAUTH_TOKEN_SECRET",
              "XDG_STATE_HOME", "XDG_CONFIG_HOME"):
        if k in os.environ:
            env[k] = os.environ[k]
    secret_values = [x for x in os.environ.get("SECRETS", "").split() if x]
    if not secret_values:
        raise Fail("no SECRETS given")
    with repl(a, home, args=("--debug",), env=env) as s:
        s.send("flickr.config()\r")
        s.expect("token_secret", "flickr.config() shows the settings")
        s.prompt()
        s.send("flickr.test.login().user.username._text\r")
        s.expect('"', "flickr.test.login() answers")
        s.prompt()
        s.send("flickr.configure{ timeout = 20 }\r")
        s.prompt()
    history = os.path.join(env.get("XDG_STATE_HOME", os.path.join(home, "state")), "flickr", "history")
    if not os.path.exists(history):
        raise Fail(f"no history at {history}")
    with open(history, encoding="utf-8", errors="replace") as f:
        kept = f.read()
    shown = "".join(x.transcript() for x in SESSIONS)
    for secret in secret_values:
        if secret in shown:
            raise Fail("the REPL showed a secret")
        if secret in kept:
            raise Fail("the history holds a secret")
    ok("no secret in what the REPL showed, traced (--debug) or kept in its history")


# ---- the terminal as a user's: the real less, resizes, Ctrl-C and Ctrl-D ---------------------

ALT_SCREEN = b"\x1b[?1049h"   # what less (TERM=xterm) writes as it takes the screen


def env_with_pager(home, pager):
    """base_env with PAGER set to `pager`, or unset (None: the default, less -R)."""
    env = base_env(home)
    del env["PAGER"]
    if pager is not None:
        env["PAGER"] = pager
    if shutil.which("less", path=env["PATH"]) is None:
        raise Fail("less is not installed (scripts/bootstrap installs it)")
    return env


TALL = 't = {} for i = 1, 40 do t[i] = { n = i, name = "photo " .. i } end\r'


def pager_less(a, home):
    """PAGER unset: a tall result, :help and :doc go through the real less, which owns the
    terminal (keys, Ctrl-C, a resize); q brings the prompt back with line editing and Ctrl-C."""
    env = env_with_pager(home, None)
    with repl(a, home, env=env, dimensions=(24, 100)) as s:
        s.send(TALL)
        s.prompt()
        s.send("t\r")
        s.expect(ALT_SCREEN, "less takes the screen")
        s.expect('name = "photo 20"', "less shows the first screen")
        # less waits for a key: the rest is not on the screen yet.
        s.send("\x03")                     # Ctrl-C inside the pager: less takes it, the REPL lives
        # less answers Ctrl-C with a bell and a repaint down to its ':' prompt; the resize waits
        # for that repaint (a window change during it is lost on less's side: it then redraws at
        # the old height).
        s.expect(re.compile(rb"\x07[^\x07]*?photo 22\"[^\n]*\r\n:", re.S), "less rings and repaints at Ctrl-C")
        s.child.setwinsize(30, 100)        # TIOCSWINSZ: the kernel sends SIGWINCH to the pager
        s.expect('name = "photo 27"', "less redraws at the new height (it got the window change)")
        if b'name = "photo 40"' in s.log:
            raise Fail("the whole result was on screen before the pager was asked for it")
        s.send("G")
        s.expect('name = "photo 40"', "G in less shows the end (less reads the keyboard)")
        s.send("q")
        s.prompt_after_pager()
        ok("a tall result went through less: keys, Ctrl-C and a resize are the pager's; q gives the prompt back")
        # line editing is back: Ctrl-A moves to the start of the line
        s.send("*7\x016\r")
        s.expect(re.compile(rb"\r\n42\r\n"), "line editing after the pager (Ctrl-A)")
        s.prompt()
        s.send("this would not compile\x03")
        s.prompt("Ctrl-C clears the line after the pager")
        s.send("'still here'\r")
        s.expect('"still here"', "the REPL runs after Ctrl-C")
        s.prompt()
        ok("after the pager: line editing (Ctrl-A) and Ctrl-C at the prompt as before")
        for command, text in ((":help", "REPL commands"), (":doc photos.search", "flickr.photos.search  (GET")):
            start = len(s.log)
            s.send(command + "\r")
            s.expect(text, f"{command} shown")
            s.send("q")
            s.prompt_after_pager(f"prompt after {command} in the pager")
            if ALT_SCREEN not in bytes(s.log[start:]):
                raise Fail(f"{command} (taller than 24 lines) did not go through less")
        ok(":help and :doc through less, q back to the prompt")


def pager_variants(a, home):
    """PAGER=less, and the report's `less -R; echo rc=$? >FILE`: less runs with the keyboard
    (exit 0 after q); the text is shown."""
    rc_file = os.path.join(home, "pager-rc")
    for pager in ("less", f"less -R; echo rc=$? >{rc_file}"):
        with repl(a, home, env=env_with_pager(home, pager), dimensions=(24, 100)) as s:
            s.send(TALL)
            s.prompt()
            s.send("t\r")
            s.expect('name = "photo 20"', f"PAGER={pager!r} shows the first screen")
            s.send("G")
            s.expect('name = "photo 40"', f"PAGER={pager!r}: G shows the end")
            s.send("q")
            s.prompt_after_pager()
        ok(f"PAGER={pager!r}: the pager reads the keyboard, q back to the prompt")
    with open(rc_file) as f:
        rc = f.read().strip()
    if rc != "rc=0":
        raise Fail(f"less ended with {rc!r} (1 means it could not read the keyboard)")
    ok("less -R ended with status 0 (it had the terminal)")


def pager_missing(a, home):
    """A PAGER that does not exist: one warning, and the text every time."""
    env = env_with_pager(home, "no-such-pager-xyz")
    with repl(a, home, env=env, dimensions=(24, 100)) as s:
        s.send(TALL)
        s.prompt()
        for i in (1, 2):
            start = len(s.log)
            s.send("t\r")
            s.expect('name = "photo 40"', f"tall result {i} printed without a pager")
            s.prompt()
            seen = bytes(s.log[start:]).count(b"pager 'no-such-pager-xyz' was not found")
            if seen != (1 if i == 1 else 0):
                raise Fail(f"result {i}: the warning was shown {seen} times")
        ok("a missing PAGER: one warning, then the text, each time")
    env = env_with_pager(home, "cat >/dev/null; exit 3")
    with repl(a, home, env=env, dimensions=(24, 100)) as s:
        s.send(TALL)
        s.prompt()
        s.send("t\r")
        s.expect("failed (exit status 3)", "a failing pager is reported")
        s.expect('name = "photo 40"', "the text is printed when the pager fails")
        s.prompt()
        ok("a pager that fails: a warning and the text printed directly")


def listing_width(s, what):
    """TAB TAB on `flickr.photos.`: readline lays the names out in columns to its idea of the
    width; returns the widest line of the listing, then clears the line."""
    start = len(s.log)
    s.send("flickr.photos.\t\t")
    s.expect(re.compile(rb"\n> flickr\.photos\.$"), what)
    listing = bytes(s.log[start:]).split(b"\n")
    s.send("\x03")
    s.prompt()
    return max(len(line.rstrip(b"\r").rstrip()) for line in listing[:-1])


def resize(a, home):
    """A window change takes effect at once: at the prompt (while readline waits for a key) and
    while a call runs (the result is laid out, and the next line edited, at the new width)."""
    go = os.path.join(home, "go")
    wide = "{ " + ", ".join(f'field{i} = "value {i}"' for i in range(4)) + " }"
    with repl(a, home, dimensions=(30, 120)) as s:
        before = listing_width(s, "listing at 120 columns")
        if before <= 60:
            raise Fail(f"the listing at 120 columns is only {before} wide: the test would prove nothing")
        s.child.setwinsize(30, 60)
        after = listing_width(s, "listing after a resize at the prompt")
        print(f"listing_width_120={before} listing_width_60={after}", flush=True)
        if after > 60:
            raise Fail(f"after resizing to 60 columns at the prompt the listing is {after} wide")
        ok(f"resized at the prompt: the completion listing is {after} wide (was {before})")
        s.child.setwinsize(30, 120)
        s.send(f"w = {wide}\r")
        s.prompt()
        s.send("w\r")
        m = s.expect(re.compile(rb"\r\n(\{[^\r\n]*\})\r\n"), "the table on one line at 120 columns")
        s.prompt()
        s.send(f"while not io.open({go!r}) do end; return w\r")
        s.expect("return w\r\n", "the call runs")
        s.child.setwinsize(30, 60)
        open(go, "w").close()
        m = s.expect(re.compile(rb"(\{\r\n(.|\n)*?\r\n\})\r\n"), "the result laid out at the new width")
        lines = m.group(1).split(b"\r\n")
        if max(len(x) for x in lines) > 60:
            raise Fail(f"a line of the result is wider than 60 columns: {lines!r}")
        s.prompt()
        after_call = listing_width(s, "listing after a resize during a call")
        if after_call > 60:
            raise Fail(f"after resizing during a call the listing is {after_call} wide")
        ok("resized during a call: the result and the next line use 60 columns")


def eof_continuation(a, home):
    """Ctrl-D at `>>` reports the unfinished chunk, as lua.c, and the session goes on."""
    with repl(a, home) as s:
        s.send("x = 5\r")
        s.prompt()
        s.send("for i = 1, 2 do\r")
        s.expect(re.compile(rb"\n>> $"), "continuation")
        s.send("\x04")
        s.expect("stdin:1: 'end' expected near <eof>", "the unfinished chunk is reported")
        s.prompt("primary prompt after Ctrl-D at >>")
        s.send("x\r")
        s.expect(re.compile(rb"\r\n5\r\n"), "the session's variables survive")
        s.prompt()
        ok("Ctrl-D at >> reports 'end' expected near <eof> and keeps the session")
        # Typed key by key, as a person does, after a Ctrl-D at >> (x = { is unfinished).
        for key in "x = {\r":
            s.send(key)
            time.sleep(0.05)
        s.expect(re.compile(rb"\n>> $"), "continuation of x = {")
        s.send("\x04")
        s.expect("stdin:1: unexpected symbol near <eof>", "the unfinished table is reported (as lua5.4 says it)")
        s.prompt("primary prompt after the second Ctrl-D at >>")
        for key in "x\r":
            time.sleep(0.2)
            s.send(key)
        s.expect(re.compile(rb"\r\n5\r\n"), "a key typed after Ctrl-D at >> does not end the REPL")
        s.prompt()
        for key in "y = x * 2\r":
            s.send(key)
            time.sleep(0.03)
        s.prompt()
        s.send("y\r")
        s.expect(re.compile(rb"\r\n10\r\n"), "the REPL fully works after")
        s.prompt()
        ok("keys typed one by one after Ctrl-D at >> keep the session")


def suspend(a, home):
    """Ctrl-Z at the prompt under an interactive bash (job control, as a person's terminal has
    it), then `fg`: the prompt and the half-typed line come back, and every key works at once —
    Tab, Ctrl-L, Up, Ctrl-R — as in lua5.4, not a cooked terminal waiting for Enter."""
    env = base_env(home)
    env.update(PS1="bash$ ", HISTFILE=os.path.join(home, "bash_history"))
    s = Session(["--norc", "--noprofile", "-i"], "/bin/bash", env, dimensions=(24, 80))
    try:
        s.expect("bash$ ", "bash's prompt")
        s.send(shlex.quote(a.flickr) + " --sandbox\r")
        s.prompt("the REPL's first prompt under bash")
        typed(s, "answer = 4")
        s.send("\x1a")
        s.expect("Stopped", "bash reports the REPL stopped")
        s.expect("bash$ ", "bash's prompt after Ctrl-Z")
        typed(s, "fg\r")
        s.expect(re.compile(rb"\n> answer = 4"), "after fg the prompt and the line being typed are drawn again")
        typed(s, "2\r")
        s.prompt("the line finished after fg ran")
        typed(s, "answer\r")
        s.expect(re.compile(rb"\r\n42\r\n"), "the line typed across the stop is whole")
        s.prompt()
        ok("Ctrl-Z then fg redraws the prompt and the line being typed")
        typed(s, "flickr.test.ec\t")
        s.expect("ho(", "Tab completes at once after fg")
        s.send("\x15")                         # Ctrl-U: kill the line
        s.send("\x0c")                         # Ctrl-L: clear the screen, redraw the prompt
        s.expect(re.compile(rb"\x1b\[2J"), "Ctrl-L clears the screen")
        s.send("\x1b[A")                       # Up: the last entry
        s.expect("answer", "Up recalls the history after fg")
        s.send("\x15")
        typed(s, "\x12answer =")                # Ctrl-R: search the history
        s.expect("answer = 42", "Ctrl-R finds the entry after fg")
        s.send("\x07")                         # Ctrl-G: leave the search
        s.send("\x15")
        typed(s, "answer + 1\r")
        s.expect(re.compile(rb"\r\n43\r\n"), "the REPL evaluates after the keys")
        s.prompt()
        if b"^L" in bytes(s.log):
            raise Fail("Ctrl-L was echoed as ^L: the terminal was left cooked")
        ok("after fg Tab, Ctrl-L, Up and Ctrl-R work at once")
        s.send("\x04")
        s.expect("bash$ ", "bash's prompt after the REPL ends")
        s.send("exit\r")
        s.finish("bash exits")
    finally:
        s.close()


def typed(s, text, pause=0.03):
    """Sends `text` a key at a time, as a person types it."""
    for key in text:
        s.send(key)
        time.sleep(pause)


def command_completion(a, home):
    """`:` + Tab completes the REPL's own commands; flickr.nope gets a did-you-mean."""
    with repl(a, home) as s:
        s.send(":he\t")
        s.expect("lp", ":he<TAB> completes :help")
        s.send("\r")
        s.expect("REPL commands", ":help ran")
        s.prompt()
        s.send(":\t\t")
        m = s.expect(re.compile(rb"\r\n(.*time.*)\r\n> :$"), "the command listing")
        for name in (b"doc", b"help", b"history", b"quit", b"set", b"time"):
            if name not in m.group(1):
                raise Fail(f":<TAB><TAB> does not list {name!r}: {m.group(1)!r}")
        s.send("set pa\t")
        s.expect("ger ", ":set pa<TAB> completes pager")
        s.send("off\r")
        s.prompt()
        ok(":<TAB> lists and completes the REPL's commands and :set's settings")
        s.send("flickr.photoz.search{}\r")
        s.expect("flickr.photoz: no such method or namespace (did you mean flickr.photos", "did you mean for a namespace")
        s.prompt()
        s.send("flickr.nope.foo{}\r")
        s.expect("flickr.nope: no such method or namespace", "an unknown namespace is named")
        s.expect("flickr.methods() lists them", "and how to list them")
        s.prompt()
        ok("flickr.photoz / flickr.nope: 'no such method or namespace' with did-you-mean, not 'attempt to index nil'")


def script(a, home, name, body, args=(), env=None):
    """`flickr [ARGS] HOME/NAME` in a pty, the script holding `body`."""
    path = os.path.join(home, name)
    with open(path, "w") as f:
        f.write(body)
    return Session(list(args) + [path], a.flickr, env or base_env(home))


def script_interrupt(a, home):
    """Ctrl-C in the script runner, as in lua.c: 'interrupted!' with a traceback, exit 1; a
    script may catch it with pcall and save its work; a blocking call is cancelled too."""
    def interrupted(name, source, before, after, status):
        """Runs `source`, waits for each of `before`, types Ctrl-C, waits for each of `after`
        and checks the exit status."""
        s = script(a, home, name, source)
        for text in before:
            s.expect(text, f"{name}: {text!r} before Ctrl-C")
        s.send("\x03")
        for text in after:
            s.expect(text, f"{name}: {text!r} after Ctrl-C")
        got = s.finish()
        if got != status:
            raise Fail(f"{name}: exit status {got}, not {status}")

    # the message begins with the program as invoked, and the traceback names the line
    interrupted("busy.lua", "print('looping')\nlocal n = 0\nwhile true do n = n + 1 end\n", ["looping"],
                [a.flickr + ": interrupted!", "stack traceback:", "busy.lua:3: in main chunk"], 1)
    ok("Ctrl-C in a busy script: PROGRAM: interrupted! + traceback, exit 1")
    interrupted("save.lua", "print('looping')\nlocal ok, e = pcall(function() local n = 0 while true do n = n + 1 end end)\n"
                "print('saved after', tostring(e))\n", ["looping"], ["saved after\tinterrupted!"], 0)
    ok("a script catches Ctrl-C with pcall and goes on (exit 0)")
    # no hook is there before the script sets one (as in lua5.4), and its own does not stop Ctrl-C
    interrupted("hooked.lua", "print('hook', debug.gethook())\ndebug.sethook(function() end, 'l')\nprint('looping')\n"
                "local n = 0\nwhile true do n = n + 1 end\n", ["hook\tnil", "looping"], ["interrupted!"], 1)
    ok("no hook of ours before Ctrl-C; a script's own hook does not stop Ctrl-C")
    with sandbox_process(a, 20000) as v:
        env = sandbox_env(home, v)
        s = script(a, home, "call.lua", "print('calling')\nflickr.test.echo{ slow = 'yes' }\nprint('not reached')\n",
                   args=["--endpoint", v["url"], "--debug"], env=env)
        s.expect(SENT, "the request is on its way")
        t0 = time.monotonic()
        s.send("\x03")
        s.expect("interrupted!", "the blocking call is interrupted")
        status = s.finish()
        elapsed = time.monotonic() - t0
        if status != 1 or elapsed >= 10.0 or b"not reached" in s.log:
            raise Fail(f"interrupted call: exit {status} after {elapsed:.2f} s")
        ok(f"Ctrl-C during a blocking call to a 20 s sandbox: interrupted! in {elapsed:.2f} s, exit 1")


def photos(home, folder, count):
    """`count` small distinct JPEG files in HOME/FOLDER."""
    path = os.path.join(home, folder)
    os.makedirs(path)
    for i in range(count):
        with open(os.path.join(path, f"img{i:02d}.jpg"), "wb") as f:
            f.write(b"\xff\xd8\xff\xe0" + os.urandom(2000 + i))
    return path


def set_photos(a, env, set_id):
    r = subprocess.run([a.flickr, "call", "flickr.photosets.getPhotos", f"photoset_id={set_id}", "--json"], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    if r.returncode != 0:
        raise Fail(f"photosets.getPhotos: {r.stderr.decode()}")
    import json
    return sorted(p["id"] for p in json.loads(r.stdout)["photoset"]["photo"])


def transfer_interrupt(a, home):
    """Ctrl-C in `flickr upload DIR --set NAME` and `flickr download` on a terminal: the lines of
    the files done are there, the first Ctrl-C stops after the file in flight, the second aborts
    it; the set holds what went up, the summary is printed, exit 130."""
    with sandbox_process(a, 1500) as v:   # every request waits 1.5 s: files are in flight for a while
        env = sandbox_env(home, v)
        ids = re.compile(rb"(\d{6,})\t(\S+\.jpg)")
        # One Ctrl-C after two files: the third (in flight) completes, the rest are not sent.
        s = Session(["upload", photos(home, "first", 8), "--set", "Stopped"], a.flickr, env)
        s.expect(ids, "first line")
        s.expect(ids, "second line")
        s.send("\x03")
        s.expect("stopping after the file in flight", "the first Ctrl-C is acknowledged")
        m = s.expect(re.compile(rb"uploaded (\d) of 8, interrupted: (\d) not uploaded, added to the new set \"Stopped\" \((\d+)\)"),
                     "summary")
        status = s.finish()
        up, left, set_id = int(m.group(1)), int(m.group(2)), m.group(3).decode()
        printed = sorted(x.decode() for x, _ in ids.findall(bytes(s.log)))
        if status != 130 or up < 2 or up + left != 8 or len(printed) != up:
            raise Fail(f"after one Ctrl-C: exit {status}, {up} uploaded, {left} left, {len(printed)} lines")
        if set_photos(a, env, set_id) != printed:
            raise Fail(f"the set holds {set_photos(a, env, set_id)}, the lines say {printed}")
        ok(f"one Ctrl-C: {up} files up (lines printed as each completed), in the set, {left} not sent, exit 130")
        # Two Ctrl-Cs while the second file is in flight: it is aborted, not added.
        s = Session(["--debug", "upload", photos(home, "second", 8), "--set", "Aborted"], a.flickr, env)
        s.expect(ids, "first line")
        s.expect("\u2192 POST http".encode(), "the second file is on its way")
        s.send("\x03")
        s.expect("stopping after the file in flight", "the first Ctrl-C")
        s.send("\x03")
        s.expect("aborting the file in flight", "the second Ctrl-C")
        m = s.expect(re.compile(rb"uploaded 1 of 8, interrupted: 7 not uploaded, added to the new set \"Aborted\" \((\d+)\)"),
                     "summary after aborting")
        status = s.finish()
        printed = sorted(x.decode() for x, _ in ids.findall(bytes(s.log)))
        if status != 130 or len(printed) != 1 or set_photos(a, env, m.group(1).decode()) != printed:
            raise Fail(f"after two Ctrl-Cs: exit {status}, lines {printed}")
        ok("two Ctrl-Cs: the file in flight aborted, the one done in the set, exit 130")
        # Download: one Ctrl-C once the second file is under way.
        out = os.path.join(home, "down")
        s = Session(["download", "--search", "user_id=me", "--size", "s", "--dir", out], a.flickr, env)
        s.expect("downloading 2/", "the second file is under way")
        s.send("\x03")
        s.expect("stopping after the file in flight", "download: the first Ctrl-C")
        m = s.expect(re.compile(rb"downloaded (\d+) files? \(.*\) into \S+, interrupted: (\d+) not downloaded"), "download summary")
        status = s.finish()
        files = sorted(os.listdir(out))
        if status != 130 or len(files) != int(m.group(1)) or any(f.endswith(".part") for f in files) or int(m.group(1)) < 2:
            raise Fail(f"download after Ctrl-C: exit {status}, summary {m.group(0)!r}, files {files}")
        ok(f"download: one Ctrl-C, {len(files)} files whole on disk, no .part, exit 130")


SCENARIOS = {f.__name__: f for f in (completion, pager, multiline, errors, commands, cancel, interrupt, history, color, plain,
                                     installed, secrets, pager_less, pager_variants, pager_missing, resize,
                                     eof_continuation, command_completion, script_interrupt, transfer_interrupt, suspend)}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("scenario", choices=sorted(SCENARIOS))
    p.add_argument("--flickr", required=True)
    p.add_argument("--sandbox")
    a = p.parse_args()
    home = tempfile.mkdtemp(prefix="flickr-repl-")
    try:
        SCENARIOS[a.scenario](a, home)
        return 0
    except Fail as e:
        print("FAIL:", e, flush=True)
        for i, s in enumerate(SESSIONS):
            print(f"---- transcript {i + 1} ----")
            print(repr(s.transcript()))
        return 1
    finally:
        for s in SESSIONS:
            s.close()
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
