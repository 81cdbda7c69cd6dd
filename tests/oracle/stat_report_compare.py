"""Compares perf_stats with `perf stat report`.

usage: stat_report_compare.py SQLRUN PERF_DATA REPORT.txt

perf stat report prints, per round (one line per event; with -I the round's
time first), the counter summed over cpus and threads: in interval mode the
values are running totals, so a round shows each cpu/thread's value minus
its value in the previous round; a value whose counter ran part of the time
is scaled by ena / run; an event with a unit (EVENT_UPDATE) is multiplied by
its scale and printed with two decimals.  STAT records that no STAT_ROUND
closes are not shown.  Events that never counted print
"<not supported>" and have no STAT records.  Without -I the report ends with
the final round's time ("seconds time elapsed").
Prints "ok <values compared>" or "bad <first difference>"."""
import json
import re
import subprocess
import sys

sqlrun, path, report = sys.argv[1:]


def sql(query):
    r = subprocess.run([sqlrun, query.replace('@f', "'%s'" % path.replace("'", "''"))],
                       capture_output=True, text=True)
    if r.returncode:
        print('bad SQL error: %s' % r.stderr.strip()[:300])
        sys.exit(0)
    return [line.split('\t') for line in r.stdout.split('\n') if line]


scale = {}
for (fields,) in sql("SELECT fields FROM perf_records(@f) WHERE type = 78"):
    f = json.loads(fields)
    if 'scale' in f:
        scale[f['id']] = f['scale']
interval = int(sql("SELECT ifnull(json_extract(fields, '$.interval'), 0) FROM perf_records(@f) "
                   "WHERE type = 75")[0][0])

prev, rounds, times = {}, {}, {}
for event, sid, cpu, thread, val, ena, run, rnd, rtime in sql(
        "SELECT event, id, cpu, thread, val, ena, run, round, round_time FROM perf_stats(@f) "
        "ORDER BY record"):
    sid, val, ena, run, rnd = int(sid), int(val), int(ena), int(run), int(rnd)
    key = (event, cpu, thread)
    last = prev.get(key, (0, 0, 0)) if interval else (0, 0, 0)
    prev[key] = (val, ena, run)
    dval, dena, drun = val - last[0], ena - last[1], run - last[2]
    if drun and drun < dena:
        dval = int(dval * dena / drun + 0.5)
    acc = rounds.setdefault(rnd, {}).setdefault(event, [0, scale.get(sid)])
    acc[0] += dval
    times[rnd] = rtime


def shown(total, factor):
    return '%.2f' % (total * factor) if factor is not None else str(total)


want = []   # (time or None, counts text, event)
elapsed = None
with open(report) as f:
    for line in f:
        m = re.match(r'^\s*(?:(\d+\.\d{9})\s+)?([\d.]+|<not supported>|<not counted>)\s+'
                     r'(?:msec\s+)?([\w:/.\-]+)', line)
        if m and not line.lstrip().startswith('#') and m.group(3) != 'seconds':
            want.append((m.group(1) or '', m.group(2), m.group(3)))
        m = re.match(r'^\s*(\d+\.\d{9}) seconds time elapsed', line)
        if m:
            elapsed = m.group(1)

got = []
# STAT records after the last STAT_ROUND (final totals perf writes at exit)
# belong to no round: perf stat report does not show them
for rnd in sorted(r for r in rounds if times[r]):
    for event, (total, factor) in rounds[rnd].items():
        t = '%d.%09d' % divmod(int(times[rnd]), 10**9) if interval and times[rnd] else ''
        got.append((t, shown(total, factor), event))
want_counted = [w for w in want if not w[1].startswith('<')]
if sorted(want_counted) != sorted(got):
    missing = sorted(set(want_counted) - set(got))[:3]
    extra = sorted(set(got) - set(want_counted))[:3]
    print('bad perf stat report has %s, perf_stats gives %s' % (missing, extra))
    sys.exit(0)
if not interval and elapsed is not None:
    last = '%d.%09d' % divmod(int(times[max(times)]), 10**9)
    if last != elapsed:
        print('bad the final round time is %s, perf says %s seconds elapsed' % (last, elapsed))
        sys.exit(0)
print('ok %d' % len(got))
