#!/usr/bin/env python3
"""png_region.py PNG R G B TOLERANCE: how many pixels of a screenshot are
within TOLERANCE of colour (R, G, B) in every channel, and the box they lie
in ("count x0 y0 x1 y1", or "0" when none). A PNG decoder in the standard
library only (8-bit RGB or RGBA, not interlaced: what Chromium writes)."""
import struct, sys, zlib


def pixels(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, "unexpected PNG format %r" % (header,)
    bpp = 3 if colour == 2 else 4
    raw, stride = zlib.decompress(idat), width * bpp
    prev = bytearray(stride)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        for x in range(width):
            yield x, y, tuple(line[x * bpp:x * bpp + 3])
        prev = line


path, r, g, b, tolerance = sys.argv[1], *map(int, sys.argv[2:6])
count, box = 0, [None, None, None, None]
for x, y, p in pixels(path):
    if all(abs(u - v) <= tolerance for u, v in zip(p, (r, g, b))):
        count += 1
        box = [x if box[0] is None else min(box[0], x), y if box[1] is None else min(box[1], y),
               x if box[2] is None else max(box[2], x), y if box[3] is None else max(box[3], y)]
print(count, *box) if count else print(0)
