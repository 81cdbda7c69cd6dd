#!/usr/bin/env python3
"""Expected rows of perf_tasks, perf_lost and perf_switches, from `perf script -D`.

usage: tests/oracle/typed_tables_expect.py OUTDIR NAME=FILE...

For each file, writes OUTDIR/NAME.tsv with one line per FORK, EXIT, LOST,
LOST_SAMPLES, SWITCH and SWITCH_CPU_WIDE record, in file order:
    file_offset  kind  fields...
as perf prints them (see FORMATS below); tests/t_typed_tables.sh builds the
same lines from SQL.
"""
import os
import re
import subprocess
import sys
import tempfile

# `[cpu ]time 0xOFFSET [0xSIZE]: PERF_RECORD_NAME rest`
LINE = re.compile(r'^(?:\d+ )?(-?\d+) 0x([0-9a-f]+) \[0x[0-9a-f]+\]: PERF_RECORD_([A-Z_]+)(.*)$')
TASK = re.compile(r'^\((-?\d+):(-?\d+)\):\((-?\d+):(-?\d+)\)')
LOST_SAMPLES = re.compile(r'^: id:(\d+): lost samples :(\d+)')
LOST = re.compile(r'^ lost (\d+)')  # not produced by perf 6.1 fixtures; kept for LOST
SWITCH_WIDE = re.compile(r'^ (OUT|IN)\s*(preempt)?\s+next pid/tid:\s*(-?\d+)/(-?\d+)|^ (OUT|IN)\s*(preempt)?\s+prev pid/tid:\s*(-?\d+)/(-?\d+)')
SWITCH = re.compile(r'^ (OUT|IN)\s*(preempt)?')


def rows(path):
    with tempfile.TemporaryFile() as out:
        subprocess.run(['perf', 'script', '-D', '-i', path], stdout=out,
                       stderr=subprocess.DEVNULL, check=True)
        out.seek(0)
        found = []
        for raw in out:
            m = LINE.match(raw.decode('utf-8', 'replace').rstrip('\n'))
            if not m:
                continue
            time, offset, kind, rest = m.group(1), int(m.group(2), 16), m.group(3), m.group(4)
            if kind in ('FORK', 'EXIT'):
                t = TASK.match(rest)
                pid, tid, ppid, ptid = t.groups()
                found.append((offset, kind, pid, tid, ppid, ptid, time))
            elif kind == 'LOST_SAMPLES':
                lost = LOST_SAMPLES.match(rest).group(2)
                found.append((offset, kind, lost))
            elif kind == 'SWITCH_CPU_WIDE':
                w = SWITCH_WIDE.match(rest)
                g = [x for x in w.groups() if x is not None]
                direction = g[0].lower()
                preempt = '1' if 'preempt' in g else '0'
                found.append((offset, kind, direction, preempt, g[-2], g[-1], time))
            elif kind == 'SWITCH':
                s = SWITCH.match(rest)
                found.append((offset, kind, s.group(1).lower(), '1' if s.group(2) else '0', time))
        found.sort(key=lambda r: r[0])
        return found


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    for arg in sys.argv[2:]:
        name, path = arg.split('=', 1)
        with open(os.path.join(outdir, name + '.tsv'), 'w') as f:
            for r in rows(path):
                f.write('\t'.join(str(x) for x in r) + '\n')


if __name__ == '__main__':
    main()
