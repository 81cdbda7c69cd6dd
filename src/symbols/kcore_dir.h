/*
 * The kcore_dir of a `perf record --kcore` recording.
 *
 * perf record --kcore writes a directory: the perf.data file named `data`
 * and kcore_dir/ beside it holding copies of the recording machine's
 * /proc/kcore, /proc/kallsyms and /proc/modules.  Its kallsyms is what
 * symbolizes the recording's kernel addresses (on another machine, or after
 * a reboot, /proc/kallsyms no longer matches).  A directory written by
 * --threads (data + data.N) can carry a kcore_dir too.
 */
#ifndef PV_KCORE_DIR_H
#define PV_KCORE_DIR_H

#include <stddef.h>

#include "format/perf_file.h"
#include "base/pv_error.h"

/* Path of the recording's kcore_dir/kallsyms (malloc'ed; the caller frees
 * it), or NULL when f was not read from a `data` file with a kcore_dir
 * holding a regular kallsyms beside it. */
char *pv_kcore_kallsyms_path(const pv_file *f);

/* The bytes of that kallsyms, NUL-terminated (malloc'ed, *len without the
 * NUL).  *text is NULL and the call succeeds when there is none; an
 * unreadable file is an error naming it. */
int pv_kcore_kallsyms(const pv_file *f, char **text, size_t *len, pv_error *err);

#endif
