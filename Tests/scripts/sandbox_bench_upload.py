#!/usr/bin/env python3
"""Benchmark: stream a large upload into a flickr-sandbox process and watch its memory.

Usage: sandbox_bench_upload.py PATH/TO/flickr-sandbox [GIB=2]
Starts the executable, uploads GIB gibibytes (generated on the fly, chunked transfer encoding,
OAuth-signed with oauthlib over the form fields except `photo`), samples the server's VmRSS
every 50 ms, and prints JSON: seconds, MiB/s, RSS before/peak, the answer.
"""
import json
import subprocess
import sys
import threading
import time
import uuid

import requests
from oauthlib.oauth1 import Client


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def main():
    binary = sys.argv[1]
    gib = float(sys.argv[2]) if len(sys.argv) > 2 else 2.0
    proc = subprocess.Popen([binary, "--port", "0"], stdout=subprocess.PIPE, text=True)
    try:
        info = {}
        for line in proc.stdout:
            line = line.strip()
            if line == "ready":
                break
            k, _, v = line.partition("=")
            info[k] = v
        url = info["url"] + "/services/upload/"
        fields = {"title": "benchmark", "tags": "bench"}
        client = Client(info["api_key"], client_secret=info["api_secret"], resource_owner_key=info["oauth_token"],
                        resource_owner_secret=info["oauth_token_secret"])
        form = "&".join("%s=%s" % (k, v) for k, v in fields.items())
        _, headers, _ = client.sign(url, "POST", form, {"Content-Type": "application/x-www-form-urlencoded"})
        boundary = uuid.uuid4().hex
        total = int(gib * (1 << 30))
        jpeg = bytes([0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x11, 0x08, 0x0F, 0xA0, 0x17, 0x70, 0x03, 0x01, 0x22, 0x00,
                      0x02, 0x11, 0x01, 0x03, 0x11, 0x01])
        chunk = b"\x5a" * (1 << 20)

        def body():
            for k, v in fields.items():
                yield ("--%s\r\nContent-Disposition: form-data; name=\"%s\"\r\n\r\n%s\r\n" % (boundary, k, v)).encode()
            yield ("--%s\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"big.jpg\"\r\n"
                   "Content-Type: image/jpeg\r\n\r\n" % boundary).encode()
            yield jpeg
            sent = len(jpeg)
            while sent < total:
                piece = chunk[: min(len(chunk), total - sent)]
                sent += len(piece)
                yield piece
            yield ("\r\n--%s--\r\n" % boundary).encode()

        before = rss_kib(proc.pid)
        peak = [before]
        done = threading.Event()

        def sample():
            while not done.is_set():
                peak[0] = max(peak[0], rss_kib(proc.pid))
                time.sleep(0.05)

        sampler = threading.Thread(target=sample)
        sampler.start()
        start = time.time()
        r = requests.post(url, data=body(), headers={"Authorization": headers["Authorization"],
                                                     "Content-Type": "multipart/form-data; boundary=" + boundary},
                          timeout=600)
        seconds = time.time() - start
        done.set()
        sampler.join()
        print(json.dumps({"bytes": total, "seconds": round(seconds, 2), "mib_per_s": round(total / (1 << 20) / seconds, 1),
                          "rss_before_mib": round(before / 1024, 1), "rss_peak_mib": round(peak[0] / 1024, 1),
                          "status": r.status_code, "answer": r.text.strip()}))
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    main()
