#include "file_cache.h"

#include <sqlite3ext.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "base/json_writer.h"
#include "function_defs.h"
#include "stream/file_open.h"
#include "symbols/stack_memo.h"
#include "unwind/debug_cache.h"
#include "vtab_results.h"

SQLITE_EXTENSION_INIT3

#define CACHE_SLOTS 8

/* One opened file and the number of cursors holding it. */
typedef struct PvCacheEntry {
    char *path;
    pv_file *file;
    pv_stack_memo *stacks;      /* its unwound stacks, made on first use */
    int users;
    uint64_t last_used;
} PvCacheEntry;

struct PvCache {
    int refs;
    uint64_t clock;
    PvCacheEntry slots[CACHE_SLOTS];
    pv_debug_cache *debug_info;     /* made on first use */
    char *sysroot, *symdir;         /* perf_symbol_path's setting */
    unsigned threads;               /* perf_threads' setting; 0: unset */
    uint64_t profiles_split, profiles_whole;    /* perf_profile's passes */
};

PvCache *pv_cache_new(void)
{
    PvCache *cache = sqlite3_malloc(sizeof *cache);
    if (cache) {
        memset(cache, 0, sizeof *cache);
        cache->refs = 1;
    }
    return cache;
}

void pv_cache_retain(PvCache *cache)
{
    cache->refs++;
}

void pv_cache_release(PvCache *cache)
{
    if (--cache->refs > 0)
        return;
    for (int i = 0; i < CACHE_SLOTS; i++) {
        pv_file_close(cache->slots[i].file);
        pv_stack_memo_free(cache->slots[i].stacks);
        sqlite3_free(cache->slots[i].path);
    }
    pv_debug_cache_free(cache->debug_info);
    sqlite3_free(cache->sysroot);
    sqlite3_free(cache->symdir);
    sqlite3_free(cache);
}

static char *copy_setting(const char *text, bool *failed)
{
    char *copy = text ? sqlite3_mprintf("%s", text) : NULL;
    *failed = *failed || (text && !copy);
    return copy;
}

int pv_cache_set_symbol_paths(PvCache *cache, const char *sysroot, const char *symdir)
{
    bool failed = false;
    char *new_sysroot = copy_setting(sysroot, &failed);
    char *new_symdir = copy_setting(symdir, &failed);
    if (failed) {
        sqlite3_free(new_sysroot);
        sqlite3_free(new_symdir);
        return -1;
    }
    sqlite3_free(cache->sysroot);
    sqlite3_free(cache->symdir);
    cache->sysroot = new_sysroot;
    cache->symdir = new_symdir;
    return 0;
}

const char *pv_cache_sysroot(const PvCache *cache)
{
    return cache->sysroot;
}

const char *pv_cache_symdir(const PvCache *cache)
{
    return cache->symdir;
}

void pv_cache_set_threads(PvCache *cache, unsigned threads)
{
    cache->threads = threads;
}

void pv_cache_count_profile(PvCache *cache, bool split)
{
    if (split)
        cache->profiles_split++;
    else
        cache->profiles_whole++;
}

unsigned pv_cache_threads(const PvCache *cache)
{
    if (cache->threads)
        return cache->threads;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 0 ? (unsigned)cores : 1;
}


static void clear_slot(PvCacheEntry *e)
{
    pv_file_close(e->file);
    pv_stack_memo_free(e->stacks);
    sqlite3_free(e->path);
    memset(e, 0, sizeof *e);
}

/* Returns an open file for path, shared when possible. */
int pv_cache_acquire_file(PvCache *cache, const char *path, const pv_stop *stop, pv_file **out,
                          pv_error *err)
{
    PvCacheEntry *victim = NULL;
    for (int i = 0; i < CACHE_SLOTS; i++) {
        PvCacheEntry *e = &cache->slots[i];
        if (e->file && strcmp(e->path, path) == 0) {
            if (pv_file_unchanged_on_disk(e->file)) {
                e->users++;
                e->last_used = ++cache->clock;
                *out = e->file;
                return 0;
            }
            if (e->users == 0)
                clear_slot(e);
        }
    }
    for (int i = 0; i < CACHE_SLOTS; i++) {
        PvCacheEntry *e = &cache->slots[i];
        if (!e->file) {
            victim = e;
            break;
        }
        if (e->users == 0 && (!victim || e->last_used < victim->last_used))
            victim = e;
    }
    pv_file *f;
    if (pv_file_open_stoppable(path, stop, &f, err))
        return -1;
    if (victim) {
        char *copy = sqlite3_mprintf("%s", path);
        if (copy) {
            if (victim->file)
                clear_slot(victim);
            victim->path = copy;
            victim->file = f;
            victim->users = 1;
            victim->last_used = ++cache->clock;
        }
    }
    *out = f;
    return 0;
}

int pv_cache_file_users(const PvCache *cache, const pv_file *f)
{
    for (int i = 0; i < CACHE_SLOTS; i++)
        if (cache->slots[i].file == f)
            return cache->slots[i].users;
    return 0;
}

void pv_cache_release_file(PvCache *cache, pv_file *f)
{
    for (int i = 0; i < CACHE_SLOTS; i++)
        if (cache->slots[i].file == f) {
            cache->slots[i].users--;
            return;
        }
    pv_file_close(f);  /* not cached: this cursor's own */
}

pv_debug_cache *pv_cache_debug_info(PvCache *cache)
{
    if (!cache->debug_info)
        cache->debug_info = pv_debug_cache_new(0);
    return cache->debug_info;
}

pv_stack_memo *pv_cache_stack_memo(PvCache *cache, const pv_file *f)
{
    for (int i = 0; i < CACHE_SLOTS; i++) {
        PvCacheEntry *e = &cache->slots[i];
        if (e->file == f) {
            if (!e->stacks)
                e->stacks = pv_stack_memo_new(0);
            return e->stacks;
        }
    }
    return NULL;    /* not cached: the cursor's own file */
}

/* ---- perf_cache_stats(): what the caches hold and did ------------------------ */

static void u64_field(pv_json_writer *w, const char *key, uint64_t v)
{
    pv_json_key(w, key);
    pv_json_u64(w, v);
}

static void cache_stats_function_body(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc, (void)argv;
    PvCache *cache = sqlite3_user_data(ctx);
    pv_strbuf out = {0};
    pv_json_writer w;
    pv_json_init(&w, &out);
    pv_json_object_begin(&w);
    uint64_t files = 0, recordings = 0;
    pv_stack_memo_stats total = {0};
    bool full = false;
    for (int i = 0; i < CACHE_SLOTS; i++) {
        const PvCacheEntry *e = &cache->slots[i];
        files += e->file != NULL;
        if (!e->stacks)
            continue;
        pv_stack_memo_stats st;
        pv_stack_memo_get_stats(e->stacks, &st);
        recordings++;
        total.hits += st.hits;
        total.misses += st.misses;
        total.forgotten += st.forgotten;
        total.stacks += st.stacks;
        total.bytes += st.bytes;
        total.max_bytes = st.max_bytes;
        full = full || st.full;
    }
    u64_field(&w, "files", files);
    pv_json_key(&w, "debug_files");
    pv_json_object_begin(&w);
    pv_debug_cache_stats d = {0};
    if (cache->debug_info)
        pv_debug_cache_get_stats(cache->debug_info, &d);
    u64_field(&w, "open", d.files);
    u64_field(&w, "max", cache->debug_info ? d.max_files : PV_DEBUG_CACHE_FILES);
    u64_field(&w, "opened", d.opened);
    u64_field(&w, "reused", d.reused);
    u64_field(&w, "closed", d.closed);
    pv_json_object_end(&w);
    pv_json_key(&w, "stacks");
    pv_json_object_begin(&w);
    u64_field(&w, "recordings", recordings);
    u64_field(&w, "stacks", total.stacks);
    u64_field(&w, "hits", total.hits);
    u64_field(&w, "misses", total.misses);
    u64_field(&w, "forgotten", total.forgotten);
    u64_field(&w, "bytes", total.bytes);
    u64_field(&w, "max_bytes", recordings ? total.max_bytes : PV_STACK_MEMO_BYTES);
    pv_json_key(&w, "full");
    pv_json_bool(&w, full);
    pv_json_object_end(&w);
    pv_json_key(&w, "profiles");
    pv_json_object_begin(&w);
    u64_field(&w, "split", cache->profiles_split);
    u64_field(&w, "whole", cache->profiles_whole);
    pv_json_object_end(&w);
    pv_json_object_end(&w);
    pv_result_strbuf(ctx, &out);
    pv_strbuf_free(&out);
}

PV_GUARDED_FUNCTION(cache_stats_function, cache_stats_function_body)

const PvFunctionDef pv_cache_stats_functions[] = {
    {"perf_cache_stats", 0, SQLITE_UTF8 | SQLITE_DIRECTONLY, true, NULL, cache_stats_function, NULL, NULL},
    {NULL, 0, 0, false, NULL, NULL, NULL, NULL},
};
