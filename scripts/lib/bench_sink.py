#!/usr/bin/env python3
"""A discarding HTTP receiver for scripts/bench: reads POST bodies in 1 MiB pieces, throws them
away and answers a Flickr-shaped upload success. Isolates the client's upload throughput from
the sandbox's disk. Usage: bench_sink.py PORT"""
import http.server, socketserver, sys
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        n = int(self.headers.get("Content-Length", 0)); left = n
        while left > 0:
            b = self.rfile.read(min(left, 1 << 20))
            if not b: break
            left -= len(b)
        body = b'<?xml version="1.0" encoding="utf-8" ?>\n<rsp stat="ok">\n<photoid>1</photoid>\n</rsp>\n'
        self.send_response(200); self.send_header("Content-Type", "text/xml"); self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
    def log_message(self, *a): pass
class S(socketserver.ThreadingMixIn, http.server.HTTPServer): daemon_threads = True
S(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
