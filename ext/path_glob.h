/*
 * A path argument that is a pattern: `profiles/[star].data`, `/srv/host?/perf.data`
 * ([star] standing for an asterisk, which a C comment cannot hold after a
 * slash).
 *
 * Expanded as glob(3) without flags expands it (`*`, `?`, `[...]` in any
 * component, `\` escaping, a leading `.` matched only by a `.`, the
 * matches sorted), but without glob(3)'s hazards for a host that takes the
 * pattern from anyone: glibc's glob recurses once per component (a
 * 3,000-component pattern overflowed the stack) and walks a whole file
 * tree for `/[star]/[star]/...` without a way to stop it.  Here the walk is a loop
 * over one level at a time, the pattern's size is bounded, the walk stops
 * when stop says so (base/pv_stop.h) and when it has
 * visited too many paths, each with an error that says so.
 */
#ifndef PV_PATH_GLOB_H
#define PV_PATH_GLOB_H

#include <stddef.h>

#include "base/pv_error.h"
#include "base/pv_stop.h"

#define PV_GLOB_MAX_PATTERN 4096        /* bytes: PATH_MAX */
#define PV_GLOB_MAX_COMPONENTS 64       /* components with a wildcard */
#define PV_GLOB_MAX_VISITED 1000000     /* directory entries read */
#define PV_GLOB_MAX_MATCHES 100000      /* paths a level of the walk holds */

/* Whether path has a character that makes it a pattern. */
int pv_glob_is_pattern(const char *path);

/* The paths matching pattern, sorted, as sqlite3_malloc'd strings in a
 * sqlite3_malloc'd array (free with pv_glob_free); 0, or -1 with err set:
 * no match, a bound passed, interrupted, or out of memory. */
int pv_glob_expand(const char *pattern, const pv_stop *stop, char ***paths, size_t *count,
                   pv_error *err);
void pv_glob_free(char **paths, size_t count);

#endif
