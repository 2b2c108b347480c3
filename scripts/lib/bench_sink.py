#!/usr/bin/env python3
"""A minimal loopback Flickr for scripts/bench, so that the figures are the clients' own cost and
not a server's: it checks nothing (no signature, key or token) and answers from bodies built once.

  /services/rest/ (GET or POST, with or without the slash), by the `method` argument:
    flickr.test.echo      the plain arguments echoed, as Flickr and flickr-sandbox do
    flickr.photos.search  a canned page of 500 photos (built at start)
    anything else         an empty stat="ok" answer
  XML unless format=json (then JSON; wrapped in jsonFlickrApi(…) or the jsoncallback unless
  nojsoncallback=1), as Flickr.
  /services/upload/, /services/replace/: the body read in 1 MiB pieces and thrown away (so an
  upload measures the client, not a disk), then a Flickr-shaped success.

HTTP/1.1 with keep-alive, Content-Length or chunked request bodies, one thread per connection.
The request line and headers are parsed by hand rather than by http.server, whose email parser
costs more per request than a client's call should be compared against.

Usage: bench_sink.py [PORT]  (default 0: any free port). Prints the port on stdout once listening.
From Python: `with Sink() as sink: sink.url` (it waits for that line)."""
import json
import os
import re
import select
import socket
import socketserver
import subprocess
import sys
import time
import urllib.parse
from xml.sax.saxutils import escape

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_python import photo_list_json, photo_list_xml  # noqa: E402

SEARCH_PHOTOS = 500
XML_HEAD = b'<?xml version="1.0" encoding="utf-8" ?>\n'
XML_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*\Z")


def build_bodies():
    """Every answer that does not depend on the request, serialised once."""
    return {
        ("search", "xml"): photo_list_xml(SEARCH_PHOTOS, pages=71, total=35211).encode("utf-8"),
        ("search", "json"): photo_list_json(SEARCH_PHOTOS, pages=71, total=35211).encode("utf-8"),
        ("ok", "xml"): XML_HEAD + b'<rsp stat="ok">\n</rsp>\n',
        ("ok", "json"): b'{"stat":"ok"}',
        ("upload", "xml"): XML_HEAD + b'<rsp stat="ok">\n<photoid>1</photoid>\n</rsp>\n',
        ("replace", "xml"): XML_HEAD + b'<rsp stat="ok">\n<photoid secret="abcdef0123" originalsecret="0123abcdef">1</photoid>\n</rsp>\n',
    }


BODIES = build_bodies()


def echo_pairs(params):
    """The arguments flickr.test.echo sends back: not the OAuth ones, and only names that can
    be XML element names (so the answer stays well-formed), as flickr-sandbox does."""
    return [(k, v) for k, v in params if not k.startswith("oauth_") and XML_NAME.match(k)]


def echo_xml(params):
    lines = "".join("<%s>%s</%s>\n" % (k, escape(v), k) for k, v in echo_pairs(params))
    return XML_HEAD + ('<rsp stat="ok">\n' + lines + "</rsp>\n").encode("utf-8")


def echo_json(params):
    answer = {k: {"_content": v} for k, v in echo_pairs(params)}
    answer["stat"] = "ok"
    return json.dumps(answer, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def rest_answer(params):
    """(content type, body) for a REST call's parameters, chosen by `method` and `format`."""
    p = dict(params)  # the last occurrence wins, as Flickr
    method = p.get("method", "")
    if p.get("format") != "json":
        if method == "flickr.test.echo":
            return "text/xml; charset=utf-8", echo_xml(params)
        kind = "search" if method == "flickr.photos.search" else "ok"
        return "text/xml; charset=utf-8", BODIES[(kind, "xml")]
    if method == "flickr.test.echo":
        body = echo_json(params)
    else:
        body = BODIES[("search" if method == "flickr.photos.search" else "ok", "json")]
    if p.get("nojsoncallback") == "1":
        return "application/json; charset=utf-8", body
    callback = p.get("jsoncallback", "jsonFlickrApi").encode("utf-8")
    return "text/javascript; charset=utf-8", callback + b"(" + body + b")"


class Handler(socketserver.StreamRequestHandler):
    """One connection: requests answered in turn until the client closes it or asks to."""

    def setup(self):
        super().setup()
        # Each answer goes out in one write; no delay waiting to coalesce.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def handle(self):
        try:
            while self.one_request():
                pass
        except (ConnectionError, ValueError):
            pass  # a client that went away or spoke nonsense: drop the connection

    def one_request(self):
        line = self.rfile.readline(1 << 16)
        if not line.strip():
            return False
        verb, target, version = line.decode("latin-1").split()
        headers = self.read_headers()
        path, _, query = target.partition("?")
        if path.startswith("/services/upload") or path.startswith("/services/replace"):
            self.read_body(headers, keep=False)
            kind = "upload" if path.startswith("/services/upload") else "replace"
            status, ctype, body = "200 OK", "text/xml; charset=utf-8", BODIES[(kind, "xml")]
        elif path in ("/services/rest", "/services/rest/"):
            form = self.read_body(headers, keep=True)
            params = urllib.parse.parse_qsl(query, keep_blank_values=True)
            if form and "x-www-form-urlencoded" in headers.get("content-type", ""):
                params += urllib.parse.parse_qsl(form.decode("utf-8"), keep_blank_values=True)
            ctype, body = rest_answer(params)
            status = "200 OK"
        else:
            self.read_body(headers, keep=False)
            status, ctype, body = "404 Not Found", "text/plain; charset=utf-8", b"not found\n"
        keep_alive = version == "HTTP/1.1" and headers.get("connection", "").lower() != "close"
        self.send(status, ctype, body, keep_alive)
        return keep_alive

    def read_headers(self):
        headers = {}
        while True:
            line = self.rfile.readline(1 << 16)
            if line in (b"\r\n", b"\n", b""):
                return headers
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()

    def read_body(self, headers, keep):
        """The request body (kept only if `keep`; else read and thrown away 1 MiB at a time)."""
        kept = []
        if "chunked" in headers.get("transfer-encoding", "").lower():
            while True:
                size = int(self.rfile.readline(1 << 16).split(b";")[0].strip(), 16)
                if size == 0:
                    self.read_headers()  # trailers, up to the blank line
                    break
                self.read_exactly(size, kept if keep else None)
                self.rfile.readline(1 << 16)  # the CRLF after the chunk
        else:
            self.read_exactly(int(headers.get("content-length", "0")), kept if keep else None)
        return b"".join(kept)

    def read_exactly(self, n, into):
        while n > 0:
            piece = self.rfile.read(min(n, 1 << 20))
            if not piece:
                raise ConnectionError("body cut short")
            n -= len(piece)
            if into is not None:
                into.append(piece)

    def send(self, status, ctype, body, keep_alive):
        head = ("HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n%s\r\n"
                % (status, ctype, len(body), "" if keep_alive else "Connection: close\r\n")).encode("latin-1")
        # Head and body in one system call without copying the (up to ~200 KB) body.
        sent = self.connection.sendmsg([head, body])
        if sent < len(head) + len(body):
            self.connection.sendall((head + body)[sent:])


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64


def serve(port):
    server = Server(("127.0.0.1", port), Handler)
    # Listening from here on (the constructor bound and listened): the harness waits for this line.
    print(server.server_address[1], flush=True)
    server.serve_forever()


def read_line(proc, deadline, what):
    """The next line of proc's stdout (text mode), stripped ("" at its end), waiting no later than
    `deadline` (a time.monotonic() value); RuntimeError naming `what` when nothing came by then."""
    ready, _, _ = select.select([proc.stdout], [], [], max(0, deadline - time.monotonic()))
    if not ready:
        raise RuntimeError("%s: no output before the deadline" % what)
    return proc.stdout.readline().strip()


class Sink:
    """bench_sink.py in a process of its own (its CPU time is not the client's), started when
    entered; `url` is its base URL once it has printed its port."""

    def __init__(self, timeout=30):
        self.timeout = timeout
        self.proc = None
        self.url = None

    def __enter__(self):
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__)], stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
        try:
            self.url = "http://127.0.0.1:%d" % self.wait_for_port()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.stop()

    def wait_for_port(self):
        line = read_line(self.proc, time.monotonic() + self.timeout, "bench_sink.py")
        if not line.isdigit():
            raise RuntimeError("bench_sink.py did not report its port within %d s (it printed %r)" % (self.timeout, line))
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


if __name__ == "__main__":
    serve(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
