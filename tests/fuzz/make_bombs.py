#!/usr/bin/python3
"""Writes small perf.data files whose fields ask the reader for far more
memory or time than their size justifies ("decompression bombs" of the
format), one per kind, into OUTDIR, and prints one line per file:

    name<TAB>what it tries<TAB>text every table's error must hold, or -

Made from tests/bad_input/base.data (a valid little-endian file):

  ids_overlap   20000 attrs whose id lists all point at the same whole
                file: each list is in bounds, together they are 20000x
                the file (an allocation the file's size does not bound)

  event_update_scan  a pipe-mode file: 64 HEADER_ATTR records of 8000 ids
                each, then 100000 EVENT_UPDATE records naming an id no event
                has (each one a search through every id: time quadratic in
                the file's size)

  pipe_ids      a pipe-mode file of 2100 HEADER_ATTR records of 8000 ids
                each (134 MB): more ids than the reader indexes (2^24)

Usage: make_bombs.py BASE OUTDIR
"""
import struct
import sys


def ids_overlap(base):
    attr_size = struct.unpack_from("<Q", base, 16)[0]
    attrs_off, attrs_size = struct.unpack_from("<QQ", base, 24)
    entry = bytearray(base[attrs_off:attrs_off + attr_size])
    nr = 20000
    new_off = len(base)
    total = new_off + nr * attr_size
    span = total & ~7
    struct.pack_into("<QQ", entry, attr_size - 16, 0, span)
    out = bytearray(base) + bytes(entry) * nr
    struct.pack_into("<QQ", out, 24, new_off, nr * attr_size)
    return out


def record(rtype, body):
    return struct.pack("<IHH", rtype, 0, 8 + len(body)) + body


def event_update_scan(base):
    out = bytearray(b"PERFILE2" + struct.pack("<Q", 16))
    attr = bytearray(128)
    struct.pack_into("<IIQQQ", attr, 0, 1, 128, 0, 4000, 0x107)  # software cpu-clock, IP|TID|TIME|ID... 
    next_id = 1
    for _ in range(64):
        ids = struct.pack("<8000Q", *range(next_id, next_id + 8000))
        next_id += 8000
        out += record(64, bytes(attr) + ids)
    update = record(78, struct.pack("<QQ", 2, 1 << 60) + b"bomb\0\0\0\0")
    out += update * 100000
    return out


def pipe_ids(base):
    out = bytearray(b"PERFILE2" + struct.pack("<Q", 16))
    attr = bytearray(128)
    struct.pack_into("<IIQQQ", attr, 0, 1, 128, 0, 4000, 0x107)
    ids = struct.pack("<8000Q", *range(1, 8001))
    out += record(64, bytes(attr) + ids) * 2100
    return out


def main():
    base = open(sys.argv[1], "rb").read()
    outdir = sys.argv[2]
    for name, make, what, expect in [
        ("ids_overlap", ids_overlap, "20000 attrs whose id lists all cover the whole file",
         "ids to more than"),
        ("event_update_scan", event_update_scan,
         "100000 EVENT_UPDATE records, each searching 512000 ids", "-"),
        ("pipe_ids", pipe_ids, "2100 HEADER_ATTR records of 8000 ids: more than 2^24 ids",
         "ids to more than"),
    ]:
        with open(f"{outdir}/{name}.data", "wb") as f:
            f.write(make(base))
        print(f"{name}\t{what}\t{expect}")


if __name__ == "__main__":
    main()
