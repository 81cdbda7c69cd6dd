#!/usr/bin/env python3
"""Writes a jitdump in the other byte order: every integer field of the
header and of the records perfvtab reads (CODE_LOAD, CODE_MOVE,
CODE_DEBUG_INFO and its entries, CODE_UNWINDING_INFO) is swapped, by the
layout of tools/perf/Documentation/jitdump-specification.txt; names and
code bytes stay as they are.  Usage: jitdump_swap.py IN OUT"""
import struct
import sys

src, dst = sys.argv[1:]
data = bytearray(open(src, 'rb').read())
magic = struct.unpack_from('<I', data, 0)[0]
inp = '<' if magic == 0x4A695444 else '>'
out = '>' if inp == '<' else '<'


def swap(fmt, at):
    values = struct.unpack_from(inp + fmt, data, at)
    struct.pack_into(out + fmt, data, at, *values)
    return values


header = swap('IIIIIIQQ', 0)
at = header[2]
while len(data) - at >= 16:
    rid, total, _ = swap('IIQ', at)
    if total < 16 or total > len(data) - at:
        break
    body = at + 16
    if rid == 0:
        swap('IIQQQQ', body)
    elif rid == 1:
        swap('IIQQQQQ', body)
    elif rid == 2:
        _, nr = swap('QQ', body)
        p = body + 16
        for _ in range(nr):
            swap('QII', p)
            p = data.index(b'\0', p + 16) + 1
    elif rid == 4:
        swap('QQQ', body)
    at += total
open(dst, 'wb').write(data)
