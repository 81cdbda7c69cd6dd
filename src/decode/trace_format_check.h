/*
 * A guard in front of libtraceevent's tep_parse_event.  libtraceevent 1.7
 * dereferences NULL when a format's print fmt hands __print_flags or
 * __print_symbolic a REC->field the format does not declare (found by
 * fuzz_sql: tests/fuzz/regressions/sql-segv-libtraceevent-4182d1ed), and
 * perf, which uses the same library, crashes on such a file too.  A format
 * whose print fmt names any undeclared field is therefore not handed to
 * libtraceevent: it is skipped as the formats libtraceevent rejects are.
 */
#ifndef PV_TRACE_FORMAT_CHECK_H
#define PV_TRACE_FORMAT_CHECK_H
#include <stdbool.h>

/* text: one event format, NUL-terminated.  False when its print fmt refers
 * (REC->name) to a field it does not declare, or declares too many. */
bool pv_trace_format_is_safe(const char *text);
#endif
