"""Compares perf_samples.trace_event/trace_fields with perf's decoding.

usage: trace_fields_compare.py EXPECTED.tsv ACTUAL.tsv
Both files: time, cpu, tid, system:name, JSON fields (one tracepoint sample a
line; ACTUAL straight from the extension).  perf hands every array over as
raw bytes and reads signed fields as unsigned; the extension gives arrays as
lists of elements and signed fields with their sign.  So an actual array is
packed back to bytes (element size = bytes / elements) and a negative number
compared modulo 2^(8k) for the field sizes k = 1, 2, 4, 8.
Prints one line: "ok N" or "bad <first difference>"."""
import json
import sys


def same_number(want, got):
    if want == got:
        return True
    if isinstance(got, int) and got < 0:
        return any(want == got % (1 << (8 * k)) for k in (1, 2, 4, 8))
    return False


def same_value(want, got):
    if isinstance(want, list) and isinstance(got, list):
        if len(want) == len(got):
            return all(same_number(w, g) for w, g in zip(want, got))
        if not got or len(want) % len(got):
            return False
        size = len(want) // len(got)
        packed = []
        for g in got:
            packed += list((g % (1 << (8 * size))).to_bytes(size, 'little'))
        return packed == want
    if isinstance(want, int):
        return same_number(want, got)
    return want == got


def rows(path):
    out = []
    with open(path) as f:
        for line in f:
            time, cpu, tid, event, fields = line.rstrip('\n').split('\t', 4)
            out.append(((int(time), int(cpu), int(tid), event), json.loads(fields)))
    out.sort(key=lambda r: (r[0], json.dumps(r[1], sort_keys=True)))
    return out


def main():
    want, got = rows(sys.argv[1]), rows(sys.argv[2])
    if len(want) != len(got):
        print('bad perf has %d tracepoint samples, the extension %d' % (len(want), len(got)))
        return
    for (wk, wf), (gk, gf) in zip(want, got):
        if wk != gk:
            print('bad sample %s: the extension has %s there' % (wk, gk))
            return
        if list(wf) != list(gf) or not all(same_value(wf[k], gf[k]) for k in wf):
            print('bad sample %s: perf %s, extension %s' % (wk, json.dumps(wf), json.dumps(gf)))
            return
    print('ok %d' % len(want))


main()
