#!/usr/bin/env python3
"""Checks of perf_flamegraph's pictures against the stacks that went in.

  flamegraph_check.py folded SAMPLES_TSV
      The call stacks of tests/expected/perf_oracle/<f>/samples.tsv (perf script -D's
      callchains, leaf first) folded root first with frames as 0x<hex ip>:
      "stack<TAB>samples" lines, sorted -- what perf_folded over
      perf_samples.callchain must give.
  flamegraph_check.py svg LABEL FOLDED SVG
      Parses SVG as XML and checks its frames against FOLDED.
  flamegraph_check.py dom LABEL FOLDED DUMP [UNIT]
      The same on the frames a page rendered in Chromium measured (the JSON
      between <pre id="measured"> and </pre> in DUMP, from --dump-dom);
      weights counted in UNIT (default samples).
  flamegraph_check.py diff LABEL NEW_FOLDED BASE_FOLDED SVG
      A differential SVG: the svg checks on NEW_FOLDED, and every title's
      base count and share, and every frame's colour (red: self share grew,
      blue: shrank, grey: equal) against both.
  flamegraph_check.py png LABEL PNG FRAMES_JSON
      Decodes a screenshot (zlib, no other module) and checks it is not blank,
      that its pixels are warm (blue for off-CPU frames) where frames are,
      and that the root's and a wide frame's colour runs are as wide as their
      rects.
  flamegraph_check.py hotcold LABEL FOLDED SVG OFF_NS ON_NS [FUNC=NS]...
      An on+off-CPU graph (sql/offcpu_flamegraph.sql, weights in ns): the svg
      checks on FOLDED; every frame at or above an "[off-cpu]" frame is blue,
      every other warm; the outermost "[off-cpu]" frames sum to OFF_NS (and
      the subtitle's off-CPU total says so), the rest of the root to ON_NS;
      the outermost frames named FUNC above an "[off-cpu]" frame to NS.

FOLDED holds "stack<TAB>count" lines.  A frame's place in the tree is not in
the SVG's nesting (every frame is a flat <g>), so it is found from geometry:
its level from y, its parent the frame one level down whose x range holds it.
Then for every drawn frame: the count and percentage in its title equal
those of its stack prefix in FOLDED, its width is count / total of the root's,
siblings are in name order, and every prefix wide enough (>= 0.1 px) is drawn.
Output: "ok - ..." / "not ok - ..." lines.
"""
import html
import json
import re
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

SVG_NS = '{http://www.w3.org/2000/svg}'
# "name (N unit, P%)"; a differential graph's titles go on with
# "; base M unit, Q%; +D points, self +S points"; ns from 1 ms on read
# "N ns = X ms" (or s)
TIME = r'(?: = \d+\.\d\d m?s)?'
TITLE_RE = re.compile(r'^(.*) \((\d+) (\S+)' + TIME + r', (\d+\.\d\d)%(?:; base (\d+) \S+' + TIME +
                      r', (\d+\.\d\d)%; ([+-]?\d+\.\d\d) points, self ([+-]?\d+\.\d\d) '
                      r'points)?\)$', re.S)
OFFCPU_MARK = '[off-cpu]'
MIN_WIDTH = 0.1
TOL = 0.02          # the SVG's numbers have two decimals



def fixed2(v):
    """v with 2 decimals as the renderer writes it (src/render/flamegraph.c,
    put_fixed): rounded half up, where '%.2f' rounds 15.625 to 15.62."""
    units = int(v * 100 + 0.5)
    return '%d.%02d' % divmod(units, 100)

def say(ok, what, why=''):
    print(('ok - %s' % what) if ok else ('not ok - %s: %s' % (what, why)))
    return ok


def fold_samples(path):
    stacks = {}
    with open(path) as f:
        for line in f:
            cols = line.rstrip('\n').split('\t')
            # the callchain is the last column (perf_expect.py's samples.tsv)
            chain = json.loads(cols[-1]) if len(cols) > 5 and cols[-1] else []
            stack = ';'.join('0x%x' % (ip & 0xffffffffffffffff) for ip in reversed(chain))
            stacks[stack] = stacks.get(stack, 0) + 1
    for stack in sorted(stacks):
        print('%s\t%d' % (stack, stacks[stack]))


def read_folded(path):
    """{prefix tuple: inclusive count}, total."""
    prefixes, total = {}, 0
    with open(path) as f:
        for line in f:
            stack, count = line.rstrip('\n').rsplit('\t', 1)
            count = int(count)
            total += count
            frames = tuple(x for x in stack.split(';') if x)
            for i in range(1, len(frames) + 1):
                prefixes[frames[:i]] = prefixes.get(frames[:i], 0) + count
    return prefixes, total


def svg_frames(path):
    root = ET.parse(path).getroot()
    frames = []
    for g in root.iter(SVG_NS + 'g'):
        if g.get('class') != 'frame':
            continue
        rect = g.find(SVG_NS + 'rect')
        text = g.find(SVG_NS + 'text')
        frames.append({'title': g.find(SVG_NS + 'title').text,
                       'x': float(rect.get('x')), 'y': float(rect.get('y')),
                       'width': float(rect.get('width')),
                       'height': float(rect.get('height')),
                       'fill': rect.get('fill'),
                       'text': text.text if text is not None else None})
    return root, frames


def dom_frames(path):
    dump = open(path, encoding='utf-8', errors='replace').read()
    m = re.search(r'<pre id="measured">(.*?)</pre>', dump, re.S)
    if not m:
        return None
    try:
        return json.loads(html.unescape(m.group(1)))
    except ValueError:
        return None


def parse_titles(frames):
    """The frames with their titles' parts; the titles that do not parse."""
    bad, parsed = [], []
    for f in frames:
        m = TITLE_RE.match(f['title'] or '')
        if not m:
            bad.append('title %r' % f['title'])
            continue
        parsed.append(dict(f, name=m.group(1), count=int(m.group(2)),
                           unit=m.group(3), pct=m.group(4),
                           base=int(m.group(5)) if m.group(5) else None,
                           base_pct=m.group(6), points=m.group(7), self_points=m.group(8)))
    return parsed, bad


def place(parsed, root):
    """Sets each frame's 'level' (from y) and 'path' (from x containment one
    level down) in place; returns what does not fit."""
    bad = []
    h = root['height'] + 1      # rects are one px shorter than a level
    by_level = {}
    for f in parsed:
        level = round((root['y'] - f['y']) / h)
        if abs(root['y'] - f['y'] - level * h) > TOL:
            bad.append('%s at y %g is off the level grid' % (f['name'], f['y']))
        f['level'] = level
        by_level.setdefault(level, []).append(f)
    root['path'] = ()
    for level in sorted(by_level):
        if level == 0:
            continue
        for f in by_level[level]:
            parents = [p for p in by_level.get(level - 1, [])
                       if 'path' in p and p['x'] - TOL <= f['x'] and
                       f['x'] + f['width'] <= p['x'] + p['width'] + TOL]
            if len(parents) != 1:
                bad.append('%s at level %d has %d parents' % (f['name'], level, len(parents)))
                continue
            f['path'] = parents[0]['path'] + (f['name'],)
            f['parent'] = id(parents[0])
    return bad


def root_of(parsed):
    roots = [f for f in parsed if f['name'] == 'all']
    return max(roots, key=lambda f: f['width']) if roots else None


def check_frames(label, frames, prefixes, total, unit='samples'):
    parsed, bad = parse_titles(frames)
    if not say(not bad, '%s: every frame has a title "name (N %s, P%%)"' % (label, unit),
               ', '.join(bad[:3])):
        return
    root = root_of(parsed)
    if not say(root is not None, '%s: there is a root frame "all"' % label, 'none'):
        return
    say(root['count'] == total and root['pct'] == '100.00' and root['unit'] == unit,
        '%s: the root counts all %d %s (100%%)' % (label, total, unit),
        'title %r' % root['title'])
    say(all(f['y'] <= root['y'] + TOL for f in parsed),
        '%s: the root is the lowest frame' % label, 'a frame is below it')
    scale = root['width'] / total
    bad = place(parsed, root)
    say(not bad, '%s: every frame sits on a level, over exactly one parent' % label,
        '; '.join(bad[:3]))
    bad = []
    placed = [f for f in parsed if 'path' in f]
    drawn = set()
    for f in placed:
        if f['path'] == ():
            continue
        drawn.add(f['path'])
        want = prefixes.get(f['path'])
        if want is None:
            bad.append('%s is not a prefix of the input' % ';'.join(f['path']))
            continue
        if f['count'] != want or f['pct'] != fixed2(100.0 * want / total):
            bad.append('%s: title %r, want %d (%.2f%%)' % (';'.join(f['path']), f['title'],
                                                          want, 100.0 * want / total))
        if abs(f['width'] - want * scale) > TOL:
            bad.append('%s: width %g, want %g' % (f['name'], f['width'], want * scale))
    say(not bad, '%s: counts, percentages and widths of %d frames equal their stacks\''
        % (label, len(placed)), '; '.join(bad[:3]))
    wide = set(p for p, n in prefixes.items() if n * scale >= MIN_WIDTH)
    say(wide == drawn, '%s: every prefix at least %g px wide is drawn, no other (%d)'
        % (label, MIN_WIDTH, len(wide)),
        'missing %s, extra %s' % (sorted(wide - drawn)[:2], sorted(drawn - wide)[:2]))
    # siblings: name order is left to right, abutting from the parent's left edge
    bad = []
    siblings = {}
    for f in placed:
        if 'parent' in f:
            siblings.setdefault(f['parent'], []).append(f)
    for group in siblings.values():
        group.sort(key=lambda f: f['x'])
        names = [f['name'].encode('utf-8') for f in group]
        if names != sorted(names):
            bad.append('order %s' % [f['name'] for f in group][:4])
    say(not bad, '%s: siblings are in name order, left to right' % label, '; '.join(bad[:2]))
    return parsed


def cmd_svg(label, folded, svg, unit='samples'):
    try:
        root, frames = svg_frames(svg)
    except ET.ParseError as e:
        say(False, '%s: the SVG parses as XML' % label, str(e))
        return
    say(root.tag == SVG_NS + 'svg', '%s: the SVG parses as XML, root element <svg>' % label,
        root.tag)
    prefixes, total = read_folded(folded)
    return check_frames(label, frames, prefixes, total, unit), root


def cmd_dom(label, folded, dump, unit='samples'):
    frames = dom_frames(dump)
    if not say(frames is not None, '%s: the page script listed the frames' % label,
               'no <pre id="measured"> in the dumped DOM'):
        return
    prefixes, total = read_folded(folded)
    parsed = check_frames(label, frames, prefixes, total, unit)
    if not parsed:
        return
    # the browser's own measure of each name's text: inside its frame
    over = [f for f in frames if f.get('textWidth') is not None and
            f['textWidth'] + 3 > f['width']]
    with_text = sum(1 for f in frames if f.get('textWidth') is not None)
    say(with_text > 0 and not over,
        '%s: the %d frame names drawn fit their frames in the rendered font' % (label, with_text),
        '%s' % ['%s: %.1f px in %.1f' % (f['text'], f['textWidth'], f['width'])
                for f in over[:3]])
    cut = [f for f in frames if f.get('text') and f['text'].endswith('..')]
    say(all(f['title'].startswith(f['text'][:-2]) for f in cut),
        '%s: a cut name (%d) is the start of the frame\'s name and ".."' % (label, len(cut)),
        'mismatch')


# ---- PNG ----

def read_png(path):
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        raise ValueError('not a PNG')
    pos, idat, width = 8, b'', None
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b'IHDR':
            width, height, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise ValueError('PNG depth %d colour type %d interlace %d not handled'
                                 % (depth, ctype, interlace))
            bpp = 3 if ctype == 2 else 4
        elif kind == b'IDAT':
            idat += body
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        ftype = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 255
            elif ftype == 2:
                line[i] = (line[i] + b) & 255
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, bpp)])
        prev = line
    return width, height, rows


def warm(px):
    r, g, b = px
    return r >= 200 and g <= 235 and b <= 60


def cold(px):
    """An off-CPU frame's blue (pv_flamegraph_cold_color: red 40-109, green
    90-169, blue 205-254)."""
    r, g, b = px
    return r <= 115 and g <= 175 and b >= 200


def run_length(row, x0, colour, tol=6):
    """Pixels of row around x0 within tol of colour, left and right."""
    def near(px):
        return all(abs(px[k] - colour[k]) <= tol for k in range(3))
    lo = hi = x0
    while lo > 0 and near(row[lo - 1]):
        lo -= 1
    while hi < len(row) - 1 and near(row[hi + 1]):
        hi += 1
    return lo, hi + 1


def cmd_png(label, png, frames_json):
    try:
        width, height, rows = read_png(png)
    except (ValueError, zlib.error, struct.error) as e:
        say(False, '%s: the screenshot is a PNG' % label, str(e))
        return
    frames = dom_frames(frames_json)
    colours = set()
    for row in rows[::4]:
        colours.update(row[::4])
    say(len(colours) > 20, '%s: the screenshot is not blank (%d colours sampled)'
        % (label, len(colours)), 'only %d colours' % len(colours))
    if not frames:
        say(False, '%s: frames to compare the screenshot with' % label, 'none')
        return
    bad = []
    checked = 0
    for f in frames:
        if f['width'] < 8:
            continue
        cx, cy = int(f['x'] + 2), int(f['y'] + f['height'] / 2)
        if cy >= height or cx >= width:
            continue
        checked += 1
        fill = tuple(int(v) for v in re.findall(r'\d+', f['fill']))
        if not (warm(rows[cy][cx]) or cold(rows[cy][cx])) or max(abs(rows[cy][cx][k] - fill[k]) for k in range(3)) > 6:
            bad.append('%s at (%d,%d) is %s, fill %s' % (f['title'][:30], cx, cy,
                                                        rows[cy][cx], fill))
    say(checked > 0 and not bad, '%s: the screenshot has each wide frame\'s fill (warm, or '
        'blue off-CPU) where its rect is (%d frames)' % (label, checked), '; '.join(bad[:3]))
    # the root is at the bottom; the widest frames' colour runs measure as
    # wide as their rects
    root = max((f for f in frames if f['title'].startswith('all (')),
               key=lambda f: f['width'])
    below = [f for f in frames if f['y'] > root['y'] + 1]
    say(not below and all(f['y'] <= root['y'] for f in frames),
        '%s: the root is the bottom row of the picture' % label, 'frames below it')
    bad = []
    for f in sorted(frames, key=lambda f: -f['width'])[:4]:
        fill = tuple(int(v) for v in re.findall(r'\d+', f['fill']))
        y = int(f['y'] + 1)     # above the text (its tallest glyphs start 3 px down)
        lo, hi = run_length(rows[y], int(f['x'] + f['width'] / 2), fill)
        if abs(lo - f['x']) > 2.5 or abs(hi - (f['x'] + f['width'])) > 2.5:
            bad.append('%s: pixels %d-%d, rect %.2f-%.2f' % (f['title'][:30], lo, hi, f['x'],
                                                           f['x'] + f['width']))
    say(not bad, '%s: the 4 widest frames\' pixel runs are as wide as their rects (2.5 px)'
        % label, '; '.join(bad))


def cmd_diff(label, new_folded, base_folded, svg):
    """A differential SVG against both profiles' stacks: every title's base
    count and share are the base's, and each frame's colour is red where its
    self share grew, blue where it shrank, grey where it is equal."""
    try:
        root, frames = svg_frames(svg)
    except ET.ParseError as e:
        say(False, '%s: the SVG parses as XML' % label, str(e))
        return
    new, total = read_folded(new_folded)
    base, base_total = read_folded(base_folded)
    new_self, base_self = self_counts(new_folded), self_counts(base_folded)
    parsed = check_frames(label, frames, new, total)
    if not parsed:
        return
    bad, colours = [], {'red': 0, 'blue': 0, 'grey': 0}
    for f in parsed:
        if 'path' not in f:
            continue
        p = f['path']
        want_base = base.get(p, 0) if p else base_total
        if f['base'] != want_base or f['base_pct'] != fixed2(100.0 * want_base / base_total):
            bad.append('%s: title %r, base %d' % (';'.join(p), f['title'], want_base))
        delta = new_self.get(p, 0) / total - base_self.get(p, 0) / base_total
        r, g, b = (int(v) for v in re.findall(r'\d+', f['fill']))
        kind = ('red' if r == 255 and g == b and g < 220 else
                'blue' if b == 255 and r == g and r < 220 else
                'grey' if (r, g, b) == (220, 220, 220) else 'other')
        want = 'red' if delta > 0 else 'blue' if delta < 0 else 'grey'
        if kind != want:
            bad.append('%s: %s, self share %+.4f points' % (';'.join(p)[-40:], f['fill'],
                                                            100 * delta))
        colours[kind] = colours.get(kind, 0) + 1
    say(not bad, '%s: base counts and shares in the titles are the base\'s; colours follow '
        'the self-share changes (%d red, %d blue, %d grey)' % (label, colours['red'],
                                                               colours['blue'], colours['grey']),
        '; '.join(bad[:3]))


def cmd_hotcold(label, folded, svg, off_ns, on_ns, *funcs):
    """sql/offcpu_flamegraph.sql's picture: colours by the "[off-cpu]" rule,
    and the on-CPU, off-CPU and per-function totals.  FOLDED "-": the totals
    only."""
    if folded == '-':
        root, frames = svg_frames(svg)
        parsed, _ = parse_titles(frames)
        if root_of(parsed):
            place(parsed, root_of(parsed))
    else:
        parsed, root = cmd_svg(label, folded, svg, 'ns') or (None, None)
    placed = [f for f in parsed or [] if 'path' in f]
    if not placed:
        say(False, '%s: the SVG\'s frames are placed' % label, 'none')
        return
    bad, n_cold, n_warm = [], 0, 0
    for f in placed:
        px = tuple(int(v) for v in re.findall(r'\d+', f['fill']))
        off = OFFCPU_MARK in f['path']
        if off != cold(px) or off == warm(px):
            bad.append('%s: %s' % (';'.join(f['path'])[-50:], f['fill']))
        n_cold += off
        n_warm += not off
    if folded != '-':
        say(not bad, '%s: the %d frames at or above "[off-cpu]" are blue, the other %d warm'
            % (label, n_cold, n_warm), '; '.join(bad[:3]))

    def outermost(name):
        """Frames named name above "[off-cpu]", not above another such frame."""
        return sum(f['count'] for f in placed if f['path'] and f['path'][-1] == name and
                   OFFCPU_MARK in f['path'][:-1] and name not in f['path'][:-1])
    off = sum(f['count'] for f in placed if f['path'] and f['path'][-1] == OFFCPU_MARK and
              OFFCPU_MARK not in f['path'][:-1])
    total = max(f['count'] for f in placed)
    subtitle = root.find('.//%stext[@id="subtitle"]' % SVG_NS)
    m = re.search(r'off-CPU \(blue\) (\d+) ns', subtitle.text or '') if subtitle is not None else None
    say(off == int(off_ns) and m is not None and int(m.group(1)) == off,
        '%s: the "[off-cpu]" frames sum to %s ns, as the subtitle says' % (label, off_ns),
        'frames %d, subtitle %r' % (off, subtitle.text if subtitle is not None else None))
    say(total - off == int(on_ns), '%s: the other frames sum to %s ns (on-CPU)' % (label, on_ns),
        'root %d - off-CPU %d = %d' % (total, off, total - off))
    for spec in funcs:
        name, want = spec.rsplit('=', 1)
        got = outermost(name)
        say(got == int(want), '%s: %s above "[off-cpu]" sums to %s ns' % (label, name, want),
            'got %d' % got)


def self_counts(path):
    """{stack tuple: its own count}: the samples whose stack ends there."""
    counts = {}
    with open(path) as f:
        for line in f:
            stack, count = line.rstrip('\n').rsplit('\t', 1)
            frames = tuple(x for x in stack.split(';') if x)
            counts[frames] = counts.get(frames, 0) + int(count)
    return counts


def main(argv):
    if len(argv) == 3 and argv[1] == 'folded':
        fold_samples(argv[2])
    elif len(argv) == 5 and argv[1] == 'svg':
        cmd_svg(*argv[2:])
    elif len(argv) in (5, 6) and argv[1] == 'dom':
        cmd_dom(*argv[2:])
    elif len(argv) >= 7 and argv[1] == 'hotcold':
        cmd_hotcold(*argv[2:])
    elif len(argv) == 6 and argv[1] == 'diff':
        cmd_diff(*argv[2:])
    elif len(argv) == 5 and argv[1] == 'png':
        cmd_png(*argv[2:])
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main(sys.argv)
