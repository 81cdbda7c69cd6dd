#!/usr/bin/env python3
"""One name for a frame in every table, on a program with clones and real
inlines (tests/fixtures/clones/clones.c), for tests/t_frame_names.sh.

    frame_names_vs_perf.py dies NAME INLINE_NAMES BINARY
    frame_names_vs_perf.py tables SQLRUN ROOT NAME DATA BINARY [--pprof]
    frame_names_vs_perf.py offcpu SQLRUN NAME DATA BINARY

dies (no recording): at every instruction of BINARY's clones (ELF symbols
  .constprop.N, .part.N, .isra.N, .cold; gcc must have made each kind) and
  of the functions holding real inlines, the reader's functions and inlined
  flags (tests/tools/inline_names, src/unwind/inline_frames.c) are the DIEs
  llvm-dwarfdump reads there: DW_TAG_inlined_subroutine inlined, the
  DW_TAG_subprogram holding the code not, a clone's too (its DIE names the
  function it was cloned from through DW_AT_abstract_origin, or, .cold,
  takes it in with DW_AT_ranges).  One real inline sits in a lexical block.

tables (a recording of BINARY): the expected values are perf script's
  frames corrected where perf 6.1 marks a clone "(inlined)", each correction
  proven from the DIE tags (perf_inline_proof.py; symbols_vs_perf.py
  compares perf_callchains with them frame by frame), perf script's samples
  (own symbol, period, comm) and perf report --no-children:
  - perf_profile, sql/flat_profile.sql and sql/inclusive_profile.sql: the
    self and children period of every function of BINARY;
  - sql/folded_stacks.sql: every stack, and perf_flamegraph's SVG of them
    (tests/tools/flamegraph_check.py);
  - sql/callers_callees.sql for each clone: every row, and it has a self
    row, callers and callees;
  - each clone by its symbol in perf_samples, perf_callchains (never
    inlined), perf_profile, the folded stacks and, with --pprof, perf_pprof
    (go tool pprof -top: flat and cum of every function of BINARY); the
    name perf wrongly prints for it nowhere but as a real inline.

offcpu (a --call-graph dwarf recording with sched:sched_switch): every
  perf_offcpu stack is the names perf_callchains gives its sample, and the
  clone that sleeps is there by its symbol.

Prints "ok - ..." / "not ok - ..." lines; exit status 1 on a failure.
"""
import os
import re
import subprocess
import sqlite3
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perf_inline_proof as proof  # noqa: E402

CLONE_RE = re.compile(r"^(.+?)\.(constprop|part|isra)\.\d+$|^(.+?)\.(cold)$")
failures = 0
label = ""


def check(cond, what, why=""):
    global failures
    if cond:
        print(f"ok - {label}: {what}")
    else:
        failures += 1
        print(f"not ok - {label}: {what}: {why}")


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, errors="replace", **kw)
    if r.returncode != 0:
        raise SystemExit(f"not ok - {label}: {' '.join(cmd[:3])} failed: {r.stderr.strip()[:300]}")
    return r.stdout


def functions(binary):
    """BINARY's FUNC symbols with a size: {name: (start, end)}."""
    found = {}
    for line in run(["readelf", "-sW", binary]).splitlines():
        f = line.split()
        if len(f) >= 8 and f[3] == "FUNC" and f[6] != "UND" and int(f[2], 0) > 0:
            found[f[7]] = (int(f[1], 16), int(f[1], 16) + int(f[2], 0))
    return found


def clones(binary):
    """{clone symbol: kind} of BINARY."""
    return {name: (m.group(2) or m.group(4)) for name in functions(binary)
            for m in [CLONE_RE.match(name)] if m}


# ---- dies ------------------------------------------------------------------

def instructions(binary, start, end):
    out = run(["objdump", "-d", "--no-show-raw-insn", f"--start-address=0x{start:x}",
               f"--stop-address=0x{end:x}", binary])
    return [int(a, 16) for a in re.findall(r"^\s+([0-9a-f]+):", out, re.M)]


def functions_with_inlines(dwarfdump, binary):
    """The low_pc of every out-of-line DW_TAG_subprogram with a
    DW_TAG_inlined_subroutine inside, from llvm-dwarfdump's dump (a DIE's
    depth is its indentation)."""
    holding, top, top_depth = set(), None, None
    for line in run([dwarfdump, "--debug-info", binary]).splitlines():
        m = re.match(r"^0x[0-9a-f]+:( +)DW_TAG_(\w+)", line)
        if m:
            depth = len(m.group(1))
            if top_depth is not None and depth <= top_depth:
                top = top_depth = None
            if m.group(2) == "subprogram" and top is None:
                top, top_depth = "pending", depth
            elif m.group(2) == "inlined_subroutine" and top not in (None, "pending"):
                holding.add(top)
            continue
        low = re.match(r"^\s+DW_AT_low_pc\s+\(0x([0-9a-f]+)\)", line)
        if low and top == "pending":
            top = int(low.group(1), 16)
    return holding


def dies_mode(tool, binary):
    kinds = clones(binary)
    found = sorted(set(kinds.values()))
    check(found == ["cold", "constprop", "isra", "part"],
          f"gcc made a clone of each kind: {', '.join(sorted(kinds))}", f"kinds {found}")
    symbols = functions(binary)
    dwarfdump = proof.dwarfdump()
    # the clones, and the functions holding a real inline (but main: its
    # inline, msort's early exit, is in msort.part.0 too)
    holding = functions_with_inlines(dwarfdump, binary)
    chosen, chains = {}, {}
    for name, (start, end) in sorted(symbols.items()):
        if name in kinds or (start in holding and name != "main"):
            chosen[name] = instructions(binary, start, end)
            chains.update((a, proof.dies_at(dwarfdump, binary, a)) for a in chosen[name])
    ours = {}
    addrs = sorted(chains)
    for line in run([tool, binary] + [f"{a:x}" for a in addrs]).splitlines():
        at, _, rest = line.partition(":")
        rest = rest.strip()
        ours[int(at, 16)] = [] if rest == "-" else [
            (n[:-len(" (inlined)")], True) if n.endswith(" (inlined)") else (n, False)
            for n in rest.split(", ")]
    bad = []
    for a in addrs:
        want = [d for d in chains[a] if d[0] in ("subprogram", "inlined_subroutine")][::-1]
        got = ours.get(a)
        if (got is None or len(got) != len(want) or
                any(not proof.same_function(n, d[1]) or inl != (d[0] == "inlined_subroutine")
                    for (n, inl), d in zip(got, want))):
            bad.append(f"0x{a:x}: reader {got}, DIEs {[(d[0], d[1]) for d in want]}")
    check(addrs and not bad,
          f"at all {len(addrs)} instructions of {', '.join(sorted(chosen))}, the reader's "
          "functions are the DIEs', inlined exactly where a DW_TAG_inlined_subroutine holds "
          "the code", "; ".join(bad[:3]))
    for name, kind in sorted(kinds.items()):
        own = [a for a in chosen.get(name, ())
               if [d for d in chains[a] if d[0] == "inlined_subroutine"] == []]
        holders = {chains[a][0][1][0] for a in own if chains[a]}
        tags = {chains[a][0][0] for a in own if chains[a]}
        origin = all(chains[a][0][2] for a in own) if kind != "cold" else True
        marked = [a for a in own if any(inl for _, inl in ours.get(a, []))]
        inlines = len(chosen.get(name, ())) - len(own)
        check(own and tags == {"subprogram"} and origin and not marked,
              f"{name} ({kind}): its own code ({len(own)} instructions) is a DW_TAG_subprogram "
              f"naming {', '.join(sorted(holders))}"
              + (" through DW_AT_abstract_origin" if kind != "cold" else "")
              + ", not a DW_TAG_inlined_subroutine; the reader marks none of it inlined"
              + (f" (its {inlines} instructions in a real inline are: checked above)"
                 if inlines else ""),
              f"tags {tags}, abstract origin {origin}, marked inlined at {marked[:3]}")
    # a real inline inside a lexical block of its caller
    in_block = [a for a in chains for i, d in enumerate(chains[a])
                if d[0] == "inlined_subroutine" and
                any(e[0] == "lexical_block" for e in chains[a][:i])]
    named = {ours[a][0][0] for a in in_block if ours.get(a) and ours[a][0][1]}
    check(in_block and len(named) > 0 and all(ours.get(a) and ours[a][0][1] for a in in_block),
          f"an inline inside a lexical block ({', '.join(sorted(named))}, "
          f"{len(in_block)} instructions): the reader finds it below the block",
          f"{len(in_block)} such instructions, the reader's names there "
          f"{[ours.get(a) for a in in_block[:3]]}")


# ---- tables ------------------------------------------------------------------

class Recording:
    """perf's view of DATA, frames corrected as proven."""

    def __init__(self, sqlrun, data, binary):
        self.sqlrun, self.data, self.binary = sqlrun, data, binary
        fields = ["script", "--ns", "-F", "comm,tid,time,period,ip,sym,symoff,dso"]
        perf = lambda *a: run(["perf", *a, "-i", data])  # noqa: E731
        self.corrected = proof.correct(perf(*fields), perf(*fields, "--no-inline"),
                                       proof.DieChains())
        own = proof.parse_samples(perf("script", "--ns", "-G", "-F",
                                       "comm,tid,time,period,ip,sym,symoff,dso"))
        samples = self.corrected.samples
        if [s.time for s in own] != [s.time for s in samples]:
            raise SystemExit(f"not ok - {label}: perf script -G lists other samples")
        for s, o in zip(samples, own):
            s.own = o.frames[0] if o.frames else None
        self.total = sum(s.period for s in samples)

    def sql(self, query):
        query = query.replace("@file", "'" + self.data.replace("'", "''") + "'")
        out = run([self.sqlrun, query])
        return [line.split("\t") for line in out.splitlines()]

    def sql_file(self, path, **params):
        text = open(path).read()
        for k, v in params.items():
            text = text.replace("@" + k, v)
        return self.sql(re.sub(r"@(event|svg|weight|title)\b", "NULL", text))


def name_of(entry):
    """A frame's name in the tables: its symbol, or its address in hex."""
    addr, symoff = entry[0], entry[1]
    return f"0x{int(addr, 16):016x}" if symoff == "[unknown]" else proof.bare(symoff)


def short_dso(dso):
    if dso in ("[unknown]", None):
        return "[unknown]"
    return dso if dso.startswith("[") else os.path.basename(dso)


def profile_checks(rec):
    """Self and children periods of BINARY's functions, from the corrected frames."""
    self_p, children = {}, {}
    for s in rec.corrected.samples:
        keys = set()
        if s.own and s.own[2] == rec.binary:
            key = (proof.bare(s.own[1]), False)
            self_p[key] = self_p.get(key, 0) + s.period
            keys.add(key)
        for f in s.frames:
            if f[3] == rec.binary and f[1] != "[unknown]":
                keys.add((proof.bare(f[1]), f[2] == "inlined"))
        for k in keys:
            children[k] = children.get(k, 0) + s.period
    got = {(sym, inl == "1"): (int(p), int(c)) for sym, inl, p, c in rec.sql(
        "SELECT sym, inlined, period, children_period FROM perf_profile(@file) "
        f"WHERE dso = '{rec.binary}' AND sym IS NOT NULL")}
    want = {k: (self_p.get(k, 0), c) for k, c in children.items()}
    bad = [f"{k}: perf {want.get(k)}, perf_profile {got.get(k)}"
           for k in sorted(set(want) | set(got)) if want.get(k) != got.get(k)]
    clone_rows = ", ".join(f"{k[0]} {v[1]}/{v[0]}" for k, v in sorted(want.items())
                           if CLONE_RE.match(k[0]))
    check(want and not bad, f"perf_profile's self and children periods of all {len(want)} "
          f"functions of the program equal perf's corrected frames' (children/self: {clone_rows})",
          "; ".join(bad[:3]))
    pct = lambda p: round(100.0 * p / rec.total, 4)  # noqa: E731
    base = os.path.basename(rec.binary)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    flat = {r[2]: float(r[5]) for r in rec.sql_file(f"{root}/sql/flat_profile.sql")
            if len(r) == 7 and r[1] == base}
    incl = {r[1]: float(r[4]) for r in rec.sql_file(f"{root}/sql/inclusive_profile.sql")
            if len(r) == 6 and r[2] == base}
    want_flat = {k[0]: pct(v) for k, v in self_p.items()}
    want_incl = {k[0] + (" (inlined)" if k[1] else ""): pct(v) for k, v in children.items()}
    for what, w, g in (("flat_profile.sql", want_flat, flat),
                       ("inclusive_profile.sql", want_incl, incl)):
        bad = [f"{k}: perf {w.get(k)}, sql {g.get(k)}" for k in sorted(set(w) | set(g))
               if w.get(k) is None or g.get(k) is None or abs(w[k] - g[k]) > 0.00011]
        check(w and not bad, f"{what}'s percentages of the program's {len(w)} functions "
              "equal perf's corrected frames'", "; ".join(bad[:3]))
    return children


def folded(rec):
    """The stacks folded_stacks.sql must give: perf's corrected frames, root first."""
    stacks = {}
    for s in rec.corrected.samples:
        names = []
        for f in s.frames or ([s.own] if s.own else []):
            addr, symoff, dso = f[0], f[1], f[3] if len(f) > 3 else f[2]
            if symoff != "[unknown]":
                names.append(proof.bare(symoff))
            elif dso == "[unknown]":
                names.append("0x" + addr)
            else:
                names.append(dso if dso.startswith("[") else "[" + os.path.basename(dso) + "]")
        stack = ";".join([s.comm.replace(" ", "_").replace(";", ":")] +
                         [n.replace(";", ":") for n in names[::-1]])
        stacks[stack] = stacks.get(stack, 0) + 1
    return stacks


def folded_checks(rec, root):
    want = folded(rec)
    got = {r[0]: int(r[1]) for r in rec.sql_file(f"{root}/sql/folded_stacks.sql")}
    diff = [f"{k}: perf {want.get(k)}, sql {got.get(k)}" for k in sorted(set(want) | set(got))
            if want.get(k) != got.get(k)]
    check(want and not diff, f"sql/folded_stacks.sql equals perf's corrected frames folded "
          f"({len(want)} stacks)", "; ".join(d[:200] for d in diff[:2]))
    with tempfile.TemporaryDirectory() as tmp:
        with open(f"{tmp}/want", "w") as f:
            f.writelines(f"{k}\t{v}\n" for k, v in sorted(want.items()))
        # the file's main query, from its WITH on: a note statement comes before
        text = open(f"{root}/sql/folded_stacks.sql").read()
        query = text[text.index("\nWITH ") + 1:].rstrip().rstrip(";")
        query = query.replace("@file", "'" + rec.data.replace("'", "''") + "'")
        query = query.replace("@event", "NULL")
        svg = f"{tmp}/fg.svg"
        run([rec.sqlrun, f"SELECT writefile('{svg}', perf_flamegraph(stack, samples)) "
             f"FROM ({query})"])
        out = run(["python3", f"{root}/tests/tools/flamegraph_check.py", "svg",
                   f"{label}: perf_flamegraph of perf's corrected stacks", f"{tmp}/want", svg])
        sys.stdout.write(out)
        global failures
        failures += out.count("not ok - ")
    return want


def callers_callees(rec, target):
    """sql/callers_callees.sql's rows for target from perf's corrected frames."""
    pairs = set()
    on_stack, own = set(), 0
    for n, s in enumerate(rec.corrected.samples):
        if s.own and name_of(s.own) == target:
            pairs.add(("self", n, s.period, short_dso(s.own[2]), target))
            own += 1
        for d, f in enumerate(s.frames):
            if name_of(f) != target:
                continue
            on_stack.add(n)
            for rel, nd in (("caller", d + 1), ("callee", d - 1)):
                if 0 <= nd < len(s.frames):
                    g = s.frames[nd]
                    pairs.add((rel, n, s.period, short_dso(g[3]), name_of(g)))
    total = max(len(on_stack), own)
    rows = {}
    for rel, _, period, dso, sym in pairs:
        c, p = rows.get((rel, sym, dso), (0, 0))
        rows[(rel, sym, dso)] = (c + 1, p + period)
    # rounded as SQLite's round() does (half away from zero), not Python's
    sqlite_round = sqlite3.connect(":memory:")
    return {(rel, sym, dso, str(c), str(p),
             str(sqlite_round.execute("SELECT round(100.0 * ? / ?, 2)", (c, total)).fetchone()[0]))
            for (rel, sym, dso), (c, p) in rows.items()}


def callers_callees_checks(rec, root, names):
    complete = set()
    for target in names:
        want = callers_callees(rec, target)
        got = {tuple(r[:5]) + (str(float(r[5])),) for r in
               rec.sql_file(f"{root}/sql/callers_callees.sql", sym=f"'{target}'")
               if len(r) == 6 and r[0] != "relation"}
        rel = {r[0] for r in got}
        if rel == {"self", "caller", "callee"}:
            complete.add(target)
        counts = ", ".join(f"{sum(1 for r in got if r[0] == k)} {k}" for k in
                           ("self", "caller", "callee"))
        check(want == got, f"callers_callees.sql for {target}: {counts} rows, all as perf's "
              "corrected frames give them",
              f"only perf {sorted(want - got)[:2]}, only sql {sorted(got - want)[:2]}")
    # each kind of clone: one with all three relations (they call step, which
    # perf samples as often as their own loops)
    kinds = clones(rec.binary)
    missing = sorted({kinds[n] for n in kinds} - {kinds[n] for n in complete})
    check(not missing, "callers_callees.sql gives a self row, callers and callees for a clone "
          f"of each kind: {', '.join(sorted(complete))}", f"none for {missing}")


def one_name_checks(rec, stacks, pprof_nodes):
    wrong = rec.corrected.wrong_names
    inlined_names = {proof.bare(f[1]) for s in rec.corrected.samples for f in s.frames
                     if f[2] == "inlined"}
    for clone in sorted(c for c in clones(rec.binary) if c in rec.corrected.symbols or
                        any(s.own and proof.bare(s.own[1]) == c for s in rec.corrected.samples)):
        counts = rec.sql(
            f"SELECT (SELECT count(*) FROM perf_samples(@file) WHERE sym = '{clone}'),"
            f" (SELECT count(*) FROM perf_callchains(@file) WHERE sym = '{clone}' AND inlined = 0),"
            f" (SELECT count(*) FROM perf_callchains(@file) WHERE sym = '{clone}' AND inlined = 1),"
            f" (SELECT count(*) FROM perf_profile(@file) WHERE sym = '{clone}' AND inlined = 0"
            "   AND children_samples > 0)")[0]
        in_stacks = sum(v for k, v in stacks.items() if clone in k.split(";"))
        where = (f"perf_samples {counts[0]}, perf_callchains {counts[1]} (inlined {counts[2]}), "
                 f"perf_profile {counts[3]} row, folded stacks {in_stacks} samples")
        ok = int(counts[1]) > 0 and counts[2] == "0" and counts[3] == "1" and in_stacks > 0
        if pprof_nodes is not None:
            where += f", pprof {'a node' if clone in pprof_nodes else 'no node'}"
            ok = ok and clone in pprof_nodes
        check(ok, f"{clone} is named by its symbol, never inlined: {where}", "")
    # what perf prints for the clones, where it is no real inline
    false_names = sorted(wrong - inlined_names)
    rows = rec.sql("SELECT DISTINCT sym FROM perf_callchains(@file) WHERE inlined = 0 "
                   f"AND dso = '{rec.binary}' UNION SELECT sym FROM perf_profile(@file) "
                   f"WHERE dso = '{rec.binary}'")
    seen = sorted({r[0] for r in rows} & set(false_names) |
                  (set(false_names) & set(pprof_nodes or ())) |
                  {n for n in false_names if any(n in k.split(";") for k in stacks)})
    check(not seen, "the names perf 6.1 gives clones and aliases instead of their symbols "
          f"({', '.join(false_names) or 'none in this recording'}) are in no table, stack "
          "or profile", f"found: {seen}")


def pprof_checks(rec, self_names):
    """go tool pprof -top of perf_pprof: flat and cum of the program's functions."""
    with tempfile.TemporaryDirectory() as tmp:
        path = f"{tmp}/p.pb.gz"
        run([rec.sqlrun, f"SELECT writefile('{path}', perf_pprof('{rec.data}'))"])
        env = dict(os.environ, PPROF_BINARY_PATH=f"{tmp}/none", GOCACHE=f"{tmp}/go")
        nodes = {}
        for flags in (["-noinlines"], []):
            out = run(["go", "tool", "pprof", "-top", "-nodefraction=0", "-edgefraction=0",
                       *flags, path], env=env)
            for line in out.splitlines():
                m = re.match(r"^\s*\S+\s+([\d.]+)%\s+[\d.]+%\s+\S+\s+([\d.]+)%\s+(.*?)"
                             r"(?: \(inline\))?$", line)
                if m:
                    nodes.setdefault(m.group(3), [None, None])[0 if flags else 1] = \
                        (float(m.group(1)), float(m.group(2)))
    # pprof has a node per name, inlined or not: cum counts a sample once
    by_name = {}
    for s in rec.corrected.samples:
        names = {proof.bare(f[1]) for f in s.frames if f[3] == rec.binary and f[1] != "[unknown]"}
        if s.own and s.own[2] == rec.binary:
            names.add(proof.bare(s.own[1]))
        for n in names:
            by_name[n] = by_name.get(n, 0) + s.period
    bad = []
    for n, p in sorted(by_name.items()):
        want_cum = 100.0 * p / rec.total
        want_flat = 100.0 * self_names.get(n, 0) / rec.total
        flat = nodes.get(n, [None, None])[0]
        cum = nodes.get(n, [None, None])[1]
        if (cum is None or abs(cum[1] - want_cum) > 0.0051 or
                abs((flat[0] if flat else 0.0) - want_flat) > 0.0051):
            bad.append(f"{n}: perf flat {want_flat:.3f} cum {want_cum:.3f}, pprof {nodes.get(n)}")
    check(by_name and not bad, f"go tool pprof -top: flat% and cum% of the program's "
          f"{len(by_name)} functions equal perf's corrected frames'", "; ".join(bad[:3]))
    return set(nodes)


def tables_mode(sqlrun, root, data, binary, with_pprof):
    rec = Recording(sqlrun, data, binary)
    if rec.corrected.unproven:
        check(False, "perf's frames corrected from the DIE tags", rec.corrected.unproven[0])
        return
    profile_checks(rec)
    stacks = folded_checks(rec, root)
    self_names = {}
    for s in rec.corrected.samples:
        if s.own and s.own[2] == binary:
            n = proof.bare(s.own[1])
            self_names[n] = self_names.get(n, 0) + s.period
    nodes = pprof_checks(rec, self_names) if with_pprof else None
    targets = sorted(c for c in clones(binary) if c in self_names)
    callers_callees_checks(rec, root, targets)
    one_name_checks(rec, stacks, nodes)


# ---- offcpu ------------------------------------------------------------------

def offcpu_mode(sqlrun, data, binary):
    q = (f"SELECT o.record, o.stack, (SELECT json_group_array(name) FROM (SELECT "
         "coalesce(c.sym, CASE WHEN c.dso IS NOT NULL THEN printf('%s+0x%x', c.dso, c.dso_offset) "
         "ELSE '[unknown]' END) AS name FROM perf_callchains(@file) c "
         "WHERE c.sample = o.record ORDER BY c.depth)) FROM perf_offcpu(@file) o "
         "WHERE o.record IS NOT NULL AND o.stack IS NOT NULL")
    q = q.replace("@file", "'" + data.replace("'", "''") + "'")
    rows = [line.split("\t") for line in run([sqlrun, q]).splitlines()]
    bad = [r for r in rows if len(r) != 3 or r[1] != r[2]]
    check(rows and not bad, f"each of {len(rows)} perf_offcpu stacks is its sample's "
          "perf_callchains names", f"{bad[:1]}")
    # the clone that sleeps: on the stacks of sleeping intervals
    sleeping = [line.split("\t") for line in run([sqlrun, (
        "SELECT record, stack FROM perf_offcpu(@file) WHERE prev_state = 'sleeping' "
        "AND stack IS NOT NULL").replace("@file", "'" + data.replace("'", "''") + "'")]).splitlines()]
    sleepers = sorted(c for c in clones(binary) if any(f'"{c}"' in r[1] for r in sleeping))
    real_inlines = set(run([sqlrun, (
        "SELECT DISTINCT sym FROM perf_callchains(@file) WHERE inlined = 1").replace(
        "@file", "'" + data.replace("'", "''") + "'")]).splitlines())
    bases = {m.group(1) or m.group(3) for m in map(CLONE_RE.match, sleepers)} - real_inlines
    named_base = [r[0] for r in rows if any(f'"{b}"' in r[1] for b in bases)]
    check(sleepers and bases and not named_base,
          f"the clone that sleeps is on the sleeping intervals' stacks by its symbol "
          f"({', '.join(sleepers)}), on no stack by its DIE's name ({', '.join(sorted(bases))})",
          f"clones on sleeping stacks {sleepers}, records naming the DIE's name {named_base[:3]}")


def main():
    global label
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "dies":
        label, tool, binary = args
        dies_mode(tool, binary)
    elif mode == "tables":
        sqlrun, root, label, data, binary = args[:5]
        tables_mode(sqlrun, root, data, binary, "--pprof" in args[5:])
    elif mode == "offcpu":
        sqlrun, label, data, binary = args
        offcpu_mode(sqlrun, data, binary)
    else:
        raise SystemExit(__doc__)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
