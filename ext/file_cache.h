/*
 * The per-connection state: the cache of opened perf.data files, the debug
 * info and stacks built from them, and the perf_symbol_path setting, which
 * is the connection's own (a setting made on one connection never changes
 * what another reads).  It keeps files open
 * between statements so that the tables of a join, and the queries of a
 * session, map a file once; a file whose identity on disk changed (device,
 * inode, mtime, size) is opened again.
 *
 * The cache is shared by the modules of one connection, counted: each
 * holder takes a reference, and the last release frees the cache and closes
 * its files.  A file is held by a cursor between acquire and release; a
 * held file is never closed under it.
 */
#ifndef PV_FILE_CACHE_H
#define PV_FILE_CACHE_H

#include <sqlite3ext.h>

#include "format/perf_file.h"
#include "base/pv_error.h"

typedef struct PvCache PvCache;

/* A cache with one reference, the caller's (NULL: out of memory). */
PvCache *pv_cache_new(void);
void pv_cache_retain(PvCache *cache);
void pv_cache_release(PvCache *cache);

/* An open file for path, shared when the cache has it and it is unchanged
 * on disk; 0, or -1 with err set.  Opening asks stop (a stream's opening
 * waits for its writer). */
int pv_cache_acquire_file(PvCache *cache, const char *path, const pv_stop *stop, pv_file **out,
                          pv_error *err);
/* How many cursors hold f (0 when it is not in the cache). */
int pv_cache_file_users(const PvCache *cache, const pv_file *f);
/* Lets go of a file from pv_cache_acquire_file (closes it if uncached). */
void pv_cache_release_file(PvCache *cache, pv_file *f);

/* The connection's debug info of ELF files (unwind/debug_cache.h), shared
 * by the symbolizers of its cursors; made on first use, freed with the
 * cache; NULL when out of memory. */
struct pv_debug_cache;
struct pv_debug_cache *pv_cache_debug_info(PvCache *cache);

/* The unwound stacks of file f (symbols/stack_memo.h), kept while the
 * cache keeps f open; made on first use; NULL when f is not in the cache
 * or out of memory. */
struct pv_stack_memo;
struct pv_stack_memo *pv_cache_stack_memo(PvCache *cache, const pv_file *f);

/* The connection's perf_symbol_path setting: sysroot and symdir, NULL when
 * unset.  Setting copies both (NULL: unset); -1 when out of memory, the old
 * setting kept. */
int pv_cache_set_symbol_paths(PvCache *cache, const char *sysroot, const char *symdir);
const char *pv_cache_sysroot(const PvCache *cache);
const char *pv_cache_symdir(const PvCache *cache);

/* The connection's perf_threads setting (ext/threads_setting.c): how many
 * threads a query's pass may use; unset (0), the machine's online cores. */
void pv_cache_set_threads(PvCache *cache, unsigned threads);
unsigned pv_cache_threads(const PvCache *cache);
/* Counts a perf_profile pass, split on threads or not (perf_cache_stats). */
void pv_cache_count_profile(PvCache *cache, bool split);

/* perf_cache_stats() (pv_cache_stats_functions, ext/function_defs.h): JSON
 * of what the connection's caches hold and did (opened perf.data files,
 * debug files, remembered stacks), for diagnostics and tests. */

#endif
