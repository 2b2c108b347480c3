#!/usr/bin/env python3
"""Runs `flickr --sandbox SCRIPT` on a pseudo-terminal and checks that an upload without a
progress callback draws the terminal progress bar up to 100 %.  Usage: progress_pty.py FLICKR SCRIPT"""
import sys

import pexpect

flickr, script = sys.argv[1], sys.argv[2]
child = pexpect.spawn(flickr, ["--sandbox", script], encoding="utf-8", timeout=60,
                      env={"PATH": "/usr/bin:/bin", "HOME": "/tmp", "TERM": "xterm"})
child.expect(r"uploading \[#+\] 100%")
child.expect("uploaded ")
child.expect(pexpect.EOF)
child.close()
sys.exit(child.exitstatus or 0)
