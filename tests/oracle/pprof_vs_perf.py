#!/usr/bin/env python3
"""perf_pprof's profile read by `go tool pprof` against perf report, on one file.

    pprof_vs_perf.py NAME PROFILE.pb.gz PERF.data [--event EVENT] [--top N]
                     [--labels] [--min-kernel K] [--buildid-dir DIR]

Prints `ok - ...` / `not ok - ...` lines (tests/t_pprof.sh counts them).

- flat: `go tool pprof -top -noinlines` against `perf report --no-children
  --sort dso,sym` (percent of the event's period, computed from perf's period
  column).  -noinlines: perf's self row is the symbol of the sample's ip,
  never a function inlined there, while pprof's flat goes to a location's
  first (innermost) Line.  pprof names an address without a symbol by its
  mapping, "[basename]" ("<unknown>" without one), so perf's rows of
  unresolved addresses are summed per dso to compare.
- cum: `go tool pprof -top` against `perf report --children --sort dso,sym`,
  for functions with a symbol ("name (inlined)" is perf's row of an inlined
  function, pprof's "name").  Without callchains perf has no children
  mode: cum is then the flat figure.  A name perf shows twice (two dsos, or inlined
  and not) is one node for pprof, so it is left out.  So are the rows of the
  frames perf 6.1 marks "(inlined)" wrongly (a clone or alias holding a
  --call-graph dwarf frame's code, proven from the DIE tags by
  perf_inline_proof.py) and of their ELF symbols, which perf counts apart:
  pprof names such a frame by its symbol.
- each of perf's top N rows (flat: all rows; cum: named ones) must be in
  pprof's list with the same percent within 0.01 points (both print two
  decimals).
- --labels: `go tool pprof -tags` per comm and per cpu against perf report
  --sort comm / --sort cpu.
- --min-kernel K: at least K of the named rows compared are kernel ([k]).
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perf_inline_proof  # noqa: E402

TOLERANCE = 0.01 + 1e-9
failed = False


def ok(name, what):
    print(f"ok - {name}: {what}")


def not_ok(name, what, why):
    global failed
    failed = True
    print(f"not ok - {name}: {what}: {why}")


def run(cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          errors="replace", check=True).stdout


PERF = ["perf"]


def perf_sections(data, args):
    """perf report's rows of each event: {event: [line, ...]}."""
    out = run(PERF + ["report", "-i", data, "--stdio", "-g", "none"] + args)
    sections, current = {}, None
    for line in out.splitlines():
        m = re.match(r"# Samples: .* of event '(.*)'", line)
        if m:
            current = m.group(1)
            sections[current] = []
        elif current and line.strip() and not line.startswith("#"):
            sections[current].append(line)
    return sections


def pick(sections, event):
    if event is None:
        event = next((e for e in sections if not e.startswith("dummy")), None)
    return event, sections.get(event, [])


ROW = re.compile(r"^\s*(?P<a>[\d.]+)%\s+(?P<b>[\d.]+%?)\s+(?P<dso>\S+)\s+\[(?P<mode>.)\]\s+(?P<sym>.*?)\s*$")


def unresolved(sym):
    """perf's name of an address without a symbol: 0x... (ip 0: sixteen zeros)."""
    return re.fullmatch(r"0x[0-9a-f]+|[0-9a-f]{16}", sym) is not None


def pprof_name(dso, sym):
    """The node name pprof gives perf's row."""
    if unresolved(sym):
        return "<unknown>" if dso == "[unknown]" else f"[{os.path.basename(dso)}]"
    return sym


def perf_flat(data, event):
    rows = perf_sections(data, ["--no-children", "--sort", "dso,sym",
                                "-F", "overhead,period,dso,sym"])
    event, lines = pick(rows, event)
    periods, total = {}, 0
    for line in lines:
        m = ROW.match(line)
        if not m:
            continue
        period = int(m.group("b"))
        total += period
        name = pprof_name(m.group("dso"), m.group("sym"))
        periods[name] = periods.get(name, 0) + period
    return event, {n: 100.0 * p / total for n, p in periods.items()} if total else {}


def perf_wrong_names(data):
    """The names of the frames perf marks "(inlined)" wrongly and their
    symbols (perf_inline_proof.py), and the corrections' proofs; None when a
    frame perf marks so cannot be proven either way."""
    fields = ["script", "-i", data, "--ns", "-F", "time,ip,sym,symoff,dso"]
    corrected = perf_inline_proof.correct(run(PERF + fields), run(PERF + fields + ["--no-inline"]),
                                          perf_inline_proof.DieChains())
    if corrected.unproven:
        return None, corrected.unproven
    return corrected.wrong_names | corrected.symbols, sorted(corrected.proofs.values())


def perf_children(data, event, wrong):
    rows = perf_sections(data, ["--children", "--sort", "dso,sym"])
    event, lines = pick(rows, event)
    seen, cum, kernel = {}, {}, set()
    for line in lines:
        m = ROW.match(line)
        if not m or unresolved(m.group("sym")):
            continue
        name = re.sub(r" \(inlined\)$", "", m.group("sym"))
        if name in wrong:
            continue
        seen[name] = seen.get(name, 0) + 1
        cum[name] = float(m.group("a"))
        if m.group("mode") == "k":
            kernel.add(name)
    return {n: p for n, p in cum.items() if seen[n] == 1}, kernel


def pprof_top(profile, extra):
    out = run(["go", "tool", "pprof", "-top", "-nodefraction=0", "-edgefraction=0"] + extra +
              [profile])
    nodes = {}
    for line in out.splitlines():
        m = re.match(r"^\s*\S+\s+([\d.]+)%\s+[\d.]+%\s+\S+\s+([\d.]+)%\s+(.*)$", line)
        if m:
            # pprof marks a function that is only ever inlined "name (inline)"
            name = re.sub(r" \(inline\)$", "", m.group(3))
            nodes[name] = (float(m.group(1)), float(m.group(2)))
    return nodes


def compare(name, what, perf, pprof, index, top):
    ranked = sorted(perf.items(), key=lambda kv: -kv[1])[:top]
    bad = []
    for fn, pct in ranked:
        got = pprof.get(fn)
        if got is None or abs(got[index] - pct) > TOLERANCE:
            bad.append(f"{fn}: perf {pct:.4f}%, pprof {got[index] if got else 'absent'}")
    if not ranked:
        not_ok(name, what, "perf report shows no rows")
    elif bad:
        not_ok(name, what, "; ".join(bad[:5]))
    else:
        ok(name, f"{what} ({len(ranked)} functions, top {ranked[0][0]} {ranked[0][1]:.2f}%)")
    return [fn for fn, _ in ranked]


def tags(profile, key):
    out = run(["go", "tool", "pprof", "-tags", f"-tagshow={key}", profile])
    values, inside = {}, False
    for line in out.splitlines():
        if re.match(rf"^\s*{key}: Total", line):
            inside = True
        elif inside and not line.strip():
            break
        elif inside:
            m = re.match(r"^\s*\S+\s+\(\s*([\d.]+)%\):\s+(.*?)\s*$", line)
            if m:
                values[m.group(2)] = float(m.group(1))
    return values


def perf_by(data, event, key):
    _, lines = pick(perf_sections(data, ["--no-children", "--sort", key]), event)
    values = {}
    for line in lines:
        m = re.match(r"^\s*([\d.]+)%\s+(.*?)\s*$", line)
        if m:
            values[m.group(2)] = float(m.group(1))
    return values


def main():
    p = argparse.ArgumentParser()
    p.add_argument("name")
    p.add_argument("profile")
    p.add_argument("data")
    p.add_argument("--event")
    p.add_argument("--top", type=int, default=10)
    p.add_argument("--labels", action="store_true")
    p.add_argument("--min-kernel", type=int, default=0)
    p.add_argument("--buildid-dir", help="perf's build-id cache (perf_symbol_path's symdir)")
    a = p.parse_args()
    if a.buildid_dir:
        PERF.extend(["--buildid-dir", a.buildid_dir])

    event, flat = perf_flat(a.data, a.event)
    wrong, proofs = perf_wrong_names(a.data)
    if wrong is None:
        not_ok(a.name, "perf's frames marked \"(inlined)\" checked against their DIE tags",
               "; ".join(proofs[:3]))
        wrong = set()
    elif wrong:
        ok(a.name, f"cum% leaves out {', '.join(sorted(wrong))}: perf 6.1 marks their frames "
           f"\"(inlined)\" wrongly, proven by the DIE tags, e.g. {proofs[0]}")
    cum, kernel = perf_children(a.data, event, wrong)
    if not cum:
        # no callchains: perf report has no children mode; a function's
        # cumulative share is its own
        cum = {fn: pct for fn, pct in flat.items() if not fn.startswith(("[", "<"))}
    compare(a.name, f"flat% of event {event} as perf report --no-children",
            flat, pprof_top(a.profile, ["-noinlines"]), 0, a.top)
    named = compare(a.name, f"cum% of event {event} as perf report --children",
                    cum, pprof_top(a.profile, []), 1, a.top)
    if a.min_kernel:
        # kernel functions beyond the top N too: every one perf names
        k = [fn for fn in cum if fn in kernel]
        compare(a.name, "cum% of the kernel functions as perf report --children",
                {fn: cum[fn] for fn in k}, pprof_top(a.profile, []), 1, len(k) or 1)
        if len(k) >= a.min_kernel:
            ok(a.name, f"kernel frames: {len(k)} kernel functions named (at least {a.min_kernel})")
        else:
            not_ok(a.name, "kernel frames", f"{len(k)} kernel functions named, want {a.min_kernel}")
    del named
    if a.labels:
        for key, perf_key in (("comm", "comm"), ("cpu", "cpu"), ("pid", "pid")):
            want = perf_by(a.data, event, perf_key)
            if key == "pid":    # perf prints "  4365:bash"
                want = {k.split(":", 1)[0].strip(): v for k, v in want.items()}
            if key == "cpu":    # perf prints "001"
                want = {str(int(k)): v for k, v in want.items()}
            got = tags(a.profile, key)
            if key == "cpu" and set(want) == {"-1"}:
                # perf's -1: the recording has no cpu; no label then
                if got:
                    not_ok(a.name, "label cpu", f"the recording has no cpu, pprof shows {got}")
                else:
                    ok(a.name, "label cpu: not recorded, no label (perf report --sort cpu: -1)")
                continue
            if key == "comm":   # perf cuts a name to its column's width
                for k in list(want):
                    longer = [g for g in got if g.startswith(k) and g not in want]
                    if k not in got and len(longer) == 1:
                        want[longer[0]] = want.pop(k)
            bad = [f"{k}: perf {v}%, pprof {got.get(k)}" for k, v in want.items()
                   if got.get(k) is None or abs(got[k] - v) > TOLERANCE]
            extra = sorted(set(got) - set(want))
            if not want:
                not_ok(a.name, f"label {key}", "perf report shows no rows")
            elif bad or extra:
                not_ok(a.name, f"label {key} as perf report --sort {perf_key}",
                       "; ".join(bad[:5] + [f"only pprof: {x}" for x in extra[:3]]))
            else:
                ok(a.name, f"label {key} as perf report --sort {perf_key} ({len(want)} values)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
