"""perf script's DWARF-unwound frames, corrected where perf 6.1 marks a frame
"(inlined)" that is not, each correction proven from the DIE tags.

perf 6.1 expands each DWARF-unwound frame into the names `addr2line -i`
gives at its address (the inlined functions innermost first, then the
function holding the code) and prints "(inlined)" after every name that is
not the frame's ELF symbol.  So the function holding the code is printed
"(inlined)" when its DIE names it otherwise: a clone (spin.constprop.0,
msort.part.0, scan.isra.0, rare_path.cold: a DW_TAG_subprogram whose
DW_AT_abstract_origin names spin, msort, ..., or whose DW_AT_ranges take in
the .cold part) or an alias (libc's __libc_start_main@@GLIBC_2.34, whose DIE
is __libc_start_main_impl).  None of them is inlined.  perfvtab names that
row by its ELF symbol, not inlined; a row is inlined only for a
DW_TAG_inlined_subroutine (docs/schema.md, perf_callchains).

How the expected frames are made, from perf and from the bytes only:
  - perf script with its inline expansion (B) and with --no-inline (A), on
    the same recording: A has one entry per frame, named by the ELF symbol
    (perf's own); B has the same frames, each expanded into g entries.
  - A run of r frames at one address in A is a run of r * g entries at that
    address in B: so g, the entries per frame, comes from perf's two
    outputs, whatever perf marked.
  - Each frame's expected entries: the first g - 1 of B's (the inlined
    functions, as perf names them), marked inlined, then A's entry (the ELF
    symbol and dso).
  - Where that differs from B's entries (perf marked the holder "(inlined)",
    or an inlined one not), the DIEs at the address must say so: read by
    llvm-dwarfdump (not by perfvtab's code) from the debug info of perf's
    dso, the chain of DIEs holding the address has one DW_TAG_subprogram
    whose name (DW_AT_name, or through DW_AT_abstract_origin or
    DW_AT_specification) is the name perf printed for the holder, and
    g - 1 DW_TAG_inlined_subroutine below it.  A correction without that
    proof is not made: the frame keeps perf's entries, and the comparison
    fails on it.
"""
import os
import re
import shutil
import subprocess

# perf script -F ip,sym,symoff,dso frame lines; sym+off or [unknown]; dso
# names may hold spaces and parentheses, symbol names spaces
FRAME_RE = re.compile(r"^\s*([0-9a-f]+) (.*?\+0x[0-9a-f]+|\[unknown\]) \((.*)\)$")
# a sample's line: [comm tid] time: [period] [its frame, with -G]
HEAD_RE = re.compile(r"^\s*(?:(\S.*?)\s+(\d+)\s+)?(\d+\.\d+):\s*(\d+)?"
                     r"(?:\s+([0-9a-f]+) (.*?\+0x[0-9a-f]+|\[unknown\]) \((.*)\))?\s*$")


def ns(text):
    sec, frac = text.split(".")
    return int(sec) * 1000000000 + int(frac.ljust(9, "0"))


class Sample:
    def __init__(self, comm, tid, time, period):
        self.comm, self.tid, self.time, self.period = comm, tid, time, period
        self.frames = []    # [(addr, symoff, dso)], leaf first


def parse_samples(text):
    """perf script --ns [-G] -F [comm,tid,]time[,period],ip,sym,symoff,dso: [Sample]."""
    samples = []
    for line in text.splitlines():
        m = FRAME_RE.match(line)
        if m and samples:
            samples[-1].frames.append((m.group(1), m.group(2), m.group(3)))
            continue
        head = HEAD_RE.match(line)
        if head:
            samples.append(Sample(head.group(1), head.group(2) and int(head.group(2)),
                                  ns(head.group(3)), head.group(4) and int(head.group(4))))
            if head.group(5):
                samples[-1].frames.append(head.group(5, 6, 7))
    return samples


def bare(symoff):
    return re.sub(r"\+0x[0-9a-f]+$", "", symoff)


def dwarfdump():
    found = shutil.which("llvm-dwarfdump")
    if found:
        return found
    for d in sorted(os.listdir("/usr/lib"), reverse=True):
        path = f"/usr/lib/{d}/bin/llvm-dwarfdump"
        if d.startswith("llvm-") and os.access(path, os.X_OK):
            return path
    return None


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    return r.stdout if r.returncode == 0 else None


class DieChains:
    """The DIEs holding an address of an ELF file, read by llvm-dwarfdump."""

    def __init__(self, symfs=None):
        self.tool = dwarfdump()
        self.symfs = symfs
        self.files = {}     # dso -> (debug file or None, is_exec, loads)
        self.chains = {}

    def _file(self, dso):
        if dso in self.files:
            return self.files[dso]
        path = self.symfs + dso if self.symfs else dso
        info = (None, False, [])
        header = run(["readelf", "-hlSnW", path]) if os.path.isfile(path) else None
        if header:
            is_exec = re.search(r"Type:\s+EXEC", header) is not None
            loads = [(int(o, 16), int(v, 16), int(s, 16)) for o, v, s in re.findall(
                r"^\s*LOAD\s+0x([0-9a-f]+) 0x([0-9a-f]+) 0x[0-9a-f]+ 0x([0-9a-f]+)", header, re.M)]
            debug = path if re.search(r"\] \.debug_info\s", header) else None
            build_id = re.search(r"Build ID: ([0-9a-f]+)", header)
            if not debug and build_id:
                bid = build_id.group(1)
                candidate = f"/usr/lib/debug/.build-id/{bid[:2]}/{bid[2:]}.debug"
                debug = candidate if os.path.isfile(candidate) else None
            info = (debug, is_exec, loads)
        self.files[dso] = info
        return info

    def _vaddr(self, dso, addr):
        """perf's frame address (the file offset, for a shared object or
        PIE; the address itself for an ET_EXEC) as an address of the file."""
        _, is_exec, loads = self._file(dso)
        if is_exec:
            return addr
        for offset, vaddr, size in loads:
            if offset <= addr < offset + size:
                return addr - offset + vaddr
        return addr

    def chain(self, dso, addr):
        """[(tag, names, has_abstract_origin), ...] of the DIEs holding perf's
        address addr in dso, outermost first (the compile unit left out);
        None without debug info."""
        key = (dso, addr)
        if key not in self.chains:
            debug = self._file(dso)[0]
            self.chains[key] = (dies_at(self.tool, debug, self._vaddr(dso, addr))
                                if debug and self.tool else None)
        return self.chains[key]


def dies_at(tool, path, pc):
    """The DIEs of the ELF file path holding its address pc, outermost first:
    llvm-dwarfdump --lookup finds the deepest (a lexical block, an inlined
    subroutine, a subprogram), --show-parents prints it with every DIE it is
    inside, after the compile unit's line (the last such group is the
    deepest DIE's)."""
    out = run([tool, f"--lookup=0x{pc:x}", "--show-parents", path]) or ""
    groups = re.split(r"\n(?=0x[0-9a-f]+:\s+DW_TAG_compile_unit)", out)
    return parse_dies(groups[-1]) if len(groups) > 1 else []


def parse_dies(text):
    """llvm-dwarfdump's DIEs: [(tag, names, has_abstract_origin)]; names: its
    DW_AT_name, DW_AT_linkage_name (libc's asm-renamed __GI_ functions) and
    the name llvm-dwarfdump shows for its DW_AT_abstract_origin or
    DW_AT_specification."""
    dies = []
    for block in re.split(r"\n(?=0x[0-9a-f]+:)", text):
        m = re.match(r"0x[0-9a-f]+:\s+DW_TAG_(\w+)", block)
        if not m or m.group(1) == "compile_unit":
            continue
        names = re.findall(r'DW_AT_(?:name|linkage_name)\s+\("([^"]*)"\)', block)
        names += re.findall(
            r'DW_AT_(?:abstract_origin|specification)\s+\(0x[0-9a-f]+ "([^"]*)"\)', block)
        dies.append((m.group(1), tuple(names), "DW_AT_abstract_origin" in block))
    return dies


def same_function(perf_name, die_names):
    # perf demangles a linkage name (a::b::f); a DIE's name is the last part
    return any(perf_name == n or perf_name.endswith("::" + n) for n in die_names)


def proof(dies, group, frame):
    """Why perf's entries (group) for a frame (perf's entry without
    inlines) are wrong, from the DIEs at its address: the function DIEs must
    be one subprogram named as perf's last entry and one inlined subroutine
    for each entry before it; None when they are not."""
    if not dies:
        return None
    names = [bare(e[1]) for e in group]
    functions = [d for d in dies if d[0] in ("subprogram", "inlined_subroutine")]
    if (len(functions) != len(names) or functions[0][0] != "subprogram" or
            any(f[0] != "inlined_subroutine" for f in functions[1:])):
        return None
    # names: innermost first; functions: outermost first
    for name, die in zip(reversed(names), functions):
        if not same_function(name, die[1]):
            return None
    holder = functions[0]
    how = ("DW_AT_abstract_origin -> " if holder[2] else "DW_AT_name ") + holder[1][0]
    where = f"{os.path.basename(frame[2])} 0x{frame[0]}"
    inside = f"{len(names) - 1} DW_TAG_inlined_subroutine inside"
    if group[-1][2] == "inlined":
        return (f"{where}: perf prints {names[-1]} (inlined), but the DIE holding the code is a "
                f"DW_TAG_subprogram ({how}) with {inside}: the code of {bare(frame[1])}, "
                "not an inline")
    return (f"{where}: perf prints {', '.join(names[:-1])} without (inlined), but the DIEs "
            f"are a DW_TAG_subprogram ({how}) with {inside}")


class Corrected:
    """The corrected frames of each sample, and what was corrected."""

    def __init__(self):
        self.samples = []       # [Sample], frames [(addr, symoff, "inlined" or dso, dso)]
        self.proofs = {}        # (dso, addr) -> text
        self.unproven = []      # texts
        self.frames = 0         # frames corrected
        self.wrong_names = set()    # perf's names of the holders it marked inlined
        self.symbols = set()        # the ELF symbols those frames are

    @property
    def blocks(self):
        """[(time, [(addr, symoff, "inlined" or dso)])], as perf_callchains' rows compare."""
        return [(s.time, [f[:3] for f in s.frames]) for s in self.samples]


def correct(inline_text, plain_text, dies):
    """perf script's frames (inline_text: with its inline expansion;
    plain_text: --no-inline, the same fields) corrected as the module says."""
    result = Corrected()
    inline_samples, plain_samples = parse_samples(inline_text), parse_samples(plain_text)
    if [s.time for s in inline_samples] != [s.time for s in plain_samples]:
        result.unproven.append("perf script with and without --no-inline list other samples")
        plain_samples = inline_samples
    for b, a in zip(inline_samples, plain_samples):
        b.frames = correct_sample(b.frames, a.frames, dies, result)
        result.samples.append(b)
    return result


def correct_sample(b, a, dies, result):
    """B's entries, each with the dso of its frame; corrected as proven."""
    out, i, j = [], 0, 0
    as_perf = [(e[0], e[1], "inlined" if e[2] == "inlined" else e[2], e[2]) for e in b]
    while i < len(a):
        addr = a[i][0]
        r = 1
        while i + r < len(a) and a[i + r][0] == addr:
            r += 1
        t = 0
        while j + t < len(b) and b[j + t][0] == addr:
            t += 1
        if t == 0 or t % r:
            result.unproven.append(f"0x{addr}: {r} frames without inlines, {t} with")
            return as_perf
        g = t // r
        for k in range(r):
            group = b[j + k * g: j + (k + 1) * g]
            frame = a[i + k]
            want = [(e[0], e[1], "inlined") for e in group[:-1]] + [frame]
            if want != group:
                names = [bare(e[1]) for e in group]
                key = (frame[2], addr)
                if key not in result.proofs:
                    chain = dies.chain(frame[2], int(addr, 16))
                    why = proof(chain, group, frame)
                    if why is None:
                        result.unproven.append(
                            f"{os.path.basename(frame[2])} 0x{addr}: perf {[e[1:] for e in group]},"
                            f" its DIEs {chain}")
                        return as_perf
                    result.proofs[key] = why
                result.frames += 1
                if group[-1][2] == "inlined":
                    result.wrong_names.add(names[-1])
                result.symbols.add(bare(frame[1]))
            out.extend(e + (frame[2],) for e in want)
        i += r
        j += t
    if j != len(b):
        result.unproven.append(f"{len(b) - j} entries with inlines past the frames without")
        return as_perf
    return out
