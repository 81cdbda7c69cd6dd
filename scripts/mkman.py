#!/usr/bin/env python3
"""Writes a manual page (roff, man macros) from one of docs/*.md, so that
the page and the document cannot drift: `make` builds build/man/perfsql.1
from docs/perfsql.md and build/man/perfvtab.7 from docs/schema.md.

    mkman.py SOURCE.md NAME SECTION "NAME LINE" [--queries PERFSQL] > PAGE

The Markdown these documents use: "## " and "### " headings, paragraphs,
"- " lists (continued by indented lines), ``` fences and 4-space indented
code, tables ("| a | b |"; each row becomes a tagged paragraph, the first
cell its tag), and inline `code`, **bold**, *italics* and [links](url).
Text before the first "## " heading is the DESCRIPTION.  --queries PERFSQL
ends the "Ready queries" section with the queries as `PERFSQL --list`
prints them.  The date is SOURCE_DATE_EPOCH's (dpkg sets
it from debian/changelog), else the source file's modification time.
"""
import datetime
import os
import re
import subprocess
import sys

CHARS = {"\u2014": r"\(em", "\u2013": r"\(en", "\u2192": r"\(->", "\u00d7": r"\(mu",
         "\u2264": r"\(<=", "\u2265": r"\(>=", "\u2026": "...", "\u2019": "'"}


def escape(text):
    """Plain text as roff: backslashes, minus signs, special characters."""
    text = text.replace("\\", r"\e").replace("-", r"\-")
    for char, name in CHARS.items():
        text = text.replace(char, name)
    return text


def inline(text):
    """A line of Markdown with its inline markup as roff fonts."""
    out, pos = [], 0
    for m in re.finditer(r"`([^`]+)`|\*\*([^*]+)\*\*|\*([^*\s][^*]*)\*|\[([^\]]+)\]\([^)]*\)", text):
        out.append(escape(text[pos:m.start()]))
        if m.group(1) is not None:
            out.append(r"\fB" + escape(m.group(1)) + r"\fR")
        elif m.group(2) is not None:
            out.append(r"\fB" + escape(m.group(2)) + r"\fR")
        elif m.group(3) is not None:
            out.append(r"\fI" + escape(m.group(3)) + r"\fR")
        else:
            out.append(escape(m.group(4)))
        pos = m.end()
    out.append(escape(text[pos:]))
    return "".join(out)


def line_safe(text):
    """A text line that roff does not take for a request."""
    return "\\&" + text if text.startswith((".", "'")) else text


def cells(row):
    """A table row's cells (an escaped \\| is a character, not a border)."""
    parts = re.split(r"(?<!\\)\|", row.strip()[1:-1])
    return [p.strip().replace("\\|", "|") for p in parts]


def code_block(lines):
    out = [".PP", ".RS 4", ".nf"]
    out += [line_safe(escape(l)) for l in lines]
    out += [".fi", ".RE"]
    return out


def convert(md):
    out, para = [], []
    lines = md.split("\n")
    i = 0

    def flush():
        if para:
            out.append(".PP")
            out.append(line_safe(inline(" ".join(para))))
            para.clear()

    while i < len(lines):
        line = lines[i]
        if line.startswith("# "):
            i += 1
            continue
        if line.startswith("## ") or line.startswith("### "):
            flush()
            title = line.split(" ", 1)[1].strip()
            if line.startswith("## "):
                out.append(".SH " + '"' + inline(title.upper()).replace('"', "'") + '"')
            else:
                out.append(".SS " + '"' + inline(title).replace('"', "'") + '"')
            i += 1
            continue
        if line.startswith("```"):
            flush()
            block = []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                block.append(lines[i])
                i += 1
            out += code_block(block)
            i += 1
            continue
        if line.startswith("    ") and not para and line.strip():
            block = []
            while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                block.append(lines[i][4:])
                i += 1
            while block and not block[-1].strip():
                block.pop()
            out += code_block(block)
            continue
        if line.startswith("|"):
            flush()
            header = cells(line)
            i += 1
            if i < len(lines) and re.match(r"^\|[-:| ]+\|$", lines[i].strip()):
                i += 1
            while i < len(lines) and lines[i].startswith("|"):
                row = cells(lines[i])
                out.append(".TP")
                out.append(line_safe(r"\fB" + inline(row[0]).replace(r"\fR", r"\fB") + r"\fR"))
                if len(row) == 2:
                    out.append(line_safe(inline(row[1])))
                else:
                    out.append(line_safe(inline("; ".join(
                        f"{h}: {c}" for h, c in zip(header[1:], row[1:])))))
                i += 1
            continue
        if line.startswith("- "):
            flush()
            item = [line[2:]]
            i += 1
            while i < len(lines) and lines[i].startswith("  ") and lines[i].strip():
                item.append(lines[i].strip())
                i += 1
            out.append(r".IP \(bu 2")
            out.append(line_safe(inline(" ".join(item))))
            continue
        if not line.strip():
            flush()
            i += 1
            continue
        para.append(line.strip())
        i += 1
    flush()
    return out


def queries_list(perfsql):
    """The ready queries as `perfsql --list` prints them (its first line,
    which names the directory it read, left out)."""
    listing = subprocess.run([perfsql, "--list"], capture_output=True, text=True, check=True)
    out = []
    for line in listing.stdout.split("\n")[1:]:
        if not line.strip():
            continue
        m = re.match(r"^  (\S+)\s+(.*)$", line)
        if m and not line.startswith("      "):
            out += [".TP", r"\fB" + escape(m.group(1)) + r"\fR", line_safe(escape(m.group(2)))]
        else:
            out += [".br", line_safe(escape(re.sub(r"\s+", " ", line.strip())))]
    return out


def main():
    args = sys.argv[1:]
    perfsql = None
    if "--queries" in args:
        at = args.index("--queries")
        perfsql = args[at + 1]
        del args[at:at + 2]
    source, name, section, name_line = args
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    when = int(epoch) if epoch else int(os.stat(source).st_mtime)
    date = datetime.datetime.fromtimestamp(when, datetime.timezone.utc).strftime("%Y-%m-%d")
    body = convert(open(source, encoding="utf-8").read())
    # what comes before the first section describes
    if body and not body[0].startswith(".SH "):
        body.insert(0, ".SH DESCRIPTION")
    # the list of queries ends the section about them
    if perfsql:
        start = body.index('.SH "READY QUERIES"')
        end = next((k for k in range(start + 1, len(body)) if body[k].startswith(".SH ")), len(body))
        body = body[:end] + queries_list(perfsql) + body[end:]
    # no hyphenation, no justification: names stay whole (perf_samples,
    # --format), as a reader searches for them
    page = [f'.TH {name.upper()} {section} {date} perfvtab "perfvtab manual"', ".nh", ".ad l",
            ".SH NAME", escape(name_line)] + body
    sys.stdout.write("\n".join(page) + "\n")


if __name__ == "__main__":
    main()
