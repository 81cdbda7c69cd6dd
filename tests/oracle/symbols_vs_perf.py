#!/usr/bin/env python3
"""Compares perfvtab's symbol columns and profile queries with perf, live.

    symbols_vs_perf.py SQLRUN ROOT NAME PERF_DATA [--frames] [--profiles]
                       [--symfs DIR] [--symdir DIR] [--buildid-dir DIR]
                       [--perf-cache DIR]
                       [--status DSO_SUFFIX TEXT]

Runs perf report / perf script on PERF_DATA now (symbols depend on this
machine's binaries, so expected values cannot be committed) and checks:
  - every sample's ip, symbol+offset and dso (perf script -G -F ip,sym,symoff,dso)
    and its comm (-F tid,comm) against perf_samples;
  - with --frames: every callchain frame (perf script -F ip,sym,symoff,dso)
    against perf_callchains, sample by sample (DWARF-unwound stacks too, with
    perf's "(inlined)" frames against the rows with inlined = 1);
  - with --profiles: perf report --no-children --sort dso,sym's top 20 named
    rows against sql/flat_profile.sql, and perf report --children --sort sym's
    against sql/inclusive_profile.sql, to 0.01 percentage points.
  --symfs DIR: perf runs with --symfs DIR, perfvtab after perf_symbol_path(DIR).
  --symdir DIR: perfvtab runs after perf_symbol_path(NULL, DIR).
  --buildid-dir DIR: perf runs as `perf --buildid-dir DIR` and perfvtab after
    perf_symbol_path(NULL, DIR): both read a build-id cache, the committed
    fixtures' tests/fixtures/symbols.
  --perf-cache DIR: perf's outputs are kept in DIR and reused when there, so a
    later run can compare with what perf said before the binaries moved.
  --status DSO_SUFFIX TEXT: the samples in dsos ending with DSO_SUFFIX have
    no sym and a sym_status containing TEXT.
  --report-g MODE: perf report's -g for the profiles (default none).  On
    --call-graph lbr files give callee: perf 6.1's --children defaults to
    caller order, in which it resolves the kernel part of an LBR stack as
    user addresses (tests/t_lbr_stacks.sh).
  --perf-data FILE: perf reads FILE instead of PERF_DATA: the original of a
    rewritten recording that perf 6.1 cannot read but must show the same
    (tests/t_deferred_callchains.sh: the stitched stacks of a deferred one).
Prints one "ok - ..." or "not ok - ...: why" line per check.
"""
import re
import subprocess
import sys

import argparse
import hashlib
import os

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perf_inline_proof  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("sqlrun")
parser.add_argument("root")
parser.add_argument("name")
parser.add_argument("data")
parser.add_argument("--frames", action="store_true")
parser.add_argument("--profiles", action="store_true")
parser.add_argument("--symfs")
parser.add_argument("--symdir")
parser.add_argument("--buildid-dir")
parser.add_argument("--perf-cache")
parser.add_argument("--status", nargs=2)
parser.add_argument("--report-g", default="none")
parser.add_argument("--perf-data")
opts = parser.parse_args()
if opts.buildid_dir and not opts.symdir:
    opts.symdir = opts.buildid_dir
sqlrun, root, name, data = opts.sqlrun, opts.root, opts.name, opts.data
profiles, frames_too = opts.profiles, opts.frames
failures = 0


def check(cond, what, why=""):
    global failures
    if cond:
        print(f"ok - {name}: {what}")
    else:
        failures += 1
        print(f"not ok - {name}: {what}: {why}")


def perf(*args):
    if opts.symfs:
        args = (*args, "--symfs", opts.symfs)
    saved = None
    if opts.perf_cache:
        digest = hashlib.sha1(repr(args).encode()).hexdigest()
        saved = os.path.join(opts.perf_cache, digest)
        if os.path.exists(saved):
            return open(saved).read()
    cache = ["--buildid-dir", opts.buildid_dir] if opts.buildid_dir else []
    r = subprocess.run(["perf", *cache, *args, "-i", opts.perf_data or data], capture_output=True,
                       text=True)
    if r.returncode != 0:
        raise SystemExit(f"not ok - {name}: perf {' '.join(args)} failed: {r.stderr.strip()[:300]}")
    if saved:
        open(saved, "w").write(r.stdout)
    return r.stdout


def literal(text):
    return "'" + text.replace("'", "''") + "'"


def sql(query, path=None):
    if path is not None:
        query = query.replace("?1", literal(path))
    setting = []
    if opts.symfs or opts.symdir:
        setting = ["SELECT perf_symbol_path(%s, %s)" % (
            literal(opts.symfs) if opts.symfs else "NULL",
            literal(opts.symdir) if opts.symdir else "NULL")]
    r = subprocess.run([sqlrun, *setting, query], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"not ok - {name}: sqlrun failed: {r.stderr.strip()[:300]}")
    return [line.split("\t") for line in r.stdout.splitlines()[len(setting):]]


def sql_file(path):
    text = open(path).read().replace("@file", literal(data))
    return sql(text)


def ns(text):
    sec, frac = text.split(".")
    return int(sec) * 1000000000 + int(frac.ljust(9, "0"))


def symstr(sym, off):
    return "[unknown]" if sym == "" else f"{sym}+0x{int(off):x}"


def first_difference(a, b):
    for x, y in zip(a, b):
        if x != y:
            return f"perf {x} vs perfvtab {y}"
    return f"perf has {len(a)} entries, perfvtab {len(b)}"


# --- per sample -----------------------------------------------------------
# sym+off, or [unknown]; dso names may hold spaces and parentheses
# ("/memfd:x (deleted)"), symbol names spaces ("operator new")
frame_re = re.compile(r"^\s*([0-9a-f]+) (.*?\+0x[0-9a-f]+|\[unknown\]) \((.*)\)$")
sample_re = re.compile(r"^\s*(\d+\.\d+):\s+([0-9a-f]+) (.*?\+0x[0-9a-f]+|\[unknown\]) \((.*)\)$")
expected = []
for line in perf("script", "--ns", "-G", "-F", "time,ip,sym,symoff,dso").splitlines():
    m = sample_re.match(line)
    if m:
        expected.append((ns(m.group(1)), m.group(2), m.group(3), m.group(4)))
got = [(int(t), ip, symstr(sym, off), dso or "[unknown]") for t, ip, sym, off, dso in sql(
    "SELECT time, printf('%x', ip), sym, sym_offset, dso FROM perf_samples(?1)", data)]
expected.sort()
got.sort()
check(len(expected) > 0 and expected == got,
      f"ip, sym+off and dso of {len(expected)} samples equal perf script's",
      first_difference(expected, got))

comm_re = re.compile(r"^\s*(.*?)\s+(\d+)\s+(\d+\.\d+):\s*$")
expected = []
for line in perf("script", "--ns", "-G", "-F", "comm,tid,time").splitlines():
    m = comm_re.match(line)
    if m:
        expected.append((ns(m.group(3)), int(m.group(2)), m.group(1)))
got = [(int(t), int(tid), comm) for t, tid, comm in sql(
    "SELECT time, tid, coalesce(comm, ':' || tid) FROM perf_samples(?1)", data)]
expected.sort()
got.sort()
check(len(expected) > 0 and expected == got,
      f"comm of {len(expected)} samples equals perf script's", first_difference(expected, got))

if opts.status:
    suffix, text = opts.status
    rows = [r for r in sql("SELECT dso, sym, sym_status FROM perf_samples(?1)", data)
            if r[0].endswith(suffix)]
    bad = [r for r in rows if r[1] != "" or text not in r[2]]
    check(rows and not bad, f"samples in *{suffix} have no sym and a sym_status saying '{text}'",
          f"{len(rows)} samples, e.g. {bad[:1]}")

# --- per frame --------------------------------------------------------------
# perf's frames, where perf 6.1 marks "(inlined)" the function holding a
# DWARF-unwound frame's code (a clone, an alias: named otherwise in its DIE)
# corrected to its ELF symbol, each correction proven from the DIE tags
# (perf_inline_proof.py says how)
if not frames_too:
    sys.exit(1 if failures else 0)
fields = ("script", "--ns", "-F", "time,ip,sym,symoff,dso")
corrected = perf_inline_proof.correct(perf(*fields), perf(*fields, "--no-inline"),
                                      perf_inline_proof.DieChains(opts.symfs))
expected = sorted(corrected.blocks)
# every sample, those without frames too (perf prints an empty chain)
by_sample = {sample: (int(t), []) for sample, t in
             sql("SELECT record, time FROM perf_samples(?1)", data)}
for sample, t, addr, sym, off, dso, inlined in sql(
        "SELECT sample, time, printf('%x', CASE WHEN dso IS NULL THEN ip ELSE dso_offset END), "
        "sym, sym_offset, dso, inlined FROM perf_callchains(?1) ORDER BY sample, depth", data):
    by_sample.setdefault(sample, (int(t), []))[1].append(
        (addr, symstr(sym, off), "inlined" if inlined == "1" else dso or "[unknown]"))
got = sorted((t, tuple(frames)) for t, frames in by_sample.values())
expected = [(t, tuple(frames)) for t, frames in expected]
frames = sum(len(f) for _, f in expected)
if corrected.unproven:
    check(False, "perf's frames marked \"(inlined)\" checked against their DIE tags",
          "; ".join(corrected.unproven[:3]))
elif corrected.frames:
    proofs = sorted(corrected.proofs.values())
    check(True, f"perf 6.1 marks {corrected.frames} frames at {len(proofs)} addresses "
          f"\"(inlined)\" wrongly ({', '.join(sorted(corrected.symbols))}), proven by their "
          f"DIE tags, e.g. {proofs[0]}")
check(len(expected) > 0 and expected == got,
      f"{frames} callchain frames of {len(expected)} samples equal perf script's"
      + (" (corrected as proven)" if corrected.frames else ""),
      first_difference(expected, got))

# --- profiles ----------------------------------------------------------------
def perf_rows(args, pattern, count=20):
    """perf report's first `count` named rows, and how often each name occurs."""
    rows, names = [], {}
    for line in perf("report", *args, "--stdio", "-q", "-g", opts.report_g).splitlines():
        m = re.match(pattern, line)
        if m:
            row = m.groups()
            names[row[-1]] = names.get(row[-1], 0) + 1
            if not re.match(r"^(0x)?[0-9a-f]{8,}$", row[-1]):
                rows.append(row)
    return rows[:count], names


def compare(what, rows, got, unique_names=None, wrong=frozenset()):
    """rows: perf's (percents..., key); got: key -> list of percent tuples;
    wrong: names whose rows perf gets wrong (proven with the frames)."""
    bad = []
    checked = left_out = 0
    for row in rows:
        want, key = tuple(float(x) for x in row[:-1]), row[-1]
        if unique_names is not None and unique_names.get(key[-1] if isinstance(key, tuple) else key, 0) > 1:
            continue    # a name perf splits by address; a GROUP BY name merges it
        if key in wrong:
            left_out += 1
            continue
        checked += 1
        if not any(all(abs(a - b) <= 0.01 for a, b in zip(want, cand)) for cand in got.get(key, [])):
            bad.append(f"{key}: perf {want}, perfvtab {got.get(key)}")
    proven = f" ({left_out} rows left out: perf counts a clone or alias apart as \"(inlined)\", " \
             "proven wrong above)" if left_out else ""
    check(checked > 0 and not bad, f"{what} on perf's top {checked} named rows{proven}",
          "; ".join(bad[:3]))


if profiles:
    flat_rows, flat_names = perf_rows(["--no-children", "--sort", "dso,sym"],
                                      r"^\s*([\d.]+)%\s+(.+?)\s+\[.\]\s+(.*?)\s*$")
    flat_rows = [(pct, (dso, sym)) for pct, dso, sym in flat_rows]
    got = {}
    for row in sql_file(f"{root}/sql/flat_profile.sql"):
        if len(row) == 7 and row[0] != "event":
            got.setdefault((row[1], row[2]), []).append((float(row[5]),))
    compare("flat_profile.sql (perf_profile) equals perf report --no-children --sort dso,sym",
            flat_rows, got)
    # the same from perf_samples with GROUP BY
    got = {}
    for dso, sym, pct in sql(
            "SELECT CASE WHEN dso GLOB '/tmp/perf-[0-9]*.map' "
            "THEN '[JIT] tid ' || substr(dso, 11, length(dso) - 14) "
            "ELSE coalesce(replace(dso, rtrim(dso, replace(dso, '/', '')), ''), '[unknown]') END, sym, "
            "100.0 * sum(period) / (SELECT sum(period) FROM perf_samples(?1)) "
            "FROM perf_samples(?1) WHERE sym IS NOT NULL GROUP BY sym, dso", data):
        got.setdefault((dso, sym), []).append((float(pct),))
    compare("perf_samples GROUP BY dso, sym equals perf report --no-children --sort dso,sym",
            flat_rows, got, {k: v for k, v in flat_names.items()})

    incl_pattern = r"^\s*([\d.]+)%\s+([\d.]+)%\s+\[.\]\s+(.*?)\s*$"
    incl_rows, incl_names = perf_rows(["--children", "--sort", "sym"], incl_pattern)
    got = {}
    for row in sql_file(f"{root}/sql/inclusive_profile.sql"):
        if len(row) == 6 and row[0] != "event":
            got.setdefault(row[1], []).append((float(row[4]), float(row[5])))
    incl_what = "inclusive_profile.sql (perf_profile) equals perf report --children --sort sym"
    # perf report sometimes lists a function of DWARF stacks with inline
    # frames in two rows (seen on one-process recordings, the rows summing to
    # its share, while perf script shows every frame as perfvtab does and
    # --sort sym,srcline gives one row: its symbol order mixes names and
    # addresses once inline symbols are in): a name perf lists more than once
    # is left out, as in the check below.
    # perf's rows for the frames it marks "(inlined)" wrongly, and for their
    # symbols (counted apart, as the sample's own function only): left out
    wrong = {n + " (inlined)" for n in corrected.wrong_names} | corrected.symbols
    compare(incl_what, incl_rows, got, incl_names, wrong)
    # the same from perf_samples and perf_callchains: each function once per sample
    got = {}
    for sym, children in sql(
            "SELECT sym, 100.0 * sum(period) / (SELECT sum(period) FROM perf_samples(?1)) FROM ("
            " SELECT sym, dso, period FROM perf_samples(?1)"
            " UNION ALL SELECT sym || CASE WHEN inlined THEN ' (inlined)' ELSE '' END, dso, period"
            " FROM perf_callchains(?1) WHERE repeated = 0)"
            " WHERE sym IS NOT NULL GROUP BY sym, dso", data):
        got.setdefault(sym, []).append((float(children),))
    compare("perf_samples + perf_callchains (repeated = 0) equal perf report --children --sort sym",
            [(c, sym) for c, _s, sym in incl_rows], got, incl_names, wrong)
    # the same through perf_sum_by, a hash GROUP BY
    got = {}
    for sym, children in sql(
            "SELECT g.value->>0, 100.0 * (g.value->>2) / (SELECT sum(period) FROM perf_samples(?1))"
            " FROM json_each((SELECT perf_sum_by(sym, dso, period) FROM ("
            " SELECT sym, dso, period FROM perf_samples(?1)"
            " UNION ALL SELECT sym || CASE WHEN inlined THEN ' (inlined)' ELSE '' END, dso, period"
            " FROM perf_callchains(?1) WHERE repeated = 0))) g"
            " WHERE g.value->>0 IS NOT NULL", data):
        got.setdefault(sym, []).append((float(children),))
    compare("perf_sum_by over perf_samples + perf_callchains equals perf report --children --sort sym",
            [(c, sym) for c, _s, sym in incl_rows], got, incl_names, wrong)

sys.exit(1 if failures else 0)
