#!/usr/bin/env python3
"""Turn a frame-pointer recording (perf record -g) into a --call-graph lbr one,
as a machine that can record LBR call stacks would have written it.

Usage: fp_to_lbr.py [--depth N] [--no-hw-idx] [--keep-user] IN OUT

perf record --call-graph lbr (perf 6.1) sets PERF_SAMPLE_BRANCH_STACK in
sample_type and branch_sample_type = USER | CALL_STACK | NO_FLAGS |
NO_CYCLES | HW_INDEX.  Every event that samples CALLCHAIN gets that, in the
attrs section and in the HEADER_EVENT_DESC feature (--no-hw-idx: without
HW_INDEX, as kernels before 5.7 wrote it).

Each of its samples gets a branch stack made from the user part of its
callchain (the entries after PERF_CONTEXT_USER: u0, the user ip, then the
return addresses u1 .. un):
  entry k = {from: u(k+1), to: u(k), flags: 0}, for k < min(n, depth)
The hardware's call-stack LBR holds the calls not yet returned, innermost
first: `from` a call site, `to` the function it entered.  Here `from` is the
return address the frame-pointer walk saw and `to` of entry 0 is the user
ip, not the function's entry, so that perf's reading (entry 0's to, then
every from) gives back the recorded user frames address for address; perf
reads no other `to`.  A stack deeper than --depth (default 32, Skylake's
LBR) keeps its innermost calls, as the hardware does.  hw_idx, when
present, is the top of stack, (nr - 1) mod depth (perf uses it only for
--stitch-lbr).  A sample without a user part (no PERF_CONTEXT_USER) gets an
empty branch stack.  A sample whose user part is its ip alone (the
frame-pointer walk found no caller, at a function's first instruction, say)
is left out: the calls the LBR would hold are not known.  --depth 0 keeps
every sample, each with an empty branch stack (nr 0: no call recorded).

The callchain then keeps only u0 of its user part, as the kernel's
frame-pointer walk of a binary built without frame pointers leaves it
(--keep-user: the whole user part stays, as for a frame-pointer binary
recorded with --call-graph lbr; perf ignores it either way).

Records grow; the header's data size and the feature sections' offsets
follow.  Prints "samples rewritten, samples deeper than depth, empty branch
stacks, samples left out".  Refused (exit 2): big-endian and pipe-mode files, compressed
records, sample_type with READ, an event that already samples BRANCH_STACK.
Python 3 standard library only."""
import struct
import sys

from perfdata import (ATTR_SAMPLE_TYPE_AT, S_ADDR, S_IDENTIFIER, S_IP, S_TID, S_TIME,
                      data_section, event_of, feature_index, read_file_mode, records, refuse,
                      rewrite_attrs, rewrite_event_desc, write_with_data)

SAMPLE = 9
S_READ, S_CALLCHAIN, S_ID, S_CPU, S_PERIOD = 1 << 4, 1 << 5, 1 << 6, 1 << 7, 1 << 8
S_STREAM_ID, S_RAW, S_BRANCH_STACK = 1 << 9, 1 << 10, 1 << 11
B_USER, B_CALL_STACK, B_NO_FLAGS, B_NO_CYCLES, B_HW_INDEX = 1, 1 << 11, 1 << 14, 1 << 15, 1 << 17
CONTEXT_USER = (1 << 64) - 512
CONTEXT_MAX = (1 << 64) - 4095
ATTR_BRANCH_SAMPLE_TYPE_AT = 72


class Options:
    depth = 32
    hw_idx = True
    keep_user = False


def parse_args(argv):
    o = Options()
    files = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == '--depth':
            i += 1
            o.depth = int(argv[i])
        elif a == '--no-hw-idx':
            o.hw_idx = False
        elif a == '--keep-user':
            o.keep_user = True
        else:
            files.append(a)
        i += 1
    if len(files) != 2 or o.depth < 0:
        refuse('usage: fp_to_lbr.py [--depth N] [--no-hw-idx] [--keep-user] IN OUT')
    return o, files


def lbr_attr(attr, o):
    """The attr bytes with BRANCH_STACK and the LBR call-stack filter; None
    when the event samples no callchain (left as it is)."""
    sample_type = struct.unpack_from('<Q', attr, ATTR_SAMPLE_TYPE_AT)[0]
    if not sample_type & S_CALLCHAIN:
        return None
    if sample_type & S_BRANCH_STACK:
        refuse('an event already samples BRANCH_STACK')
    if sample_type & S_READ:
        refuse('an event samples READ (not handled)')
    if len(attr) < ATTR_BRANCH_SAMPLE_TYPE_AT + 8:
        refuse('attr of %d bytes has no branch_sample_type' % len(attr))
    branch = B_USER | B_CALL_STACK | B_NO_FLAGS | B_NO_CYCLES | (B_HW_INDEX if o.hw_idx else 0)
    out = bytearray(attr)
    struct.pack_into('<Q', out, ATTR_SAMPLE_TYPE_AT, sample_type | S_BRANCH_STACK)
    struct.pack_into('<Q', out, ATTR_BRANCH_SAMPLE_TYPE_AT, branch)
    return bytes(out)


def lbr_sample(rec, sample_type, o, stats):
    """The sample with a branch stack after its callchain (and RAW)."""
    at = 8 + 8 * sum(1 for bit in (S_IDENTIFIER, S_IP, S_TID, S_TIME, S_ADDR, S_ID, S_STREAM_ID,
                                   S_CPU, S_PERIOD) if sample_type & bit)
    nr, = struct.unpack_from('<Q', rec, at)
    chain = list(struct.unpack_from('<%dQ' % nr, rec, at + 8))
    after_chain = at + 8 + 8 * nr
    raw_end = after_chain
    if sample_type & S_RAW:
        raw_size, = struct.unpack_from('<I', rec, after_chain)
        raw_end += 4 + raw_size
    user = []
    if CONTEXT_USER in chain:
        start = chain.index(CONTEXT_USER) + 1
        user = chain[start:]
        # another marker ends the user part (a guest's, say)
        for i, v in enumerate(user):
            if v >= CONTEXT_MAX:
                user = user[:i]
                break
        if not o.keep_user and len(user) > 1:
            chain = chain[:start + 1] + chain[start + len(user):]
    if len(user) == 1 and o.depth > 0:
        stats[3] += 1
        return None
    calls = max(len(user) - 1, 0)
    n = min(calls, o.depth)
    stats[0] += 1
    stats[1] += calls > o.depth
    stats[2] += n == 0
    stack = struct.pack('<Q', n)
    if o.hw_idx:
        stack += struct.pack('<Q', (n - 1) % o.depth if n else 0)
    for k in range(n):
        stack += struct.pack('<QQQ', user[k + 1], user[k], 0)
    body = (rec[8:at] + struct.pack('<Q', len(chain)) + struct.pack('<%dQ' % len(chain), *chain)
            + rec[after_chain:raw_end] + stack + rec[raw_end:])
    if 8 + len(body) > 0xffff:
        refuse('a sample would exceed 64 KiB')
    typ, misc = struct.unpack_from('<IH', rec, 0)
    return struct.pack('<IHH', typ, misc, 8 + len(body)) + body


def main():
    o, (src, dst) = parse_args(sys.argv[1:])
    b = read_file_mode(src)
    events = rewrite_attrs(b, lambda attr: lbr_attr(attr, o))
    data_offset, data_size = data_section(b)
    features, _ = feature_index(b, data_offset + data_size)
    rewrite_event_desc(b, features, lambda attr: lbr_attr(attr, o))
    out = bytearray()
    stats = [0, 0, 0, 0]
    for at, rtype, _misc, size in records(b, src):
        rec = bytes(b[at:at + size])
        if rtype == SAMPLE:
            e = event_of(rec, events)
            if e.rewritten:
                rec = lbr_sample(rec, e.sample_type, o, stats)
                if rec is None:
                    continue
        out += rec
    write_with_data(dst, b, out)
    print('%d %d %d %d' % tuple(stats))


main()
