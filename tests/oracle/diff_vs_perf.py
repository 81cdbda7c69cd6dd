#!/usr/bin/env python3
"""Compares sql/diff.sql with `perf diff`, live.

    diff_vs_perf.py SQLRUN ROOT NAME BASE NEW

Runs `perf diff -t '|' BASE NEW` now (symbols depend on this machine's
binaries, so expected values cannot be committed) and sql/diff.sql with @base
and @file bound to BASE and NEW, and checks, per event:
  - the same functions: every row perf prints is a row of diff.sql and the
    other way round (perf's unresolved entry of a dso, named by an address,
    is diff.sql's row of that dso with no sym);
  - baseline and delta to 0.01 points (perf prints two decimals);
  - where perf prints no delta (the function is absent from NEW), diff.sql's
    delta is -baseline and its new_samples 0;
  - diff.sql's rows come in falling |delta|, perf diff's default order.
Prints one "ok - ..." or "not ok - ...: why" line per check.
"""
import re
import subprocess
import sys


def perf_rows(base, new):
    """{event: {(dso, sym or None): (baseline or None, delta or None)}}."""
    out = subprocess.run(['perf', 'diff', '-t', '|', base, new], capture_output=True,
                         text=True, check=True).stdout
    events, event = {}, None
    for line in out.splitlines():
        m = re.match(r"# Event '(.*)'", line)
        if m:
            event = m.group(1)
            events.setdefault(event, {})
            continue
        if line.startswith('#') or not line.strip() or event is None:
            continue
        baseline, delta, dso, sym = [field.strip() for field in line.split('|')[:4]]
        sym = re.sub(r'^\[.\] ', '', sym)
        if re.fullmatch(r'0x[0-9a-f]+', sym):
            sym = None
        events[event][(dso, sym)] = (float(baseline) if baseline else None,
                                     float(delta.rstrip('%')) if delta else None)
    # perf heads every event, the sampleless dummy too
    return {event: rows for event, rows in events.items() if rows}


def sql_literal(text):
    return "'" + text.replace("'", "''") + "'"


def diff_rows(sqlrun, root, base, new):
    """[(event, dso, sym or None, baseline or None, delta, new_samples)] in diff.sql's order."""
    with open(root + '/sql/diff.sql') as f:
        sql = f.read()
    body = '\n'.join(line for line in sql.splitlines() if not line.startswith('--'))
    body = body.replace('@base', sql_literal(base)).replace('@file', sql_literal(new))
    out = subprocess.run([sqlrun, '-n', '\\N', '-H', body], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip())
    lines = out.stdout.splitlines()
    header = lines[0].split('\t')
    rows = []
    for line in lines[1:]:
        r = dict(zip(header, line.split('\t')))
        rows.append((r['event'], r['dso'], None if r['sym'] == '\\N' else r['sym'],
                     None if r['baseline'] == '\\N' else float(r['baseline']),
                     float(r['delta']), int(r['new_samples'])))
    return rows


def main():
    sqlrun, root, name, base, new = sys.argv[1:6]
    perf = perf_rows(base, new)
    try:
        ours = diff_rows(sqlrun, root, base, new)
    except RuntimeError as e:
        print('not ok - %s: diff.sql failed: %s' % (name, e))
        return
    by_event = {}
    for event, dso, sym, baseline, delta, new_samples in ours:
        by_event.setdefault(event, []).append((dso, sym, baseline, delta, new_samples))
    if sorted(perf) != sorted(by_event):
        print('not ok - %s: events: perf diff %s, diff.sql %s' % (name, sorted(perf), sorted(by_event)))
        return
    for event, want in perf.items():
        rows = by_event[event]
        got = {(dso, sym): (baseline, delta, new_samples) for dso, sym, baseline, delta, new_samples in rows}
        what = '%s, %s: %d functions' % (name, event, len(want))
        if set(got) != set(want):
            print('not ok - %s: only perf diff: %s; only diff.sql: %s'
                  % (what, sorted(set(want) - set(got), key=str)[:5], sorted(set(got) - set(want), key=str)[:5]))
            continue
        bad = []
        for key, (perf_base, perf_delta) in want.items():
            baseline, delta, new_samples = got[key]
            if (perf_base is None) != (baseline is None) or \
               (perf_base is not None and abs(perf_base - baseline) > 0.01):
                bad.append('%s baseline %s, perf %s' % (key, baseline, perf_base))
            if perf_delta is None:
                if new_samples != 0 or baseline is None or abs(delta + baseline) > 1e-9:
                    bad.append('%s: perf prints no delta, diff.sql %s with %d new samples'
                               % (key, delta, new_samples))
            elif abs(perf_delta - delta) > 0.01:
                bad.append('%s delta %s, perf %s' % (key, delta, perf_delta))
        if bad:
            print('not ok - %s: %s' % (what, '; '.join(bad[:4])))
        else:
            print('ok - %s: baseline and delta as perf diff prints them, to 0.01 points' % what)
        deltas = [abs(r[3]) for r in rows]
        if all(a >= b for a, b in zip(deltas, deltas[1:])):
            print('ok - %s, %s: rows in falling |delta|' % (name, event))
        else:
            print('not ok - %s, %s: rows not in falling |delta|: %s' % (name, event, deltas[:10]))


if __name__ == '__main__':
    main()
