#!/usr/bin/env python3
"""Writes a copy of a file-mode perf.data without rounds: every
FINISHED_ROUND (type 68) becomes a FINISHED_INIT (82), the same 8 bytes, so
the records stay where they are and readers must treat the file as one
without rounds (perf then sorts it whole).

    strip_rounds.py IN OUT
"""
import struct
import sys

b = bytearray(open(sys.argv[1], 'rb').read())
off, size = struct.unpack_from('<QQ', b, 40)
pos = off
while pos + 8 <= off + size:
    t, misc, sz = struct.unpack_from('<IHH', b, pos)
    if sz < 8:
        break
    if t == 68:
        struct.pack_into('<I', b, pos, 82)
    pos += sz
open(sys.argv[2], 'wb').write(b)
