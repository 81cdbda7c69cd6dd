"""Compares what the extension reads from a perf.data file with quipper's own
text dump of it (google/perf_data_converter's *.io.out.pb_text for file mode,
*.pr.out.pb_text for pipe mode: PerfDataProto in protobuf text format, events
in file order).  See $PV_SHARED/corpus/perf_data_converter/EXPECTED_FACTS.txt.

usage: quipper_compare.py SQLRUN PERF_DATA PB_TEXT [--multiset]

Every event quipper keeps must be the extension's next record of a type
quipper models, with the same header type and misc, and:
  sample: ip pid tid time period id stream_id cpu addr raw size, the
          callchain (quipper keeps the PERF_CONTEXT_* markers, the extension
          drops them), branch stack from/to/mispredicted/predicted/cycles,
          weight, data_src
  mmap/mmap2: pid tid start len pgoff filename (+ maj min ino prot flags)
  comm: pid tid comm;  fork/exit: pid ppid tid ptid time
  lost: id lost;  throttle: time id stream_id;  lost_samples: num_lost
  every non-sample event: its sample_id trailer (pid tid time id cpu)
With --multiset (quipper's time-sorted *.pb_text) samples are compared as
a multiset and the other events are not.
Numbers are compared modulo 2^64 (quipper prints unsigned, the extension
signed).  Prints "ok <samples> <events>" or "bad <first difference>".
"""
import json
import re
import subprocess
import sys

MASK64 = (1 << 64) - 1
CONTEXT_MAX = (1 << 64) - 4095
# record types quipper drops from its dumps (EXPECTED_FACTS.txt lists THREAD_MAP
# too, but the dumps of the files that have one keep it)
NOT_MODELED = {18, 74, 78, 82}
# in pipe mode the header records become metadata, not events
PIPE_HEADER_TYPES = {64, 65, 66, 67, 80}

TOKEN_RE = re.compile(r'^\s*([A-Za-z_0-9]+)\s*(?::\s*(.*?))?\s*(\{)?\s*$')


def unescape(s):
    """A protobuf text string literal (quotes included) as str."""
    body = s[1:-1]
    out = bytearray()
    i = 0
    while i < len(body):
        c = body[i]
        if c != '\\':
            out += c.encode('utf-8', 'surrogateescape')
            i += 1
            continue
        n = body[i + 1]
        if n in '01234567':
            j = i + 1
            while j < len(body) and j < i + 4 and body[j] in '01234567':
                j += 1
            out.append(int(body[i + 1:j], 8))
            i = j
            continue
        if n == 'x':
            j = i + 2
            while j < len(body) and j < i + 4 and body[j] in '0123456789abcdefABCDEF':
                j += 1
            out.append(int(body[i + 2:j], 16))
            i = j
            continue
        out += {'n': b'\n', 't': b'\t', 'r': b'\r', '"': b'"', "'": b"'",
                '\\': b'\\'}.get(n, n.encode())
        i += 2
    return out.decode('utf-8', 'surrogateescape')


def value(text):
    if text.startswith('"'):
        return unescape(text)
    if text in ('true', 'false'):
        return text == 'true'
    try:
        return int(text)
    except ValueError:
        return text


def events(path):
    """The top-level `events { ... }` blocks as nested dicts; repeated keys
    become lists (callchain, branch_stack)."""
    stack = []
    with open(path, encoding='utf-8', errors='surrogateescape') as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            if line == '}':
                key, node = stack.pop()
                if not stack:
                    if key == 'events':
                        yield node
                else:
                    add(stack[-1][1], key, node)
                continue
            m = TOKEN_RE.match(line)
            if not m:
                raise SystemExit('cannot parse %s: %r' % (path, line))
            key, val, brace = m.groups()
            if brace:
                stack.append((key, {}))
            elif stack:
                add(stack[-1][1], key, value(val))


REPEATED = {'callchain', 'branch_stack'}


def add(node, key, val):
    if key in REPEATED:
        node.setdefault(key, []).append(val)
    else:
        node[key] = val


def sql(sqlrun, query):
    r = subprocess.run([sqlrun, query], capture_output=True, text=True,
                       errors='surrogateescape')
    if r.returncode != 0:
        raise SystemExit('bad SQL error: %s' % r.stderr.strip()[:300])
    return [line.split('\t') for line in r.stdout.split('\n') if line]


def num(v):
    return None if v in ('', None) else int(v) & MASK64


def ours(sqlrun, path):
    q = path.replace("'", "''")
    # quipper's dumps list the records in file order
    recs = sql(sqlrun, "SELECT record, type, misc, fields FROM perf_records('%s') ORDER BY record" % q)
    samples = {}
    for row in sql(sqlrun, "SELECT record, ip, pid, tid, time, period, id, stream_id, cpu, addr, "
                   "length(raw), callchain, branch_stack, weight, data_src "
                   "FROM perf_samples('%s')" % q):
        samples[int(row[0])] = row[1:]
    return [(int(r[0]), int(r[1]), int(r[2]), r[3]) for r in recs], samples


def sample_diffs(want, row):
    """Differences between a quipper sample_event and our perf_samples row."""
    (ip, pid, tid, time, period, sid, stream_id, cpu, addr, raw_len, callchain,
     branches, weight, data_src) = row
    got = {'ip': num(ip), 'pid': num(pid), 'tid': num(tid), 'sample_time_ns': num(time),
           'period': num(period), 'id': num(sid), 'stream_id': num(stream_id),
           'cpu': num(cpu), 'addr': num(addr), 'raw_size': num(raw_len),
           'weight': num(weight), 'data_src': num(data_src)}
    for key in ('pid', 'tid', 'cpu'):
        if got[key] is not None:
            got[key] &= 0xffffffff
    out = []
    for key, mine in got.items():
        if key in want and (want[key] & MASK64) != mine:
            # quipper prints 0 for a field the sample does not have
            if not (mine is None and want[key] == 0):
                out.append('%s quipper %s, ours %s' % (key, want[key], mine))
    if 'callchain' in want or callchain:
        chain = [v & MASK64 for v in want.get('callchain', []) if (v & MASK64) < CONTEXT_MAX]
        mine = [v & MASK64 for v in json.loads(callchain)] if callchain else []
        if chain != mine:
            out.append('callchain quipper %s, ours %s' % (chain[:6], mine[:6]))
    if 'branch_stack' in want:
        mine = json.loads(branches) if branches else []
        theirs = want['branch_stack']
        if len(mine) != len(theirs):
            out.append('branch_stack has %d entries in quipper, %d in ours'
                       % (len(theirs), len(mine)))
        for i, (b, m) in enumerate(zip(theirs, mine)):
            pairs = [(b.get('from_ip', 0) & MASK64, m['from'] & MASK64),
                     (b.get('to_ip', 0) & MASK64, m['to'] & MASK64),
                     (int(b.get('mispredicted', False)), m['mispred']),
                     (int(b.get('predicted', False)), m['predicted']),
                     (b.get('cycles', 0), m['cycles'])]
            if any(x != y for x, y in pairs):
                out.append('branch %d quipper %s, ours %s' % (i, b, m))
                break
    return out


FIELD_MAP = {  # quipper key -> key in perf_records.fields
    'mmap_event': {'pid': 'pid', 'tid': 'tid', 'start': 'start', 'len': 'len',
                   'pgoff': 'pgoff', 'filename': 'filename', 'maj': 'maj', 'min': 'min',
                   'ino': 'ino', 'prot': 'prot', 'flags': 'flags'},
    'comm_event': {'pid': 'pid', 'tid': 'tid', 'comm': 'comm'},
    'fork_event': {'pid': 'pid', 'ppid': 'ppid', 'tid': 'tid', 'ptid': 'ptid',
                   'fork_time_ns': 'time'},
    'exit_event': {'pid': 'pid', 'ppid': 'ppid', 'tid': 'tid', 'ptid': 'ptid',
                   'fork_time_ns': 'time'},
    'lost_event': {'id': 'id', 'lost': 'lost'},
    'throttle_event': {'time_ns': 'time', 'id': 'id', 'stream_id': 'stream_id'},
    'lost_samples_event': {'num_lost': 'lost'},
}
SAMPLE_INFO = {'pid': 'pid', 'tid': 'tid', 'sample_time_ns': 'time', 'id': 'id', 'cpu': 'cpu'}


def same(want, got):
    """quipper's unsigned number against ours, which may be the same bits
    read as signed (64-bit, or 32-bit for pids, tids and cpus)."""
    if isinstance(want, int) and not isinstance(want, bool) and isinstance(got, int):
        return want & MASK64 == got & MASK64 or (-(1 << 31) <= got < 0 and
                                                  want == got & 0xffffffff)
    return want == got


def event_diffs(ev, fields):
    out = []
    for kind, mapping in FIELD_MAP.items():
        body = ev.get(kind)
        if body is None:
            continue
        for qk, ok in mapping.items():
            if qk in body and not same(body[qk], fields.get(ok)):
                # quipper prints 0/"" for fields a record does not carry
                if not (ok not in fields and body[qk] in (0, '')):
                    out.append('%s.%s quipper %r, ours %r' % (kind, qk, body[qk], fields.get(ok)))
    for body in ev.values():
        if isinstance(body, dict) and isinstance(body.get('sample_info'), dict):
            info, trailer = body['sample_info'], dict(fields.get('sample_id', {}))
            # quipper's id is PERF_SAMPLE_ID, else PERF_SAMPLE_IDENTIFIER
            if 'id' not in trailer and 'identifier' in trailer:
                trailer['id'] = trailer['identifier']
            for qk, ok in SAMPLE_INFO.items():
                if qk in info and not same(info[qk], trailer.get(ok)) and \
                        not (ok not in trailer and info[qk] == 0):
                    out.append('sample_info.%s quipper %r, ours %r' % (qk, info[qk], trailer.get(ok)))
    return out


def compare(sqlrun, path, pb, multiset=False):
    """"ok <samples> <events>" or "bad <first difference>"."""
    theirs = list(events(pb))
    recs, samples = ours(sqlrun, path)
    pipe = any(t in PIPE_HEADER_TYPES for _, t, _, _ in recs)
    skip = NOT_MODELED | (PIPE_HEADER_TYPES if pipe else set())
    mine = [r for r in recs if r[1] not in skip]
    if multiset:
        want = sorted(tuple(sorted((k, json.dumps(v)) for k, v in e['sample_event'].items()
                                   if k in ('ip', 'pid', 'tid', 'sample_time_ns', 'period')))
                      for e in theirs if 'sample_event' in e)
        got = []
        for row in samples.values():
            d = {'ip': num(row[0]), 'pid': num(row[1]), 'tid': num(row[2]),
                 'sample_time_ns': num(row[3]), 'period': num(row[4])}
            got.append(tuple(sorted((k, json.dumps(v)) for k, v in d.items()
                                    if v is not None)))
        got.sort()
        want = [tuple((k, json.dumps(json.loads(v) & MASK64)) for k, v in t) for t in want]
        if want != got:
            return 'bad samples differ as a multiset (%d in quipper, %d ours)' % (len(want), len(got))
        return 'ok %d 0' % len(want)
    if len(theirs) != len(mine):
        return ('bad quipper has %d events, the extension %d records of the types quipper keeps'
                % (len(theirs), len(mine)))
    nsamples = 0
    for i, (ev, (record, rtype, misc, fields)) in enumerate(zip(theirs, mine)):
        head = ev.get('header', {})
        where = 'event %d (record %d)' % (i, record)
        if head.get('type') != rtype or head.get('misc', 0) != misc:
            return ('bad %s: quipper type %s misc %s, ours type %d misc %d'
                    % (where, head.get('type'), head.get('misc'), rtype, misc))
        if 'sample_event' in ev:
            diffs = sample_diffs(ev['sample_event'], samples[record])
            nsamples += 1
        else:
            diffs = event_diffs(ev, json.loads(fields) if fields else {})
        if diffs:
            return 'bad %s type %d: %s' % (where, rtype, '; '.join(diffs[:3]))
    return 'ok %d %d' % (nsamples, len(theirs))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    print(compare(*args, multiset='--multiset' in sys.argv))


if __name__ == '__main__':
    main()
