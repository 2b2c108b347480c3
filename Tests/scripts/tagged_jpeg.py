#!/usr/bin/env python3
"""Writes a small JPEG (Pillow) whose metadata a photo manager could have written (ExifTool):
EXIF DateTimeOriginal and GPS, XMP dc:title, dc:description and dc:subject, IPTC ObjectName and
Keywords (which XMP overrides). Usage: tagged_jpeg.py OUT.jpg"""
import subprocess
import sys

from PIL import Image

out = sys.argv[1]
Image.new("RGB", (64, 48), (200, 100, 50)).save(out, quality=80)
subprocess.run(["exiftool", "-q", "-overwrite_original", "-charset", "iptc=utf8",
                "-DateTimeOriginal=2019:07:02 14:03:05",
                "-XMP-dc:Title=Harbour at dusk", "-IPTC:ObjectName=Harbour (IPTC)",
                "-XMP-dc:Description=Boats, Reykjavík",
                "-XMP-dc:Subject=harbour", "-XMP-dc:Subject=city trip", "-XMP-dc:Subject=places|Iceland|Reykjavík",
                "-IPTC:Keywords=only in IPTC",
                "-GPSLatitude=64.1466", "-GPSLatitudeRef=N", "-GPSLongitude=21.9426", "-GPSLongitudeRef=W", out],
               check=True, timeout=60)
