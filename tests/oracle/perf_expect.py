#!/usr/bin/env python3
"""Turn the output of the local `perf` tool into the expected outputs of the
perf-oracle test (tests/t_perf_oracle.sh).

    perf_expect.py PERF.DATA OUTDIR [SOURCE-LABEL]

writes into OUTDIR:
  samples.tsv   time pid tid comm cpu ip period callchain, one line per SAMPLE,
                file order
  mmaps.tsv     pid tid start len pgoff filename time cpu (MMAP and MMAP2), file
                order; time and cpu are the sample_id trailer's (trailer_cells)
  comms.tsv     pid tid comm time cpu, file order
  stats.tsv     name count, from `perf report --stats` (Aggregated stats)
  meta.tsv      key value: source label, perf version, the tids of samples
                perf names ":<tid>" (unnamed_tids)
Exit status 2 when perf refuses the file (`perf script -D` fails).  (Header
features and build-ids are tests/t_features.sh's: tests/gen/features.sh.)

Only perf's printed text is used (its decoded record lines, not its hex dumps);
the sample_type of each event (from `perf evlist -v`) decides which cells are
empty (a field the recording did not capture).  A sample's cpu is the first of
the numbers perf prints before its offset (cpu, then time, each when an event
samples it);
its comm is the name of the thread perf resolves it to (" ... thread:
comm:tid"), perf's name of that thread when it delivers the sample: in time
order, so the thread's latest COMM before it, else the name its creator had at
the FORK.  perf names a thread it knows no name for ":<tid>" (and a sample
without TID ":-1"); perfvtab's comm is NULL there, an empty cell.  Standard
library only.
"""
import os
import re
import subprocess
import sys
import tempfile

U64 = 1 << 64
CONTEXT_MIN = U64 - 4095          # PERF_CONTEXT_* markers are >= (u64)-4095


def s64(v):
    return v - U64 if v >= (1 << 63) else v


def s32(v):
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= (1 << 31) else v


def dec(b):
    return b.decode('utf-8', 'surrogateescape')


def enc(s):
    return s.encode('utf-8', 'surrogateescape')


def run_to_file(args, tmpdir, name):
    """Run perf with stdout to a temp file (perf output can be large)."""
    path = os.path.join(tmpdir, name)
    with open(path, 'wb') as out, open(path + '.err', 'wb') as err:
        rc = subprocess.call(args, stdout=out, stderr=err,
                             stdin=subprocess.DEVNULL)
    return rc, path


def run_dump(perf, data, tmpdir):
    """`perf script -D` of data into a temp file: (exit status, path).  With
    -F event (each sample's event name, which sample_rows needs), else
    without it when perf refuses that."""
    rc, dump = run_to_file([perf, 'script', '-D', '-F', 'event', '-i', data], tmpdir, 'dump')
    if rc != 0:
        rc, dump = run_to_file([perf, 'script', '-D', '-i', data], tmpdir, 'dump')
    return rc, dump


# ---------------------------------------------------------------- evlist
def parse_evlist(path):
    """[(name, set(sample_type bits))] from `perf evlist -v`; the bit FREQ
    stands for the attr's freq flag."""
    events = []
    with open(path, 'rb') as f:
        for raw in f:
            line = dec(raw.rstrip(b'\n'))
            m = re.search(r'sample_type: ([A-Z_0-9|]+)', line)
            if not m or ': ' not in line:
                continue
            name = line.split(': ', 1)[0]
            bits = set(m.group(1).split('|'))
            if re.search(r'(^|, )freq: 1(,|$)', line):
                bits.add('FREQ')
            events.append((name, bits))
    return events


# ---------------------------------------------------------- perf script -D
# "<cpu> <time> 0x<off> [0x<size>]: PERF_RECORD_<NAME>..." (prefix tokens optional)
HDR_RE = re.compile(rb'^((?:-?\d+ )*)0x([0-9a-f]+) \[0x([0-9a-f]+)\]: PERF_RECORD_([A-Z0-9_]+)(.*)$')
SAMPLE_RE = re.compile(r'^\(IP, 0x[0-9a-f]+\): (-?\d+)/(-?\d+): (0x[0-9a-f]+|0) period: (\d+) addr: (0x[0-9a-f]+|0)$')
CHAIN_RE = re.compile(rb'^\.\.\. FP chain: nr:(\d+)$')
# machine__resolve's line for a sample: the thread's name and tid
THREAD_RE = re.compile(rb'^ \.\.\. thread: (.*):(-?\d+)$')
CHAIN_IP_RE = re.compile(rb'^\.\.\.\.\. +(\d+): ([0-9a-f]+)$')
MMAP_RE = re.compile(r'^ (-?\d+)/(-?\d+): \[(0x[0-9a-f]+|0)\((0x[0-9a-f]+|0)\) @ (0x[0-9a-f]+|0)( [^\]]*)?\]: (\S+) (.*)$')
COMM_RE = re.compile(r'^(?: exec)?: (.*):(-?\d+)/(-?\d+)$')
# the line `perf script -F event` prints for a sample: "<event name>: "
EVENT_LINE_RE = re.compile(rb'^\s*(\S.*?): *$')


def parse_dump(path, events):
    """Parse `perf script -D -F event` output.  Returns dicts keyed by file
    offset: samples, mmaps, comms."""
    samples, mmaps, comms = {}, {}, {}
    trailers = {}       # an MMAP's or COMM's prefix: its trailer's cpu and time
    names = set(n for n, _ in events)
    cur = None          # the sample being collected
    chain_left = 0
    with open(path, 'rb') as f:
        for raw in f:
            line = raw.rstrip(b'\n')
            m = HDR_RE.match(line)
            if m:
                cur = None
                chain_left = 0
                prefix = dec(m.group(1)).split()
                off = int(m.group(2), 16)
                kind = dec(m.group(4))
                rest = dec(m.group(5))
                if kind == 'SAMPLE':
                    sm = SAMPLE_RE.match(rest)
                    if not sm:
                        raise SystemExit('unparsed sample line: %r' % line)
                    if off in samples:
                        raise SystemExit('duplicate sample offset 0x%x' % off)
                    cur = {'prefix': prefix, 'pid': int(sm.group(1)),
                           'tid': int(sm.group(2)), 'ip': int(sm.group(3), 16),
                           'period': int(sm.group(4)), 'chain': None,
                           'event': None, 'thread': None}
                    samples[off] = cur
                elif kind in ('MMAP', 'MMAP2'):
                    mm = MMAP_RE.match(rest)
                    if not mm:
                        raise SystemExit('unparsed mmap line: %r' % line)
                    trailers[off] = prefix
                    mmaps[off] = (s32(int(mm.group(1))), s32(int(mm.group(2))),
                                  s64(int(mm.group(3), 16)),
                                  s64(int(mm.group(4), 16)),
                                  s64(int(mm.group(5), 16)), mm.group(8))
                elif kind == 'COMM':
                    cm = COMM_RE.match(rest)
                    if not cm:
                        raise SystemExit('unparsed comm line: %r' % line)
                    trailers[off] = prefix
                    comms[off] = (s32(int(cm.group(2))), s32(int(cm.group(3))),
                                  cm.group(1))
                continue
            if cur is None:
                continue
            if chain_left:
                cm = CHAIN_IP_RE.match(line)
                if not cm:
                    raise SystemExit('short callchain before %r' % line)
                cur['chain'].append(int(cm.group(2), 16))
                chain_left -= 1
                continue
            tm = THREAD_RE.match(line)
            if tm and cur['thread'] is None:
                cur['thread'] = (dec(tm.group(1)), int(tm.group(2)))
                continue
            cm = CHAIN_RE.match(line)
            if cm and cur['chain'] is None:
                cur['chain'] = []
                chain_left = int(cm.group(1))
                continue
            em = EVENT_LINE_RE.match(line)
            if em and cur['event'] is None and dec(em.group(1)) in names:
                cur['event'] = dec(em.group(1))
    return samples, mmaps, comms, trailers


def trailer_cells(prefix, events, off):
    """time and cpu of a record other than SAMPLE, from what perf prints
    before its offset: "-1 -1" without sample_id_all; else the cpu, then the
    time, each when some event samples it, -1 (as u32 and u64) where the
    record's event does not or it has no trailer."""
    if prefix == ['-1', '-1']:
        return ('', '')
    combined = set(b for _, bits in events for b in bits)
    if len(prefix) != ('CPU' in combined) + ('TIME' in combined):
        raise SystemExit('the record at 0x%x has %r before its offset, not its '
                         'cpu and time' % (off, prefix))
    cpu = prefix[0] if 'CPU' in combined else ''
    time = prefix[-1] if 'TIME' in combined else ''
    return (str(s64(int(time))) if time not in ('', str(U64 - 1)) else '',
            cpu if cpu not in ('', str((1 << 32) - 1)) else '')


def sample_rows(samples, events, unnamed):
    """Render samples as TSV lines, in file order; adds to unnamed the tids
    of samples perf knows no name for."""
    relevant = ('IP', 'TID', 'TIME', 'CPU', 'PERIOD', 'CALLCHAIN', 'FREQ')
    by_name = {}
    for name, bits in events:
        key = frozenset(b for b in bits if b in relevant)
        by_name.setdefault(name, set()).add(key)
    kinds = set(k for ks in by_name.values() for k in ks)
    combined = set(b for _, bits in events for b in bits)
    rows = []
    for off in sorted(samples):
        s = samples[off]
        if len(kinds) == 1:
            bits = next(iter(kinds))
        else:
            ks = by_name.get(s['event'])
            if not ks or len(ks) != 1:
                raise SystemExit('cannot tell the event of the sample at 0x%x '
                                 '(event %r)' % (off, s['event']))
            bits = next(iter(ks))
        # perf prints the cpu, then the time, each when an event samples it
        # (its cpu -1 as 4294967295 for an event that does not)
        if len(s['prefix']) != ('CPU' in combined) + ('TIME' in combined):
            raise SystemExit('the sample at 0x%x has %r before its offset, not its '
                             'cpu and time' % (off, s['prefix']))
        time = s['prefix'][-1] if 'TIME' in bits else ''
        cpu = s['prefix'][0] if 'CPU' in bits else ''
        pid = str(s['pid']) if 'TID' in bits else ''
        tid = str(s['tid']) if 'TID' in bits else ''
        comm = ''
        if 'TID' in bits:
            if s['thread'] is None or s['thread'][1] != s['tid']:
                raise SystemExit('perf named no thread %d for the sample at 0x%x (%r)'
                                 % (s['tid'], off, s['thread']))
            comm = s['thread'][0]
            if comm == ':%d' % s['tid']:
                comm = ''           # perf's name for a thread without one
                unnamed.add(s['tid'])
        ip = str(s64(s['ip'])) if 'IP' in bits else ''
        # without PERIOD, perf reports the attr's fixed sample_period (in freq
        # mode that would be the frequency: no period, as perfvtab has it)
        period = str(s['period']) if 'PERIOD' in bits or 'FREQ' not in bits else ''
        chain = ''
        if 'CALLCHAIN' in bits:
            if s['chain'] is None:
                raise SystemExit('no callchain printed for the sample at 0x%x' % off)
            chain = '[' + ','.join(str(s64(v)) for v in s['chain']
                                   if v < CONTEXT_MIN) + ']'
        rows.append('\t'.join((time, pid, tid, comm, cpu, ip, period, chain)))
    return rows


# ------------------------------------------------------------------ stats
STAT_RE = re.compile(r'^\s*([A-Z0-9_]+) events:\s+(\d+)')


def parse_stats(path):
    out = {}
    in_block = False
    with open(path, 'rb') as f:
        for raw in f:
            line = dec(raw.rstrip(b'\n'))
            if line.startswith('Aggregated stats'):
                in_block = True
                continue
            if not in_block:
                continue
            m = STAT_RE.match(line)
            if not m:
                if line.strip():
                    break       # the per-event blocks follow
                continue
            if m.group(1) != 'TOTAL':
                out[m.group(1)] = int(m.group(2))
    return ['%s\t%d' % (k, out[k]) for k in sorted(out)]


def write(outdir, name, rows):
    with open(os.path.join(outdir, name), 'wb') as f:
        for r in rows:
            f.write(enc(r) + b'\n')


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    data, outdir = sys.argv[1], sys.argv[2]
    label = sys.argv[3] if len(sys.argv) == 4 else data
    perf = os.environ.get('PERF', 'perf')
    with tempfile.TemporaryDirectory(prefix='perf_expect.') as tmp:
        rc, dump = run_dump(perf, data, tmp)
        if rc != 0:
            print('perf script -D refuses %s (exit %d)' % (data, rc), file=sys.stderr)
            sys.exit(2)
        _, evl = run_to_file([perf, 'evlist', '-v', '-i', data], tmp, 'evlist')
        events = parse_evlist(evl)
        if not events:
            raise SystemExit('perf evlist -v printed no sample_type for %s' % data)
        samples, mmaps, comms, trailers = parse_dump(dump, events)
        rc, st = run_to_file([perf, 'report', '--stats', '-i', data], tmp, 'stats')
        if rc != 0:
            raise SystemExit('perf report --stats failed on %s' % data)
        if not parse_stats(st):
            # perf 6.1 on a pipe with tracing data: "failed to process type", exit 0
            raise SystemExit('perf report --stats printed no counts for %s' % data)
        os.makedirs(outdir, exist_ok=True)
        unnamed = set()
        write(outdir, 'samples.tsv', sample_rows(samples, events, unnamed))
        write(outdir, 'mmaps.tsv', ['\t'.join(str(x) for x in mmaps[o] + trailer_cells(trailers[o], events, o))
                                    for o in sorted(mmaps)])
        write(outdir, 'comms.tsv', ['\t'.join(str(x) for x in comms[o] + trailer_cells(trailers[o], events, o))
                                    for o in sorted(comms)])
        write(outdir, 'stats.tsv', parse_stats(st))
        ver = subprocess.run([perf, '--version'], capture_output=True, text=True).stdout.strip()
        meta = [('source', label), ('perf', ver),
                ('unnamed_tids', ' '.join(str(t) for t in sorted(unnamed)))]
        write(outdir, 'meta.tsv', ['%s\t%s' % kv for kv in meta])


if __name__ == '__main__':
    main()
