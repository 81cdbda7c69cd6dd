#!/usr/bin/python3
"""Rewrite a file-mode perf.data (either byte order, compressed or not) with
its records in COMPRESSED2 records framed as perf 6.16's writer frames them
when it goes wrong (hotspot #736; the bug came with commit 208c0e168344
"perf record: Add 8-byte aligned event type PERF_RECORD_COMPRESSED2", and
"perf record: Fix multiple PERF_RECORD_COMPRESSED2 records per push" names
it).  perf's record__pushfn compressed a push with
zstd_compress_stream_to_records, which writes one record per 65519 bytes of
zstd output (header.size 16 + those bytes, unpadded, data_size unwritten),
and then rewrote the first record's header to describe the whole push:
data_size = all the bytes written - 16, header.size = that + 16 rounded up
to 8, cut to 16 bits; the padding it meant to write after the push failed.

Usage: compressed2_sizes.py IN OUT

The records of IN's data section (taken out of its COMPRESSED containers
with libzstd through ctypes) are cut, in order, into pushes; each push is
one zstd frame made of raw blocks (written here: no compressor needed, and
its length is exact) in COMPRESSED2 records of one of these shapes:
  size0   one record of 65529-65535 bytes: header.size 0 (65536 cut to 16
          bits), data_size right, no padding            (data_size > size)
  multi   a push of over 65519 zstd bytes: the first record with the
          push's data_size and its cut header.size, then records with their
          own header.size and data_size 3, then 0x0123456789abcdef
          (never written by perf: anything), no padding  (data_size > size)
  padded  header.size 8 to 15 bytes past the data and its padding, zeros:
          perf reads data_size bytes                     (data_size < size)
  normal  as perf writes it when all goes well
The shapes come in that order: size0 and multi when there are records
enough (at least 170000 bytes), then padded and normal pushes alternate.
What follows the data section (the feature sections) moves with it.

Prints one line per record written: its file offset, shape, header.size,
data_size.  Python 3 standard library, plus libzstd for compressed input.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from perf_to_big_endian import libzstd, decompress_each  # noqa: E402

SUB_RECORD_DATA = 65519        # perf: PERF_SAMPLE_MAX_SIZE - 16 - 1
ZSTD_MAGIC = 0xFD2FB528
WINDOW_128K = 7 << 3           # window descriptor: 2^(10+7)
RAW_BLOCK_MAX = 1 << 16


class Refuse(Exception):
    pass


def zstd_frame(data, e, extra_empty_blocks=0):
    """data as one zstd frame of raw blocks; each empty block adds 3 bytes."""
    out = bytearray(struct.pack('<I', ZSTD_MAGIC))
    out += bytes([0x00, WINDOW_128K])
    for _ in range(extra_empty_blocks):
        out += (0).to_bytes(3, 'little')
    pieces = [data[i:i + RAW_BLOCK_MAX] for i in range(0, len(data), RAW_BLOCK_MAX)] or [b'']
    for k, piece in enumerate(pieces):
        last = 1 if k == len(pieces) - 1 else 0
        out += (last | len(piece) << 3).to_bytes(3, 'little')
        out += piece
    return bytes(out)


def records_of(src, e, start, end):
    """The data section's records, decompressed, as one byte string."""
    out, containers, at = [], [], start
    while at < end:
        typ, misc, size = struct.unpack_from(e + 'IHH', src, at)
        if size < 8 or end - at < size:
            raise Refuse('record at 0x%x has size %d' % (at, size))
        if typ in (81, 83):
            body = src[at + 8:at + size] if typ == 81 else \
                src[at + 16:at + 16 + struct.unpack_from(e + 'Q', src, at + 8)[0]]
            containers.append((len(out), body))
            out.append(None)
        elif typ == 71:
            raise Refuse('AUXTRACE data is not moved')
        else:
            out.append(src[at:at + size])
        at += size
    if containers:
        shares = decompress_each(libzstd(), [body for _, body in containers])
        for (slot, _), share in zip(containers, shares):
            out[slot] = share
    return b''.join(out)


def cut(stream, e, target):
    """The records from the start of stream up to about target bytes."""
    at = 0
    while at < len(stream):
        size = struct.unpack_from(e + 'H', stream, at + 6)[0]
        if at and at + size > target:
            break
        at += size
    return stream[:at], stream[at:]


def header(e, size, data_size):
    return struct.pack(e + 'IHHQ', 83, 0, size & 0xffff, data_size)


def push_size0(stream, e):
    """Records whose frame makes a 65529-65535 byte record."""
    push, rest = cut(stream, e, 65300)
    frame = zstd_frame(push, e)
    need = 65529 - 16 - len(frame)
    if need < 0:
        raise Refuse('the first records do not fit a size0 push')
    frame = zstd_frame(push, e, (need + 2) // 3)
    total = 16 + len(frame)
    assert 65529 <= total <= 65535
    return [('size0', header(e, total + (-total & 7), len(frame)) + frame)], rest


def push_multi(stream, e):
    push, rest = cut(stream, e, 100000)
    frame = zstd_frame(push, e)
    chunks = [frame[i:i + SUB_RECORD_DATA] for i in range(0, len(frame), SUB_RECORD_DATA)]
    if len(chunks) < 2:
        raise Refuse('a multi push needs over %d zstd bytes' % SUB_RECORD_DATA)
    total = sum(16 + len(c) for c in chunks)
    garbage = [3, 0x0123456789abcdef]
    out = [('multi', header(e, total + (-total & 7), total - 16) + chunks[0])]
    for k, c in enumerate(chunks[1:]):
        out.append(('multi', header(e, 16 + len(c), garbage[k % 2]) + c))
    return out, rest


def push_simple(stream, e, shape):
    push, rest = cut(stream, e, 6000)
    frame = zstd_frame(push, e)
    pad = -(16 + len(frame)) & 7
    extra = 8 + len(frame) % 8 if shape == 'padded' else 0
    rec = header(e, 16 + len(frame) + pad + extra, len(frame)) + frame + bytes(pad + extra)
    return [(shape, rec)], rest


def rewrite(src):
    magic = src[:8]
    if magic == b'PERFILE2':
        e = '<'
    elif magic == b'2ELIFREP':
        e = '>'
    else:
        raise Refuse('not a file-mode perf.data')
    data_off, data_size = struct.unpack_from(e + 'QQ', src, 40)
    stream = records_of(src, e, data_off, data_off + data_size)
    records = []
    if len(stream) >= 170000:
        for make in (push_size0, push_multi):
            recs, stream = make(stream, e)
            records += recs
    k = 0
    while stream:
        recs, stream = push_simple(stream, e, 'padded' if k % 2 == 0 else 'normal')
        records += recs
        k += 1
    data = b''.join(r for _, r in records)
    delta = len(data) - data_size
    out = bytearray(src[:data_off]) + data + src[data_off + data_size:]
    struct.pack_into(e + 'Q', out, 48, len(data))
    # the feature index follows the data section; its sections move too
    bits = struct.unpack_from(e + '4Q', src, 72)
    nr = sum(bin(b).count('1') for b in bits)
    index = data_off + len(data)
    for i in range(nr):
        off = struct.unpack_from(e + 'Q', out, index + 16 * i)[0]
        if off >= data_off + data_size:
            struct.pack_into(e + 'Q', out, index + 16 * i, off + delta)
    lines, at = [], data_off
    for shape, r in records:
        size, dsize = struct.unpack_from(e + 'HQ', r, 6)[0], struct.unpack_from(e + 'Q', r, 8)[0]
        lines.append('%d %s %d %d' % (at, shape, size, dsize))
        at += len(r)
    return bytes(out), lines


def main(argv):
    if len(argv) != 3:
        sys.stderr.write('usage: compressed2_sizes.py IN OUT\n')
        return 2
    with open(argv[1], 'rb') as fh:
        src = fh.read()
    try:
        out, lines = rewrite(src)
    except Refuse as err:
        sys.stderr.write('compressed2_sizes: %s: %s\n' % (argv[1], err))
        return 2
    with open(argv[2], 'wb') as fh:
        fh.write(out)
    print('\n'.join(lines))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
