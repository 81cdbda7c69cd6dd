"""Part of the bench's third workload (bench/run.sh, "mixed"): one short
python3 process that imports many extension modules (each a DSO mapped into
the process), works a little in each, and recurses deeply through Python
and C (json's C encoder on nested lists, re, pickle).

    python3 bench/mixed_python.py SEED
"""
import bz2
import csv
import ctypes
import datetime
import decimal
import hashlib
import io
import json
import lzma
import pickle
import re
import sqlite3
import ssl
import sys
import unicodedata
import xml.etree.ElementTree as ET
import zlib

seed = int(sys.argv[1]) if len(sys.argv) > 1 else 0
sys.setrecursionlimit(10000)


def nest(depth):
    return [depth, nest(depth - 1)] if depth else []


def walk(depth):
    return 0 if depth == 0 else 1 + walk(depth - 1)


blob = bytes((i * 7 + seed) & 0xff for i in range(200000))
out = []
out.append(len(zlib.compress(blob, 6)))
out.append(len(bz2.compress(blob[:50000])))
out.append(len(lzma.compress(blob[:30000])))
out.append(hashlib.sha256(blob).hexdigest()[:8])
out.append(hashlib.blake2b(blob).hexdigest()[:8])
decimal.getcontext().prec = 200
out.append(str(decimal.Decimal(2).sqrt())[:10])
db = sqlite3.connect(':memory:')
db.execute('CREATE TABLE t(a, b)')
db.executemany('INSERT INTO t VALUES (?, ?)', ((i, str(i * seed)) for i in range(20000)))
out.append(db.execute('SELECT count(DISTINCT b), sum(a) FROM t').fetchone())
deep = nest(400 + seed % 300)
text = json.dumps(deep)
out.append(len(json.loads(text)) + len(pickle.dumps(deep)))
out.append(walk(2000 + seed % 1000))
out.append(len(re.findall(r'(\d+)(?:, )', text)))
root = ET.fromstring('<r>' + ''.join('<i n="%d">%s</i>' % (i, i * seed) for i in range(3000)) + '</r>')
out.append(sum(int(e.get('n')) for e in root))
buf = io.StringIO()
csv.writer(buf).writerows([[i, unicodedata.name(chr(0x41 + i % 26))] for i in range(5000)])
out.append(len(buf.getvalue()))
out.append(ssl.OPENSSL_VERSION[:7])
out.append(ctypes.sizeof(ctypes.c_long))
out.append(datetime.date(2026, 1, 1).isoformat())
print(out)
