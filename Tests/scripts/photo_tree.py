#!/usr/bin/env python3
"""Writes a folder of small distinct JPEGs (Pillow) for push tests, then gives every file of each
folder keywords and a date taken the way a photo manager writes them (one ExifTool run).
Usage: photo_tree.py ROOT SALT FOLDER=COUNT...   (FOLDER "." is ROOT itself)"""
import os
import subprocess
import sys

from PIL import Image

root, salt = sys.argv[1], sys.argv[2]
n = 0
for spec in sys.argv[3:]:
    folder, count = spec.rsplit("=", 1)
    path = os.path.join(root, folder)
    os.makedirs(path, exist_ok=True)
    names = []
    for i in range(int(count)):
        # Distinct bytes per file and per salt: the JPEG's comment names both.
        img = Image.new("RGB", (8, 8), ((n * 37) % 256, (n * 91) % 256, 128))
        name = os.path.join(path, "p%04d.jpg" % i)
        img.save(name, quality=90, comment=("%s %d" % (salt, n)).encode())
        names.append(name)
        n += 1
    if names:
        subprocess.run(["exiftool", "-q", "-overwrite_original", "-DateTimeOriginal=2019:07:02 14:03:05",
                        "-XMP-dc:Subject=trip", "-XMP-dc:Subject=places|Iceland|Reykjavik"] + names, check=True, timeout=120)
