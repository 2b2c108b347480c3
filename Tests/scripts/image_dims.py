#!/usr/bin/env python3
"""Decodes each image with Pillow (an independent decoder) and prints `FORMAT WIDTH HEIGHT` per
file (`ERROR message` when it does not decode).  Usage: image_dims.py FILE..."""
import sys

from PIL import Image

for path in sys.argv[1:]:
    try:
        with Image.open(path) as img:
            img.load()  # every pixel decoded, not only the header
            print(img.format, img.width, img.height)
    except Exception as e:  # noqa: BLE001 — reported per file
        print("ERROR", type(e).__name__, str(e).replace("\n", " "))
