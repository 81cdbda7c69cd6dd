#!/usr/bin/env python3
"""Uses a flame graph's SVG in headless Chromium as a person would, through
chromedriver (Debian's chromium-driver) and the W3C WebDriver protocol on a
loopback port -- real clicks and keystrokes, no page script of ours.

  flamegraph_interact.py LIST

LIST has one graph a line, tab-separated: LABEL SVG FOLDED REGEX and an
optional WINDOW_HEIGHT; one browser session goes through them all.  FOLDED
holds the "stack<TAB>count" lines that went in (the new weights for a
differential graph).  Checks, each an "ok - ..." / "not ok - ..." line:
  - the script ran: the search box and the matched readout exist;
  - a click on a frame (the widest one of depth >= 2 that is narrower than
    its parent) makes its rect as wide as the plot (the SVG's width less the
    margins), its ancestors too; the frames of its subtree are as wide as
    their share of it; every other frame is hidden;
  - Reset Zoom brings every frame back where it was;
  - typing REGEX in the search box colours exactly the frames (not the root)
    whose names match (Python's re on the names from FOLDED, drawn frames
    only), and "matched: P%" is the share of the total they cover, a match
    inside a match counted once;
  - WINDOW_HEIGHT given (shorter than the picture): scrolled to the bottom,
    the search box is still in view.
Expected values come from FOLDED, never from the SVG.
Env: CHROMIUM (default chromium), CHROMEDRIVER (default chromedriver).
"""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flamegraph_check as fc  # noqa: E402

ELEMENT = 'element-6066-11e4-a52e-4f735466cecf'
MATCH_FILL = 'rgb(230,0,230)'
MIN_WIDTH = 0.1

say = fc.say

# Every frame as the browser lays it out, in px from the SVG's top left.
MEASURE = """
const svg = document.documentElement, box = svg.getBoundingClientRect();
return Array.from(svg.querySelectorAll('g.frame')).map(g => {
  const r = g.querySelector('rect').getBoundingClientRect();
  return {title: g.querySelector('title').textContent, x: r.x - box.x, y: r.y - box.y,
          width: r.width, height: r.height, fill: g.querySelector('rect').getAttribute('fill'),
          shown: getComputedStyle(g).display !== 'none' && r.width > 0};
});
"""


class Driver:
    def __init__(self, tmp, height):
        sock = socket.socket()
        sock.bind(('127.0.0.1', 0))
        self.port = sock.getsockname()[1]
        sock.close()
        env = dict(os.environ, HOME=tmp)
        self.proc = subprocess.Popen(
            [os.environ.get('CHROMEDRIVER', 'chromedriver'), '--port=%d' % self.port],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        deadline = time.time() + 30
        while True:
            try:
                if self.call('GET', '/status').get('ready'):
                    break
            except OSError:
                pass
            if time.time() > deadline:
                raise RuntimeError('chromedriver did not start')
            time.sleep(0.2)
        binary = shutil.which(os.environ.get('CHROMIUM', 'chromium'))
        caps = {'browserName': 'chrome', 'goog:chromeOptions': {
            'binary': binary,
            'args': ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
                     '--no-first-run', '--disable-background-networking',
                     '--disable-component-update', '--disable-sync', '--disable-extensions',
                     '--force-device-scale-factor=1', '--hide-scrollbars',
                     '--user-data-dir=' + os.path.join(tmp, 'profile'),
                     '--window-size=1300,%d' % height]}}
        self.session = self.call('POST', '/session',
                                 {'capabilities': {'alwaysMatch': caps}})['sessionId']

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request('http://127.0.0.1:%d%s' % (self.port, path), data=data,
                                     method=method,
                                     headers={'Content-Type': 'application/json'})
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                return json.loads(resp.read() or b'{}').get('value')
        except urllib.error.HTTPError as e:
            raise RuntimeError('%s %s: %s' % (method, path, e.read()[:300]))

    def s(self, method, path, body=None):
        return self.call(method, '/session/%s%s' % (self.session, path), body)

    def run(self, script, *args):
        return self.s('POST', '/execute/sync', {'script': script, 'args': list(args)})

    def find_all(self, css):
        return [e[ELEMENT] for e in
                self.s('POST', '/elements', {'using': 'css selector', 'value': css})]

    def click(self, element):
        self.s('POST', '/element/%s/click' % element, {})

    def type(self, text):
        """Keystrokes to the focused element (element send-keys does not reach
        an input inside an SVG document's foreignObject)."""
        keys = []
        for c in text:
            keys += [{'type': 'keyDown', 'value': c}, {'type': 'keyUp', 'value': c}]
        self.s('POST', '/actions', {'actions': [{'type': 'key', 'id': 'keyboard',
                                                 'actions': keys}]})

    def close(self):
        try:
            self.s('DELETE', '')
        finally:
            self.proc.terminate()
            self.proc.wait(timeout=30)


def placed(frames):
    parsed, bad = fc.parse_titles(frames)
    root = fc.root_of(parsed)
    if bad or root is None:
        return None, None
    bad = fc.place(parsed, root)
    return (parsed, root) if not bad else (None, None)


def main(listing):
    graphs = [line.rstrip('\n').split('\t') for line in open(listing) if line.strip()]
    tmp = tempfile.mkdtemp()
    try:
        d = Driver(tmp, 1500)
    except (RuntimeError, OSError) as e:
        say(False, 'chromedriver runs a headless Chromium', str(e))
        return
    try:
        for label, svg, folded, regex, *height in graphs:
            window_height = int(height[0]) if height else None
            prefixes, total = fc.read_folded(folded)
            try:
                d.s('POST', '/window/rect', {'width': 1300, 'height': window_height or 1500})
                d.s('POST', '/url', {'url': 'file://' + os.path.abspath(svg)})
                check(d, label, prefixes, total, regex, window_height)
            except RuntimeError as e:
                say(False, '%s: the WebDriver session' % label, str(e))
    finally:
        d.close()
        shutil.rmtree(tmp, ignore_errors=True)


def check(d, label, prefixes, total, regex, window_height):
    say(len(d.find_all('#search')) == 1 and len(d.find_all('#matched')) == 1,
        '%s: the script ran: a search box and a matched readout' % label, 'not found')
    before = d.run(MEASURE)
    frames, root = placed(before)
    if not say(frames is not None, '%s: the frames as drawn sit on levels over their parents'
               % label, 'they do not'):
        return
    svg_width = d.run('return document.documentElement.getBoundingClientRect().width;')
    plot = root['width']
    pad = (svg_width - plot) / 2
    scale = plot / total
    wide = {p: n for p, n in prefixes.items() if n * scale >= MIN_WIDTH}
    by_path = {f['path']: i for i, f in enumerate(frames) if 'path' in f}

    # ---- zoom: the widest frame of depth >= 2 narrower than its parent ----
    candidates = [p for p in wide if len(p) >= 2 and wide[p] < wide[p[:-1]] and p in by_path]
    if not say(candidates, '%s: a frame to zoom into' % label, 'none'):
        return
    target = max(candidates, key=lambda p: (wide[p], p))
    rects = d.find_all('g.frame rect')
    index = by_path[target]
    d.click(rects[index])
    after = d.run(MEASURE)
    t = after[index]
    say(abs(t['width'] - plot) <= 0.5 and abs(t['x'] - pad) <= 0.5 and
        abs(svg_width - 2 * pad - t['width']) <= 0.5,
        '%s: a click on %s (%.1f px) makes it span the plot: %.1f px of the SVG\'s %.0f'
        % (label, ';'.join(target)[-50:], frames[index]['width'], t['width'], svg_width),
        'x %.2f width %.2f, want x %.2f width %.2f' % (t['x'], t['width'], pad, plot))
    bad = []
    for i, f in enumerate(frames):
        path, a = f['path'], after[i]
        if path[:len(target)] == target:
            want = wide[path] / wide[target] * plot if path else plot
            if not a['shown'] or abs(a['width'] - want) > 0.5:
                bad.append('%s: width %.2f, want %.2f' % (f['name'], a['width'], want))
        elif target[:len(path)] == path:
            if not a['shown'] or abs(a['width'] - plot) > 0.5:
                bad.append('ancestor %s: width %.2f' % (f['name'] or 'all', a['width']))
        elif a['shown']:
            bad.append('%s outside the subtree is shown' % ';'.join(path)[-40:])
    say(not bad, '%s: zoomed, its ancestors span the plot, its subtree scales to it (%d '
        'frames), every other frame hides' % (label,
                                               sum(1 for f in frames
                                                   if f['path'][:len(target)] == target)),
        '; '.join(bad[:3]))
    resets = d.find_all('#reset-zoom')
    if say(len(resets) == 1, '%s: a Reset Zoom control' % label, 'none'):
        d.click(resets[0])
        back = d.run(MEASURE)
        moved = [b['title'][:40] for a, b in zip(before, back)
                 if not b['shown'] or abs(a['x'] - b['x']) > 0.01 or
                 abs(a['width'] - b['width']) > 0.01]
        say(not moved and len(back) == len(before),
            '%s: Reset Zoom puts all %d frames back' % (label, len(back)), '%s' % moved[:3])

    # ---- search ----
    pattern = re.compile(regex)
    want = {p for p in wide if p and pattern.search(p[-1])}
    covered = sum(n for p, n in wide.items()
                  if p in want and not any(p[:k] in want for k in range(1, len(p))))
    d.click(d.find_all('#search')[0])
    d.type(regex)
    marked = d.run(MEASURE)
    got = {frames[i]['path'] for i, m in enumerate(marked)
           if m['fill'].replace(' ', '') == MATCH_FILL}
    say(got == want and want,
        '%s: searching /%s/ marks exactly the %d frames whose names match'
        % (label, regex, len(want)),
        'missing %s, extra %s' % (sorted(want - got)[:2], sorted(got - want)[:2]))
    text = d.run('return document.getElementById("matched").textContent;')
    m = re.match(r'^matched: (\d+\.\d\d)%$', text or '')
    expect = 100.0 * covered / total
    say(m is not None and abs(float(m.group(1)) - expect) <= 0.0051,
        '%s: it reads "matched: %.2f%%" (%d of %d, nested matches once)'
        % (label, expect, covered, total), 'got %r' % text)
    d.run('const s = document.getElementById("search");'
          's.value = ""; s.dispatchEvent(new Event("input"));')
    cleared = d.run(MEASURE)
    say(all(a['fill'] == b['fill'] for a, b in zip(before, cleared)),
        '%s: an empty search gives the frames their colours back' % label, 'it does not')

    if window_height:
        d.run('window.scrollTo(0, document.documentElement.scrollHeight);')
        time.sleep(0.2)
        box = d.run('const r = document.getElementById("search").getBoundingClientRect();'
                    'return {top: r.top, bottom: r.bottom, scrolled: window.scrollY};')
        say(box['scrolled'] > 0 and 0 <= box['top'] and box['bottom'] <= 60,
            '%s: scrolled %d px down a %d-px window, the search box stays at the top'
            % (label, box['scrolled'], int(window_height)), '%s' % box)


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
