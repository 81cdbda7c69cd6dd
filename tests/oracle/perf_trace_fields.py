# A `perf script -s` handler: prints every tracepoint sample's fields as perf
# decodes them, one line per sample:
#   time <TAB> cpu <TAB> tid <TAB> system:name <TAB> {"field": value, ...}
# perf hands arrays (and strings that are not printable text) over as byte
# arrays; they are printed as lists of byte values.  The common_* entries are
# perf's context (time, cpu, comm), not fields of the event's format.
# Used by tests/gen/trace_fields.sh.
import json


def trace_unhandled(event_name, context, fields, sample):
    s = sample['sample']
    out = {}
    for key, value in fields.items():
        if key.startswith('common_'):
            continue
        if isinstance(value, (bytearray, bytes)):
            value = list(value)
        out[key] = value
    system, _, name = event_name.partition('__')
    print('%d\t%d\t%d\t%s:%s\t%s' % (s['time'], s['cpu'], s['tid'], system, name,
                                     json.dumps(out, separators=(',', ':'))))
