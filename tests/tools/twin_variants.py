#!/usr/bin/python3
"""Writes copies of little-endian file-mode perf.data files whose record
stream breaks perf's round rule, or is damaged, for tests/t_pushdown_twins.sh:

    twin_variants.py OUTDIR FILE...

For each FILE with records, into OUTDIR (one path printed per line):
  NAME.reversed.data   the rounds (the records up to each FINISHED_ROUND)
                       in reverse order: every round runs backwards
  NAME.late_round.data the last round moved to the middle of the stream
  NAME.late_record.data the last record of the last round that ends with
                       a SAMPLE moved to just after the first FINISHED_ROUND
                       (one record far out of place, the rest in order)
  NAME.flipped.K.data  K = 1..3: bytes of the data section changed, at
                       places and to values drawn from a generator seeded
                       with K (fixed: the same files every run)
  NAME.cut.data        the data section's last 100 bytes zeroed: a record
                       cut short before the end the header states
  NAME.time_edge.data  (events sharing one sample_type with ID, several of
                       them) the first SAMPLE's time set to 2^63, which SQL
                       reads as the lowest INTEGER, and the last SAMPLE's id
                       to one no event has: a NULL time, lower still
The header, attrs and feature sections are copied as they are; only the data
section's bytes move.  Stdlib only.
"""
import os
import random
import struct
import sys

FINISHED_ROUND = 3
SAMPLE = 9


def records(data, begin, end):
    """(offset, type, size) of each record in [begin, end), up to damage."""
    out = []
    at = begin
    while end - at >= 8:
        rtype, _misc, size = struct.unpack_from('<IHH', data, at)
        if size < 8 or size > end - at:
            break
        out.append((at, rtype, size))
        at += size
    return out


def rounds(data, recs):
    """The records as rounds: each ends with its FINISHED_ROUND; what
    follows the last one is a round of its own."""
    out, cur = [], []
    for at, rtype, size in recs:
        cur.append(data[at:at + size])
        if rtype == FINISHED_ROUND:
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


SAMPLE_IDENTIFIER, SAMPLE_IP, SAMPLE_TID, SAMPLE_TIME, SAMPLE_ADDR, SAMPLE_ID = (
    1 << 16, 1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 6)


def sample_layout(data):
    """(offset of TIME, offset of the id) in a SAMPLE, when every event has
    the same sample_type with TIME and ID or IDENTIFIER and there are
    several events; else None."""
    # each entry of the attrs section: the attr, then its ids' section
    entry, attrs_at, attrs_size = struct.unpack_from('<QQQ', data, 16)
    if entry < 48 or attrs_size < 2 * entry:
        return None
    types = {struct.unpack_from('<Q', data, attrs_at + k * entry + 24)[0]
             for k in range(attrs_size // entry)}
    if len(types) != 1:
        return None
    t = types.pop()
    if not t & SAMPLE_TIME or not t & (SAMPLE_ID | SAMPLE_IDENTIFIER):
        return None
    words = lambda bits: bin(t & bits).count('1')
    time_at = 8 + 8 * words(SAMPLE_IDENTIFIER | SAMPLE_IP | SAMPLE_TID)
    id_at = 8 if t & SAMPLE_IDENTIFIER else time_at + 8 + 8 * words(SAMPLE_ADDR)
    return time_at, id_at


def write(path, data, begin, end, body):
    assert len(body) == end - begin
    with open(path, 'wb') as f:
        f.write(data[:begin] + body + data[end:])
    print(path)


def main():
    outdir, files = sys.argv[1], sys.argv[2:]
    for src in files:
        data = open(src, 'rb').read()
        if data[:8] != b'PERFILE2':
            continue
        begin, size = struct.unpack_from('<QQ', data, 40)
        end = begin + size
        recs = records(data, begin, end)
        if not recs:
            continue
        name = os.path.join(outdir, os.path.basename(src).replace('.data', ''))
        rs = rounds(data, recs)
        tail = data[recs[-1][0] + recs[-1][2]:end]
        if len(rs) >= 3:
            write(name + '.reversed.data', data, begin, end,
                  b''.join(b''.join(r) for r in reversed(rs)) + tail)
            moved = rs[:len(rs) // 2] + [rs[-1]] + rs[len(rs) // 2:-1]
            write(name + '.late_round.data', data, begin, end,
                  b''.join(b''.join(r) for r in moved) + tail)
            late = next((i for i in range(len(rs) - 1, 0, -1)
                         if len(rs[i]) >= 2 and struct.unpack_from('<I', rs[i][-2])[0] == SAMPLE),
                        None)
            if late is not None:
                moved = [list(r) for r in rs]
                rec = moved[late].pop(-2)
                moved[0].append(rec)
                write(name + '.late_record.data', data, begin, end,
                      b''.join(b''.join(r) for r in moved) + tail)
        for k in (1, 2, 3):
            rng = random.Random(k)
            body = bytearray(data[begin:end])
            for _ in range(1 + len(body) // 20000):
                body[rng.randrange(len(body))] = rng.randrange(256)
            write('%s.flipped.%d.data' % (name, k), data, begin, end, bytes(body))
        if size > 200:
            body = data[begin:end - 100] + bytes(100)
            write(name + '.cut.data', data, begin, end, body)
        layout = sample_layout(data)
        samples = [(at, size) for at, rtype, size in recs if rtype == SAMPLE]
        if layout and len(samples) >= 2:
            time_at, id_at = layout
            body = bytearray(data[begin:end])
            first, last = samples[0], samples[-1]
            if max(time_at, id_at) + 8 <= min(first[1], last[1]):
                struct.pack_into('<Q', body, first[0] - begin + time_at, 1 << 63)
                struct.pack_into('<Q', body, last[0] - begin + id_at, 0x7fffffffdeadbeef)
                write(name + '.time_edge.data', data, begin, end, bytes(body))


main()
