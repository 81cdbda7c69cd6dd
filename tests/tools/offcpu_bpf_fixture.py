#!/usr/bin/python3
"""Add to a little-endian file-mode perf.data the "offcpu-time" event and
samples that `perf record --off-cpu` (BPF) writes, in the layout of perf's
tools/perf/util/bpf_off_cpu.c (off_cpu_config, off_cpu_write) and
util/off_cpu.h: Debian's perf 6.1 here is built without BUILD_BPF_SKEL and
cannot record them.

Usage: offcpu_bpf_fixture.py IN OUT

The event: PERF_TYPE_SOFTWARE, config PERF_COUNT_SW_BPF_OUTPUT (10),
freq = 1, sample_freq 1, the other attr fields as IN's first event's;
sample_type IDENTIFIER|IP|TID|TIME|CPU|PERIOD|CALLCHAIN (within perf's
OFFCPU_SAMPLE_TYPES), named in HEADER_EVENT_DESC.

Its samples, appended at the end of the data section as perf writes them
when the recording ends (misc PERF_RECORD_MISC_USER): one per (thread,
user stack) of IN's sched:sched_switch samples whose prev_pid is their own
thread, in their order, the way perf writes one per key of the BPF map
(pid, tgid, stack id, state): identifier; ip = the stack's first frame;
pid = the tgid, tid = the thread; time = OFF_CPU_TIMESTAMP (~0 << 32) plus
the sample's rank (perf's dummy time, counting up, to sort last); cpu 0;
period = the off-CPU ns summed for the key (here made up: 1000003 times
the number of IN's switch-outs with that stack, plus the rank); callchain
= PERF_CONTEXT_USER then the user frames (the BPF program records the user
stack only).

--raw THRESH_NS: the samples as perf 6.14+ writes them instead, read from
perf's source (util/bpf_skel/off_cpu.bpf.c off_cpu_dump, util/bpf_off_cpu.c
off_cpu_write, util/off_cpu.h, util/evsel.c __set_offcpu_sample).  The
event samples IDENTIFIER|IP|TID|TIME|CPU|PERIOD|RAW (OFFCPU_SAMPLE_TYPES
has RAW in place of CALLCHAIN since 6.14); its raw data holds, in u64
words: the task pair, the period (off-CPU ns), nr then nr callchain
entries (PERF_CONTEXT_USER and the user stack), the cgroup id (0 here);
the kernel's u32 size before them counts 4 padding bytes after them.
The intervals are IN's: a sched_switch switch-out of the thread (with a
user stack) to its next switch-in (a SWITCH record "in" of the thread, or
a sched_switch whose next_pid it is).
  - an interval of THRESH_NS or more (--off-cpu-thresh) is a direct
    sample, inserted right after the switch-in's record, as the BPF
    program writes it at the switch-in: time and cpu the switch-in's, the
    recorded task 0/0 (the BPF output is taken in the task switching out,
    idle here), ip the last sched_switch sample's (a kernel address), misc
    KERNEL, period 1; the raw task pair tgid << 32 | tid;
  - the others are summed per (thread, user stack) and written at the end
    as perf's off_cpu_write does: time OFF_CPU_TIMESTAMP + rank, misc
    USER, ip, pid/tid, cpu and period 0; the raw task pair tid << 32 | tgid
    (perf packs it the other way round from the BPF program).

Prints one line per sample written: summed (or direct), tid, pid, time,
period and the user frames in hex, comma-separated.
"""
import struct
import sys

PERF_CONTEXT_USER = 0xfffffffffffffe00
PERF_CONTEXT_MAX = 0xfffffffffffff001      # markers are >= this
OFF_CPU_TIMESTAMP = (0xffffffffffffffff << 32) & 0xffffffffffffffff
SAMPLE_IP, SAMPLE_TID, SAMPLE_TIME, SAMPLE_ADDR = 1, 2, 4, 8
SAMPLE_READ, SAMPLE_CALLCHAIN, SAMPLE_ID, SAMPLE_CPU = 16, 32, 64, 128
SAMPLE_PERIOD, SAMPLE_STREAM_ID, SAMPLE_RAW = 256, 512, 1024
SAMPLE_IDENTIFIER = 1 << 16
OFFCPU_TYPE = (SAMPLE_IDENTIFIER | SAMPLE_IP | SAMPLE_TID | SAMPLE_TIME | SAMPLE_CPU |
               SAMPLE_PERIOD | SAMPLE_CALLCHAIN)
# perf 6.14+: RAW in place of CALLCHAIN (util/off_cpu.h)
RAW_TYPE = (SAMPLE_IDENTIFIER | SAMPLE_IP | SAMPLE_TID | SAMPLE_TIME | SAMPLE_CPU |
            SAMPLE_PERIOD | SAMPLE_RAW)
ID_FIELDS = SAMPLE_TID | SAMPLE_TIME | SAMPLE_ID | SAMPLE_STREAM_ID | SAMPLE_CPU | SAMPLE_IDENTIFIER
RECORD_SWITCH, MISC_SWITCH_OUT = 14, 1 << 13
MISC_KERNEL, MISC_USER = 1, 2
HEADER_EVENT_DESC = 12
NAME = b'offcpu-time'


def u64(b, off):
    return struct.unpack_from('<Q', b, off)[0]


def parse_sample(b, at, sample_type):
    """(pid, tid, time, callchain, raw) of a sample whose sample_type has no
    fields before RAW other than these."""
    off = at + 8
    if sample_type & SAMPLE_IDENTIFIER:
        off += 8
    if sample_type & SAMPLE_IP:
        off += 8
    pid, tid = struct.unpack_from('<II', b, off) if sample_type & SAMPLE_TID else (0, 0)
    off += 8 if sample_type & SAMPLE_TID else 0
    time = u64(b, off) if sample_type & SAMPLE_TIME else 0
    for bit in (SAMPLE_TIME, SAMPLE_ADDR, SAMPLE_ID, SAMPLE_STREAM_ID, SAMPLE_CPU, SAMPLE_PERIOD):
        if sample_type & bit:
            off += 8
    if sample_type & SAMPLE_READ:
        raise SystemExit('offcpu_bpf_fixture: READ samples are not read here')
    chain = []
    if sample_type & SAMPLE_CALLCHAIN:
        nr = u64(b, off)
        chain = list(struct.unpack_from('<%dQ' % nr, b, off + 8))
        off += 8 + 8 * nr
    raw = b''
    if sample_type & SAMPLE_RAW:
        n = struct.unpack_from('<I', b, off)[0]
        raw = b[off + 4:off + 4 + n]
    return pid, tid, time, chain, raw


def user_frames(chain):
    """The frames after PERF_CONTEXT_USER (the BPF program's user stack)."""
    if PERF_CONTEXT_USER not in chain:
        return []
    rest = chain[chain.index(PERF_CONTEXT_USER) + 1:]
    return [ip for ip in rest if ip < PERF_CONTEXT_MAX]


def sample_cpu(b, at, sample_type):
    """The CPU field of a sample (0 when not sampled)."""
    if not sample_type & SAMPLE_CPU:
        return 0
    before = (SAMPLE_IDENTIFIER, SAMPLE_IP, SAMPLE_TID, SAMPLE_TIME, SAMPLE_ADDR, SAMPLE_ID,
              SAMPLE_STREAM_ID)
    return struct.unpack_from('<I', b, at + 8 + 8 * sum(1 for bit in before if sample_type & bit))[0]


def trailer(b, at, size, sample_type):
    """(pid, tid, time, cpu) of a kernel record's sample_id_all trailer."""
    t = sample_type & ID_FIELDS
    off = at + size - 8 * bin(t).count('1')
    pid, tid = struct.unpack_from('<II', b, off) if t & SAMPLE_TID else (0, 0)
    off += 8 if t & SAMPLE_TID else 0
    time = u64(b, off) if t & SAMPLE_TIME else 0
    for bit in (SAMPLE_TIME, SAMPLE_ID, SAMPLE_STREAM_ID):
        off += 8 if t & bit else 0
    cpu = struct.unpack_from('<I', b, off)[0] if t & SAMPLE_CPU else 0
    return pid, tid, time, cpu


def raw_record(new_id, ip, pid, tid, time, cpu, period, misc, embedded):
    """A sample of the perf 6.14+ event: the fixed fields, then RAW (u32 size,
    the words, 4 padding bytes, as the kernel pads it)."""
    raw = b''.join(struct.pack('<Q', w) for w in embedded)
    body = (struct.pack('<QQIIQIIQ', new_id, ip, pid, tid, time, cpu, 0, period) +
            struct.pack('<I', len(raw) + 4) + raw + bytes(4))
    return struct.pack('<IHH', 9, misc, 8 + len(body)) + body


def raw_samples(src, data_off, data_size, attrs, ids_of, switch_attr, new_id, thresh):
    """perf 6.14+'s form (see --raw above): the data section with the direct
    samples inserted, the summed samples, and the lines to print."""
    data, lines = bytearray(), []
    pending = {}        # tid -> (switch-out time, pid, user frames)
    sums, order = {}, []
    last_ip = 0
    at, end = data_off, data_off + data_size
    while at < end:
        typ, misc, size = struct.unpack_from('<IHH', src, at)
        data += src[at:at + size]
        switched_in = None      # (tid, time, cpu)
        if typ == 9 and ids_of.get(u64(src, at + 8)) == switch_attr:
            sample_type = u64(attrs[switch_attr][0], 24)
            pid, tid, time, chain, raw = parse_sample(src, at, sample_type)
            last_ip = u64(src, at + 16)
            cpu = sample_cpu(src, at, sample_type)
            prev_pid, next_pid = (struct.unpack_from('<i', raw, o)[0] for o in (24, 56))
            frames = user_frames(chain)
            if next_pid in pending:
                switched_in = (next_pid, time, cpu)
            if prev_pid == tid and frames:
                pending[tid] = (time, pid, tuple(frames))
        elif typ == RECORD_SWITCH and not misc & MISC_SWITCH_OUT:
            pid, tid, time, cpu = trailer(src, at, size, u64(attrs[0][0], 24))
            if tid in pending:
                switched_in = (tid, time, cpu)
        if switched_in:
            tid, time, cpu = switched_in
            out_time, pid, frames = pending.pop(tid)
            delta = time - out_time
            chain = [len(frames) + 1, PERF_CONTEXT_USER] + list(frames)
            if delta >= thresh:
                # the BPF program's packing: tgid << 32 | tid
                data += raw_record(new_id, last_ip, 0, 0, time, cpu, 1, MISC_KERNEL,
                                   [pid << 32 | tid, delta] + chain + [0])
                lines.append('direct %d %d %d %d %s' % (tid, pid, time, delta,
                                                        ','.join('%x' % f for f in frames)))
            else:
                key = (tid, pid, frames)
                if key not in sums:
                    order.append(key)
                    sums[key] = 0
                sums[key] += delta
        at += size
    samples = []
    for rank, key in enumerate(order):
        tid, pid, frames = key
        time = OFF_CPU_TIMESTAMP + rank
        # perf's off_cpu_write packs the pair the other way: tid << 32 | tgid
        samples.append(raw_record(new_id, 0, 0, 0, time, 0, 0, MISC_USER,
                                  [tid << 32 | pid, sums[key], len(frames) + 1,
                                   PERF_CONTEXT_USER] + list(frames) + [0]))
        lines.append('summed %d %d %d %d %s' % (tid, pid, time, sums[key],
                                                ','.join('%x' % f for f in frames)))
    return data, samples, lines


def main(argv):
    raw_form = len(argv) == 5 and argv[1] == '--raw'
    thresh = 0
    if raw_form:
        thresh = int(argv[2])
        argv = argv[:1] + argv[3:]
    if len(argv) != 3:
        sys.stderr.write('usage: offcpu_bpf_fixture.py [--raw THRESH_NS] IN OUT\n')
        return 2
    src = open(argv[1], 'rb').read()
    if src[:8] != b'PERFILE2':
        sys.stderr.write('offcpu_bpf_fixture: %s: not a little-endian file-mode perf.data\n' % argv[1])
        return 2
    attr_size, attrs_off, attrs_size, data_off, data_size = struct.unpack_from('<5Q', src, 16)
    features = struct.unpack_from('<4Q', src, 72)
    attr_len = attr_size - 16
    attrs, ids_of = [], {}
    for k in range(attrs_size // attr_size):
        at = attrs_off + k * attr_size
        attr = src[at:at + attr_len]
        ids_off, ids_size = struct.unpack_from('<QQ', src, at + attr_len)
        ids = list(struct.unpack_from('<%dQ' % (ids_size // 8), src, ids_off))
        attrs.append((attr, ids))
        for i in ids:
            ids_of[i] = k

    # the event names (HEADER_EVENT_DESC), to find sched:sched_switch
    index_at = data_off + data_size
    sections, n = {}, 0
    for bit in range(256):
        if features[bit // 64] >> (bit % 64) & 1:
            sections[bit] = struct.unpack_from('<QQ', src, index_at + 16 * n)
            n += 1
    desc_off, desc_size = sections[HEADER_EVENT_DESC]
    desc = src[desc_off:desc_off + desc_size]
    nr_events, desc_attr_size = struct.unpack_from('<II', desc, 0)
    names, at = [], 8
    for _ in range(nr_events):
        at += desc_attr_size
        nr_ids = struct.unpack_from('<I', desc, at)[0]
        length = struct.unpack_from('<I', desc, at + 4)[0]
        names.append(desc[at + 8:at + 8 + length].split(b'\0')[0])
        at += 8 + length + 8 * nr_ids
    switch_attr = names.index(b'sched:sched_switch')

    # sched_switch samples: their user stacks, by thread
    keys, counts, last_time = [], {}, 0
    at, end = data_off, data_off + data_size
    while at < end:
        typ, size = struct.unpack_from('<I2xH', src, at)
        if typ == 9:
            ident = u64(src, at + 8)
            k = ids_of.get(ident)
            if k is not None:
                last_time = max(last_time, parse_sample(src, at, u64(attrs[k][0], 24))[2])
            if k == switch_attr:
                sample_type = u64(attrs[k][0], 24)
                pid, tid, _, chain, raw = parse_sample(src, at, sample_type)
                # sched_switch's prev_pid: the format's offset 24 (tracing data)
                prev_pid = struct.unpack_from('<i', raw, 24)[0]
                frames = user_frames(chain)
                if prev_pid == tid and frames:
                    key = (tid, pid, tuple(frames))
                    if key not in counts:
                        keys.append(key)
                    counts[key] = counts.get(key, 0) + 1
        at += size

    new_id = max(ids_of) + 1000
    attr = bytearray(attrs[0][0])
    sample_type = RAW_TYPE if raw_form else OFFCPU_TYPE
    struct.pack_into('<IIQQQ', attr, 0, 1, struct.unpack_from('<I', attr, 4)[0], 10, 1, sample_type)
    flags = u64(attr, 40) | 1 << 10              # freq
    struct.pack_into('<Q', attr, 40, flags)

    def sample(tid, pid, time, period, frames):
        chain = struct.pack('<%dQ' % (len(frames) + 2), len(frames) + 1, PERF_CONTEXT_USER, *frames)
        body = struct.pack('<QQIIQIIQ', new_id, frames[0], pid, tid, time, 0, 0, period) + chain
        samples.append(struct.pack('<IHH', 9, 2, 8 + len(body)) + body)
        lines.append('summed %d %d %d %d %s' % (tid, pid, time, period,
                                                ','.join('%x' % f for f in frames)))

    samples, lines = [], []
    data = src[data_off:data_off + data_size]
    if raw_form:
        data, samples, lines = raw_samples(src, data_off, data_size, attrs, ids_of, switch_attr,
                                           new_id, thresh)
    else:
        for rank, key in enumerate(keys):
            tid, pid, frames = key
            sample(tid, pid, OFF_CPU_TIMESTAMP + rank, 1000003 * counts[key] + rank, frames)

    # layout: header, old ids and attrs, data (+ samples), feature index and
    # sections, then the new attr section and the new event's id
    out = bytearray(src[:data_off]) + data
    out += b''.join(samples)
    new_data_size = len(out) - data_off
    index_at = len(out)
    out += bytes(16 * len(sections))
    for n, bit in enumerate(sorted(sections)):
        off, size = sections[bit]
        body = src[off:off + size]
        if bit == HEADER_EVENT_DESC:
            name = NAME + bytes(64 - len(NAME))
            body = (struct.pack('<II', nr_events + 1, desc_attr_size) + desc[8:] +
                    bytes(attr[:desc_attr_size]) + struct.pack('<II', 1, len(name)) + name +
                    struct.pack('<Q', new_id))
        struct.pack_into('<QQ', out, index_at + 16 * n, len(out), len(body))
        out += body
    id_at = len(out)
    out += struct.pack('<Q', new_id)
    new_attrs_at = len(out)
    for a, ids in attrs:
        out += a + src[attrs_off + attrs.index((a, ids)) * attr_size + attr_len:
                       attrs_off + attrs.index((a, ids)) * attr_size + attr_size]
    out += bytes(attr) + struct.pack('<QQ', id_at, 8)
    struct.pack_into('<QQ', out, 24, new_attrs_at, len(out) - new_attrs_at)
    struct.pack_into('<Q', out, 48, new_data_size)
    open(argv[2], 'wb').write(out)
    print('\n'.join(lines))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
