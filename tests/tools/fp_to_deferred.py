#!/usr/bin/env python3
"""Turn a frame-pointer recording (perf record -g) into one as Linux 6.19
and perf 7.0 write `perf record --call-graph fp,defer`: the user part of
each callchain comes later, in a PERF_RECORD_CALLCHAIN_DEFERRED record.

Usage: fp_to_deferred.py [--unmatched N] IN OUT

The layout (the kernel's include/uapi/linux/perf_event.h):
  * attr.defer_callchain, bit 39 of the flag word at offset 40 (after
    sigtrap, bit 38), is set on every event that samples CALLCHAIN, in the
    attrs section and in the HEADER_EVENT_DESC feature;
  * a sample whose callchain has a user part (the entries from
    PERF_CONTEXT_USER on) keeps its kernel part, then
    PERF_CONTEXT_USER_DEFERRED ((u64)-640) and a cookie;
  * a CALLCHAIN_DEFERRED record (type 22, misc PERF_RECORD_MISC_USER)
    follows: u64 cookie, u64 nr, u64 ips[nr] (PERF_CONTEXT_USER, then the
    user entries the sample had), and the sample_id_all trailer of the
    sample's task (pid/tid, time + 1 ns, and whatever else the event's
    sample_id carries, from the sample's own fields).
When the next record is a sample of the same tid with the same user part
(the task did not go back to user space in between, as far as the stack
shows), the two share one cookie and one record, after the second: the
kernel writes one record per return to user space, for every sample taken
before it.  Cookies are 0x1000 * k + cpu + 1 for the k-th record.

--unmatched N: the N-th record (from 0; default 5) is left out, so that its
samples wait for a deferred chain that never comes (perf 7 shows them
kernel-only; so must perfvtab, with a warning).  -1 leaves none out.

Records grow or shrink; the header's data size and the feature sections'
offsets follow.  Prints "samples rewritten, records written, samples left
waiting, first record left out".  Refused (exit 2): big-endian and pipe
files, compressed records, READ in sample_type, BRANCH_STACK.
Python 3 standard library only."""
import struct
import sys

from perfdata import (ATTR_SAMPLE_TYPE_AT, S_ADDR, S_IDENTIFIER, S_IP, S_TID, S_TIME,
                      data_section, event_of, feature_index, read_file_mode, records, refuse,
                      rewrite_attrs, rewrite_event_desc, write_with_data)

SAMPLE, DEFERRED = 9, 22
MISC_USER = 2

S_READ, S_CALLCHAIN, S_ID, S_CPU, S_PERIOD = 1 << 4, 1 << 5, 1 << 6, 1 << 7, 1 << 8
S_STREAM_ID, S_BRANCH_STACK = 1 << 9, 1 << 11
FLAG_SAMPLE_ID_ALL = 1 << 18
FLAG_DEFER_CALLCHAIN = 1 << 39
CONTEXT_USER = (1 << 64) - 512
CONTEXT_USER_DEFERRED = (1 << 64) - 640
CONTEXT_MAX = (1 << 64) - 4095
ATTR_FLAGS_AT = 40


def deferred_attr(attr):
    """The attr with defer_callchain set; None when it samples no callchain."""
    sample_type, = struct.unpack_from('<Q', attr, ATTR_SAMPLE_TYPE_AT)
    if not sample_type & S_CALLCHAIN:
        return None
    if sample_type & (S_READ | S_BRANCH_STACK):
        refuse('an event samples READ or BRANCH_STACK (not handled)')
    flags, = struct.unpack_from('<Q', attr, ATTR_FLAGS_AT)
    if not flags & FLAG_SAMPLE_ID_ALL:
        refuse('an event has no sample_id_all: its deferred records would name no task')
    out = bytearray(attr)
    struct.pack_into('<Q', out, ATTR_FLAGS_AT, flags | FLAG_DEFER_CALLCHAIN)
    return bytes(out)


class Sample:
    """The fields of a sample the rewrite needs."""

    def __init__(self, rec, sample_type):
        self.rec = rec
        self.sample_type = sample_type
        fields = {}
        at = 8
        for bit, name in ((S_IDENTIFIER, 'identifier'), (S_IP, 'ip'), (S_TID, 'pid_tid'),
                          (S_TIME, 'time'), (S_ADDR, 'addr'), (S_ID, 'id'),
                          (S_STREAM_ID, 'stream_id'), (S_CPU, 'cpu'), (S_PERIOD, 'period')):
            if sample_type & bit:
                fields[name] = rec[at:at + 8]
                at += 8
        self.fields = fields
        self.chain_at = at
        nr, = struct.unpack_from('<Q', rec, at)
        self.chain = list(struct.unpack_from('<%dQ' % nr, rec, at + 8))
        self.after_chain = at + 8 + 8 * nr
        self.tid = struct.unpack_from('<I', fields['pid_tid'], 4)[0] if 'pid_tid' in fields else -1
        self.time = struct.unpack_from('<Q', fields['time'])[0] if 'time' in fields else None
        self.cpu = struct.unpack_from('<I', fields['cpu'])[0] if 'cpu' in fields else 0
        self.user = None
        if CONTEXT_USER in self.chain:
            start = self.chain.index(CONTEXT_USER)
            self.kernel_part = self.chain[:start]
            self.user = self.chain[start + 1:]
            for i, v in enumerate(self.user):
                if v >= CONTEXT_MAX:
                    refuse('a marker after PERF_CONTEXT_USER (a guest chain?): not handled')

    def with_cookie(self, cookie):
        chain = self.kernel_part + [CONTEXT_USER_DEFERRED, cookie]
        body = (self.rec[8:self.chain_at] + struct.pack('<Q', len(chain)) +
                struct.pack('<%dQ' % len(chain), *chain) + self.rec[self.after_chain:])
        typ, misc = struct.unpack_from('<IH', self.rec, 0)
        return struct.pack('<IHH', typ, misc, 8 + len(body)) + body

    def trailer(self):
        """The sample_id_all trailer of a record of this sample's task, one
        nanosecond after it."""
        out = b''
        st = self.sample_type
        if st & S_TID:
            out += self.fields['pid_tid']
        if st & S_TIME:
            out += struct.pack('<Q', self.time + 1)
        for bit, name in ((S_ID, 'id'), (S_STREAM_ID, 'stream_id'), (S_CPU, 'cpu'),
                          (S_IDENTIFIER, 'identifier')):
            if st & bit:
                out += self.fields[name]
        return out


def deferred_record(cookie, sample):
    ips = [CONTEXT_USER] + sample.user
    body = struct.pack('<QQ', cookie, len(ips)) + struct.pack('<%dQ' % len(ips), *ips)
    body += sample.trailer()
    return struct.pack('<IHH', DEFERRED, MISC_USER, 8 + len(body)) + body


def main():
    args = sys.argv[1:]
    unmatched = 5
    if len(args) == 4 and args[0] == '--unmatched':
        unmatched = int(args[1])
        args = args[2:]
    if len(args) != 2:
        refuse('usage: fp_to_deferred.py [--unmatched N] IN OUT')
    src, dst = args
    b = read_file_mode(src)
    events = rewrite_attrs(b, deferred_attr)
    data_offset, data_size = data_section(b)
    features, _ = feature_index(b, data_offset + data_size)
    rewrite_event_desc(b, features, deferred_attr)
    # the records, then the samples to rewrite among them
    recs = []
    for at, rtype, _misc, size in records(b, src):
        if rtype == DEFERRED:
            refuse('%s has CALLCHAIN_DEFERRED records already' % src)
        rec = bytes(b[at:at + size])
        sample = None
        if rtype == SAMPLE:
            e = event_of(rec, events)
            if e.rewritten:
                sample = Sample(rec, e.sample_type)
                if sample.user is None:
                    sample = None
        recs.append((rec, sample))
    out = bytearray()
    rewritten = written = waiting = 0
    first_left_out = None
    pending = []            # samples sharing the cookie to come
    for i, (rec, sample) in enumerate(recs):
        if sample is None:
            out += rec
            continue
        if not pending:
            cookie = 0x1000 * (written + 1) + sample.cpu + 1
        out += sample.with_cookie(cookie)
        rewritten += 1
        pending.append(sample)
        nxt = recs[i + 1][1] if i + 1 < len(recs) else None
        if nxt is not None and nxt.tid == sample.tid and nxt.user == sample.user:
            continue        # the next sample shares this cookie
        if written == unmatched:
            first_left_out = written
            waiting += len(pending)
        else:
            out += deferred_record(cookie, sample)
        written += 1
        pending = []
    write_with_data(dst, b, out)
    print('%d %d %d %s' % (rewritten, written - (first_left_out is not None), waiting,
                           first_left_out if first_left_out is not None else '-'))


main()
