/*
 * Unit tests of the caches that make a second DWARF query cheap:
 * src/unwind/debug_cache.c (each ELF file's debug info opened once, at
 * most max_files at a time, reopened when the file changes) and
 * src/symbols/stack_memo.c (unwound stacks remembered per sample, within
 * a byte bound, forgotten when the symbol paths or a file change).
 * The ELF files are this test's own executable and the libraries it has
 * loaded; the changed file is a copy in a temporary directory.
 * Output: one line per check, "ok - what" or "not ok - what: why".
 */
#include <fcntl.h>
#include <link.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdwfl.h>

#include "symbols/stack_memo.h"
#include "unwind/debug_cache.h"
#include "test_files.h"
#include "unit_check.h"

/* Up to 4 shared libraries this process has loaded, by path. */
static char libraries[4][PATH_MAX];
static int nr_libraries;

static int note_library(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size, (void)arg;
    const char *name = info->dlpi_name;
    if (nr_libraries < 4 && name && name[0] == '/' && !strstr(name, "linux-vdso"))
        snprintf(libraries[nr_libraries++], PATH_MAX, "%s", name);
    return 0;
}

/* Sets path's mtime to seconds since the epoch. */
static void set_mtime(const char *path, time_t seconds)
{
    struct timespec times[2] = { { seconds, 0 }, { seconds, 0 } };
    utimensat(AT_FDCWD, path, times, 0);
}

static void debug_cache_tests(const char *self, const char *tmpdir)
{
    dl_iterate_phdr(note_library, NULL);
    if (nr_libraries < 2) {
        printf("ok - debug cache # SKIP this process has fewer than 2 shared libraries\n");
        return;
    }
    pv_debug_cache *c = pv_debug_cache_new(2);
    pv_debug_cache_stats st;

    struct Dwfl_Module *own = pv_debug_cache_module(c, self);
    struct Dwfl_Module *again = pv_debug_cache_module(c, self);
    pv_debug_cache_get_stats(c, &st);
    check(own && again == own && st.opened == 1 && st.reused == 1,
          "debug cache: a file is opened once, then reused", "module %p/%p, opened %llu reused %llu",
          (void *)own, (void *)again, (unsigned long long)st.opened, (unsigned long long)st.reused);
    Dwarf_Addr bias = 1;
    check(own && dwfl_module_getdwarf(own, &bias) && bias == 0,
          "debug cache: a file's module is at the file's own addresses, with its DWARF",
          "bias %llu", (unsigned long long)bias);

    pv_debug_cache_module(c, libraries[0]);
    pv_debug_cache_module(c, libraries[1]);
    pv_debug_cache_get_stats(c, &st);
    check(st.files == 2 && st.max_files == 2 && st.closed == 1 && st.opened == 3,
          "debug cache: bounded, the least recently used file closed to make room",
          "%zu files (max %zu), %llu closed, %llu opened", st.files, st.max_files,
          (unsigned long long)st.closed, (unsigned long long)st.opened);

    char text[PATH_MAX];
    snprintf(text, sizeof text, "%s/not-elf.txt", tmpdir);
    write_text_file(text, "not an ELF file\n");
    struct Dwfl_Module *none = pv_debug_cache_module(c, text);
    struct Dwfl_Module *none_again = pv_debug_cache_module(c, text);
    pv_debug_cache_get_stats(c, &st);
    check(!none && !none_again && st.opened == 4,
          "debug cache: a file that is not ELF has no module, and is not tried again",
          "%p %p, %llu opened", (void *)none, (void *)none_again, (unsigned long long)st.opened);
    check(!pv_debug_cache_module(c, NULL) && !pv_debug_cache_module(NULL, self),
          "debug cache: no path or no cache, no module", "%s", "a module");

    /* a file changed on disk is opened again, after a recheck only */
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s/copy-of-self", tmpdir);
    if (!copy_file(self, copy)) {
        printf("ok - debug cache # SKIP cannot copy %s to %s\n", self, copy);
    } else {
        set_mtime(copy, 1000000000);
        pv_debug_cache_module(c, copy);
        pv_debug_cache_get_stats(c, &st);
        uint64_t opened = st.opened;
        set_mtime(copy, 1000000001);
        pv_debug_cache_module(c, copy);
        pv_debug_cache_get_stats(c, &st);
        check(st.opened == opened, "debug cache: no check against the disk within a query",
              "%llu opened, was %llu", (unsigned long long)st.opened, (unsigned long long)opened);
        pv_debug_cache_recheck(c);
        struct Dwfl_Module *reopened = pv_debug_cache_module(c, copy);
        pv_debug_cache_get_stats(c, &st);
        check(reopened && st.opened == opened + 1 && st.files <= 2,
              "debug cache: a file changed on disk is opened again at the next query",
              "%llu opened, was %llu; %zu files", (unsigned long long)st.opened,
              (unsigned long long)opened, st.files);
        pv_debug_cache_recheck(c);
        pv_debug_cache_module(c, copy);
        pv_debug_cache_get_stats(c, &st);
        check(st.opened == opened + 1, "debug cache: an unchanged file is not opened again",
              "%llu opened", (unsigned long long)st.opened);
        unlink(copy);
    }
    unlink(text);
    pv_debug_cache_free(c);
    pv_debug_cache_free(NULL);
}

/* A stack of n frames, every other one named. */
static size_t make_stack(uint64_t seed, size_t n, pv_unwound_frame *frames, char *names,
                         size_t size)
{
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        frames[i].pc = seed * 1000 + i;
        frames[i].name = -1;
        if (i % 2 == 0) {
            int k = snprintf(names + used, size - used, "function_%llu_%zu",
                             (unsigned long long)(seed % 7), i);
            frames[i].name = (int32_t)used;
            used += (size_t)k + 1;
        }
    }
    return n;
}

static bool same_stack(const pv_unwound_frame *a, const char *an, const pv_unwound_frame *b,
                       const char *bn, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (a[i].pc != b[i].pc || (a[i].name < 0) != (b[i].name < 0))
            return false;
        if (a[i].name >= 0 && strcmp(an + a[i].name, bn + b[i].name))
            return false;
    }
    return true;
}

static void stack_memo_tests(const char *tmpdir)
{
    pv_unwound_frame frames[16], got[16];
    char names[1024], got_names[1024];
    size_t nr = 0;
    pv_stack_memo *m = pv_stack_memo_new(0);
    pv_stack_memo_begin(m, NULL, NULL);
    size_t n = make_stack(5, 9, frames, names, sizeof names);
    bool miss = !pv_stack_memo_get(m, 42, 7, got, 16, &nr, got_names, sizeof got_names);
    pv_stack_memo_put(m, 42, 7, frames, n, 16, names, sizeof names);
    bool hit = pv_stack_memo_get(m, 42, 7, got, 16, &nr, got_names, sizeof got_names);
    check(miss && hit && nr == n && same_stack(frames, names, got, got_names, n),
          "stack memo: a stack put is got back, frames and names", "miss %d hit %d, %zu frames",
          miss, hit, nr);
    check(!pv_stack_memo_get(m, 42, 8, got, 16, &nr, got_names, sizeof got_names) &&
              !pv_stack_memo_get(m, 43, 7, got, 16, &nr, got_names, sizeof got_names) &&
              !pv_stack_memo_get(m, 42, 7, got, 8, &nr, got_names, sizeof got_names),
          "stack memo: another record, key or buffer size is a miss", "%s", "a hit");

    pv_stack_memo_begin(m, NULL, NULL);
    check(pv_stack_memo_get(m, 42, 7, got, 16, &nr, got_names, sizeof got_names),
          "stack memo: kept for the next query with the same paths", "%s", "a miss");
    pv_stack_memo_begin(m, "/sysroot", NULL);
    pv_stack_memo_stats st;
    pv_stack_memo_get_stats(m, &st);
    check(!pv_stack_memo_get(m, 42, 7, got, 16, &nr, got_names, sizeof got_names) &&
              st.forgotten == 1 && st.stacks == 0,
          "stack memo: forgotten when the sysroot changes", "%llu forgotten, %zu stacks",
          (unsigned long long)st.forgotten, st.stacks);

    char dep[PATH_MAX];
    snprintf(dep, sizeof dep, "%s/dep", tmpdir);
    write_text_file(dep, "v1\n");
    set_mtime(dep, 1000000000);
    pv_stack_memo_depends_on(m, dep);
    pv_stack_memo_put(m, 42, 7, frames, n, 16, names, sizeof names);
    pv_stack_memo_begin(m, "/sysroot", NULL);
    bool kept = pv_stack_memo_get(m, 42, 7, got, 16, &nr, got_names, sizeof got_names);
    set_mtime(dep, 1000000002);
    pv_stack_memo_begin(m, "/sysroot", NULL);
    bool dropped = !pv_stack_memo_get(m, 42, 7, got, 16, &nr, got_names, sizeof got_names);
    pv_stack_memo_depends_on(m, dep);
    pv_stack_memo_put(m, 42, 7, frames, n, 16, names, sizeof names);
    unlink(dep);
    pv_stack_memo_begin(m, "/sysroot", NULL);
    bool gone = !pv_stack_memo_get(m, 42, 7, got, 16, &nr, got_names, sizeof got_names);
    check(kept && dropped && gone,
          "stack memo: forgotten when a file it depends on changes or goes",
          "kept %d, dropped on change %d, dropped when gone %d", kept, dropped, gone);
    pv_stack_memo_free(m);

    /* the bound: stacks stop being remembered, the ones kept still serve */
    size_t bound = 64 * 1024;
    m = pv_stack_memo_new(bound);
    pv_stack_memo_begin(m, NULL, NULL);
    size_t puts = 0;
    for (uint64_t r = 0; r < 20000; r++, puts++) {
        n = make_stack(r, 12, frames, names, sizeof names);
        pv_stack_memo_put(m, r, r, frames, n, 16, names, sizeof names);
    }
    pv_stack_memo_get_stats(m, &st);
    n = make_stack(0, 12, frames, names, sizeof names);
    bool first = pv_stack_memo_get(m, 0, 0, got, 16, &nr, got_names, sizeof got_names) &&
                 nr == n && same_stack(frames, names, got, got_names, n);
    check(st.full && st.stacks > 0 && st.stacks < puts && st.bytes <= bound && first,
          "stack memo: bounded in bytes, the stacks kept still served",
          "full %d, %zu of %zu stacks, %zu bytes (bound %zu), first %d", st.full, st.stacks, puts,
          st.bytes, bound, first);
    pv_stack_memo_free(m);
    pv_stack_memo_free(NULL);
}

int main(void)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        printf("not ok - the test's own path: readlink /proc/self/exe failed\n");
        return 1;
    }
    self[n] = 0;
    char tmpdir[] = "/tmp/pv_debug_cache_XXXXXX";
    if (!mkdtemp(tmpdir)) {
        printf("not ok - a temporary directory: mkdtemp failed\n");
        return 1;
    }
    debug_cache_tests(self, tmpdir);
    stack_memo_tests(tmpdir);
    rmdir(tmpdir);
    return failures ? 1 : 0;
}
