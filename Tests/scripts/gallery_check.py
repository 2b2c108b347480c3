#!/usr/bin/env python3
"""Opens every page of an export's gallery in headless Chromium (Debian's `chromium`) through the
DevTools protocol, as a person would from a file manager: each page must load with no console
error, every <img> must decode (complete, with a natural width), every link into the tree must
name a file that exists, and each page must parse as HTML5 with no error (html5lib, strict).
Screenshots of the index, a set page and a photo page at 1280x800 and 390x844 go to OUT.
Prints one JSON object: {"pages": N, "problems": [...], "screenshots": [...]}; exit 0 when sound.
Usage: gallery_check.py DIR OUT"""
import base64
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

import html5lib
import websocket


def chromium(profile):
    """Starts headless Chromium with no network of its own; returns the process and a page's
    DevTools WebSocket URL."""
    proc = subprocess.Popen(
        ["chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-port=0",
         "--user-data-dir=" + profile, "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--disable-default-apps", "--allow-file-access-from-files", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    port = None
    while time.time() < deadline and port is None:
        line = proc.stderr.readline()
        if not line:
            break
        if "DevTools listening on ws://" in line:
            port = urllib.parse.urlparse(line.split("listening on ")[1].strip()).port
    if port is None:
        proc.kill()
        raise SystemExit("chromium did not start (no DevTools port within 60 s)")
    while time.time() < deadline:
        targets = json.load(urllib.request.urlopen("http://127.0.0.1:%d/json/list" % port, timeout=10))
        pages = [t for t in targets if t.get("type") == "page"]
        if pages:
            return proc, pages[0]["webSocketDebuggerUrl"]
        time.sleep(0.05)
    proc.kill()
    raise SystemExit("chromium opened no page")


class Session:
    def __init__(self, url):
        self.ws = websocket.create_connection(url, timeout=60, suppress_origin=True)
        self.next = 0
        self.events = []

    def call(self, method, **params):
        self.next += 1
        self.ws.send(json.dumps({"id": self.next, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == self.next:
                if "error" in message:
                    raise RuntimeError("%s: %s" % (method, message["error"]))
                return message.get("result", {})
            self.events.append(message)

    def wait(self, event):
        for i, e in enumerate(self.events):
            if e.get("method") == event:
                del self.events[i]
                return e
        while True:
            message = json.loads(self.ws.recv())
            if message.get("method") == event:
                return message
            self.events.append(message)

    def open(self, path):
        """Loads a page; returns the console errors it raised."""
        self.events = []
        self.call("Page.navigate", url="file://" + urllib.parse.quote(path))
        self.wait("Page.loadEventFired")
        errors = []
        for e in self.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.exceptionThrown":
                errors.append(p.get("exceptionDetails", {}).get("text", "exception"))
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                errors.append(" ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                errors.append(p["entry"].get("text", "") + " " + p["entry"].get("url", ""))
        return errors

    def evaluate(self, expression):
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        return r.get("result", {}).get("value")


def main():
    root, out = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    os.makedirs(out, exist_ok=True)
    pages = [os.path.join(root, "index.html")]
    for dirpath, _, files in os.walk(os.path.join(root, "gallery")):
        pages += [os.path.join(dirpath, f) for f in sorted(files) if f.endswith(".html")]
    problems = []
    parser = html5lib.HTMLParser(strict=True)
    for page in pages:
        with open(page, "rb") as f:
            data = f.read()
        if len(data) > 1_000_000:
            problems.append("%s: %d bytes (over 1 MB)" % (page, len(data)))
        try:
            parser.parse(data)
        except Exception as e:  # html5lib raises ParseError on the first error
            problems.append("%s: not valid HTML5: %s" % (page, e))
    with tempfile.TemporaryDirectory() as profile:
        proc, url = chromium(profile)
        try:
            s = Session(url)
            for domain in ("Page", "Runtime", "Log"):
                s.call(domain + ".enable")
            for page in pages:
                for error in s.open(page):
                    problems.append("%s: console: %s" % (page, error))
                # Images wait for their decode; an image that cannot be decoded rejects.
                state = s.evaluate("""(async () => {
                    const images = [];
                    for (const i of Array.from(document.images)) {
                        let ok = true;
                        try { await i.decode(); } catch (e) { ok = false; }
                        images.push({src: i.src, ok: ok && i.naturalWidth > 0, alt: i.getAttribute('alt')});
                    }
                    const links = Array.from(document.querySelectorAll('a[href], link[href], video[src]'))
                        .map(a => a.href || a.src);
                    return {images, links};
                })()""")
                for image in state["images"]:
                    if not image["ok"]:
                        problems.append("%s: image does not decode: %s" % (page, image["src"]))
                    if not image["alt"]:
                        problems.append("%s: image without alt text: %s" % (page, image["src"]))
                for link in state["links"]:
                    u = urllib.parse.urlparse(link)
                    if u.scheme == "file":
                        target = urllib.parse.unquote(u.path)
                        if not os.path.isfile(target) or not target.startswith(root + "/"):
                            problems.append("%s: link to no file of the tree: %s" % (page, link))
                    elif u.scheme not in ("https",):
                        problems.append("%s: link neither into the tree nor https: %s" % (page, link))
            shots = []
            sets = sorted(p for p in pages if "/gallery/sets/" in p)
            photos = sorted(p for p in pages if "/gallery/photos/" in p)
            for name, page in (("index", pages[0]), ("set", sets[0] if sets else None), ("photo", photos[0] if photos else None)):
                if page is None:
                    problems.append("no %s page to show" % name)
                    continue
                for w, h in ((1280, 800), (390, 844)):
                    s.call("Emulation.setDeviceMetricsOverride", width=w, height=h, deviceScaleFactor=1, mobile=w < 500)
                    s.open(page)
                    png = base64.b64decode(s.call("Page.captureScreenshot", format="png")["data"])
                    path = os.path.join(out, "%s-%dx%d.png" % (name, w, h))
                    with open(path, "wb") as f:
                        f.write(png)
                    shots.append(path)
        finally:
            proc.kill()
            proc.wait(timeout=30)
    print(json.dumps({"pages": len(pages), "problems": problems, "screenshots": shots}))
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
