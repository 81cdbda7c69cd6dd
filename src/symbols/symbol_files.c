#include "symbols/symbolizer_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "format/features.h"
#include "symbols/kcore_dir.h"
#include "symbols/stack_memo.h"
#include "base/pv_alloc.h"
#include "base/pv_env.h"

/* Paths are built in PATH_MAX-sized buffers; one cut short names no file,
 * which the lookups then report as not found. */
#ifndef __clang__      /* gcc's warning: clang has none by that name */
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

static void hex(const uint8_t *p, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[p[i] >> 4];
        out[2 * i + 1] = digits[p[i] & 15];
    }
    out[2 * n] = 0;
}

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* perf's build-id cache: $HOME/.debug (perf sets PERF_BUILDID_DIR for its
 * scripts but does not read it) */
static const char *buildid_dir(char *buf, size_t size)
{
    const char *home = getenv("HOME");
    if (!home || !*home)
        return NULL;
    snprintf(buf, size, "%s/.debug", home);
    return buf;
}

/* ---- loading symbols ------------------------------------------------------- */

static bool same_build_id(const dso *d, const pv_elf_image *img)
{
    return d->build_id_len == 0 ||
           (img->build_id_len >= d->build_id_len &&
            memcmp(img->build_id, d->build_id, d->build_id_len) == 0);
}

/* <dir>/.build-id/xx/yyyy<suffix> */
static void build_id_path(char *out, size_t size, const char *dir, const dso *d, const char *suffix)
{
    char h[2 * PV_BUILD_ID_MAX + 1];
    /* the recording's id, else (debug files) the one of the image found */
    if (d->build_id_len)
        hex(d->build_id, d->build_id_len, h);
    else
        hex(d->image.build_id, d->image.build_id_len, h);
    snprintf(out, size, "%s/.build-id/%.2s/%s%s", dir, h, h + 2, suffix);
}

/* The running image: the recorded path if its build-id matches, else a
 * build-id cache copy.  Sets d->image; returns its path or NULL (status set). */
static bool find_runtime_image(pv_symbolizer *s, dso *d, char *path, size_t size)
{
    char why[512] = "";
    char mismatch[600] = "";
    char cache[4096];
    const char *cache_dir = buildid_dir(cache, sizeof cache);
    char candidates[4][4096];
    int n = 0;
    snprintf(candidates[n++], sizeof candidates[0], "%s%s", s->sysroot ? s->sysroot : "", d->name);
    if (d->build_id_len) {
        if (s->symdir)
            build_id_path(candidates[n++], sizeof candidates[0], s->symdir, d, "");
        if (cache_dir) {
            build_id_path(candidates[n++], sizeof candidates[0], cache_dir, d,
                          d->kind == DSO_VDSO ? "/vdso" : "/elf");
            build_id_path(candidates[n++], sizeof candidates[0], cache_dir, d, "");
        }
    }
    for (int i = 0; i < n; i++) {
        if (d->kind == DSO_VDSO && i == 0)
            continue;   /* "[vdso]" is no path */
        if (!is_file(candidates[i]))
            continue;
        pv_elf_image img;
        if (!pv_elf_probe(candidates[i], &img, why, sizeof why))
            continue;
        if (!same_build_id(d, &img)) {
            if (!mismatch[0]) {
                char want[41], have[41];
                hex(d->build_id, d->build_id_len, want);
                hex(img.build_id, img.build_id_len, have);
                snprintf(mismatch, sizeof mismatch, "build-id mismatch: %s has %s, the recording %s",
                         candidates[i], img.build_id_len ? have : "none", want);
            }
            continue;
        }
        d->image = img;
        snprintf(path, size, "%s", candidates[i]);
        free(d->runtime_path);
        d->runtime_path = pv_strdup(candidates[i]);
        return true;
    }
    if (mismatch[0])
        d->status = pv_strdup(mismatch);
    else if (why[0])
        d->status = pv_strdup(why);
    else
        d->status = pv_sym_dup_printf("not found: %s%s", s->sysroot ? s->sysroot : "", d->name);
    return false;
}

/* A separate debug file with a .symtab for d, or false. */
static bool find_debug_file(pv_symbolizer *s, dso *d, const char *runtime, char *path, size_t size)
{
    char candidates[8][4096];
    int n = 0;
    char cache[4096];
    const char *cache_dir = buildid_dir(cache, sizeof cache);
    if (d->build_id_len || d->image.build_id_len) {
        if (s->symdir)
            build_id_path(candidates[n++], sizeof candidates[0], s->symdir, d, ".debug");
        char system_debug[4096];
        snprintf(system_debug, sizeof system_debug, "%s/usr/lib/debug", s->sysroot ? s->sysroot : "");
        build_id_path(candidates[n++], sizeof candidates[0], system_debug, d, ".debug");
        if (cache_dir)
            build_id_path(candidates[n++], sizeof candidates[0], cache_dir, d, "/debug");
    }
    if (d->image.debuglink[0]) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", runtime);
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = 0;
        const char *link = d->image.debuglink;
        snprintf(candidates[n++], sizeof candidates[0], "%s/%s", dir, link);
        snprintf(candidates[n++], sizeof candidates[0], "%s/.debug/%s", dir, link);
        /* /usr/lib/debug + the recorded directory */
        char recorded_dir[4096];
        snprintf(recorded_dir, sizeof recorded_dir, "%s", d->name);
        slash = strrchr(recorded_dir, '/');
        if (slash)
            *slash = 0;
        snprintf(candidates[n++], sizeof candidates[0], "%s/usr/lib/debug%s/%s",
                 s->sysroot ? s->sysroot : "", recorded_dir, link);
    }
    for (int i = 0; i < n; i++) {
        if (strcmp(candidates[i], runtime) == 0 || !is_file(candidates[i]))
            continue;
        pv_elf_image img;
        char why[256];
        if (!pv_elf_probe(candidates[i], &img, why, sizeof why) || !img.has_symtab)
            continue;
        /* a debug file must be of the same build */
        const uint8_t *want = d->build_id_len ? d->build_id : d->image.build_id;
        uint8_t want_len = d->build_id_len ? d->build_id_len : d->image.build_id_len;
        if (want_len && (img.build_id_len < want_len || memcmp(img.build_id, want, want_len) != 0))
            continue;
        snprintf(path, size, "%s", candidates[i]);
        return true;
    }
    return false;
}

static void load_elf_dso(pv_symbolizer *s, dso *d)
{
    char runtime[4096], debug[4096];
    if (!find_runtime_image(s, d, runtime, sizeof runtime))
        return;
    const char *source = runtime;
    if (!d->image.has_symtab && find_debug_file(s, d, runtime, debug, sizeof debug))
        source = debug;
    if (!pv_elf_read_symbols(source, runtime, &d->tree)) {
        d->status = pv_sym_dup_printf("cannot read the symbols of %s", source);
        return;
    }
    if (d->tree.live == 0)
        d->status = pv_sym_dup_printf("no symbols in %s", source);
}

/* The vdso of this process, when it is the recording's. */
static void load_own_vdso(dso *d)
{
    unsigned long base = getauxval(AT_SYSINFO_EHDR);
    if (!base || d->build_id_len == 0) {
        d->status = pv_strdup("no [vdso] image: not in the build-id cache");
        return;
    }
    /* the vdso's size: its section headers end it */
    const unsigned char *p = (const unsigned char *)base;
    if (memcmp(p, "\177ELF", 4) != 0 || p[4] != 2) {
        d->status = pv_strdup("no [vdso] image: not in the build-id cache");
        return;
    }
    uint64_t shoff;
    uint16_t shentsize, shnum;
    memcpy(&shoff, p + 0x28, 8);
    memcpy(&shentsize, p + 0x3a, 2);
    memcpy(&shnum, p + 0x3c, 2);
    size_t size = (size_t)(shoff + (uint64_t)shentsize * shnum);
    if (size > (1u << 20)) {
        d->status = pv_strdup("no [vdso] image: not in the build-id cache");
        return;
    }
    /* libelf gets a private copy: the vdso is read-only */
    void *copy = pv_malloc(size);
    if (!copy)
        return;
    memcpy(copy, p, size);
    pv_elf_image img;
    if (pv_elf_probe_memory(copy, size, &img) && same_build_id(d, &img)) {
        d->image = img;
        pv_elf_read_symbols_memory(copy, size, &d->tree);
    } else {
        d->status = pv_strdup("no [vdso] image: not in the build-id cache, and this machine's vdso "
                           "has another build-id");
    }
    free(copy);
}

bool pv_sym_read_feature_text(pv_file *f, unsigned id, char *out, size_t size)
{
    pv_strbuf b = {0};
    pv_feature_value_kind kind;
    int64_t integer;
    pv_error err;
    bool ok = pv_feature_decode(f, id, &kind, &integer, &b, &err) == 0 &&
              kind == PV_FEATURE_VALUE_TEXT && !b.failed;
    if (ok)
        snprintf(out, size, "%s", pv_strbuf_text(&b));
    pv_strbuf_free(&b);
    return ok;
}

/* The build-id note of the running kernel (/sys/kernel/notes); its length or 0. */
static size_t running_kernel_build_id(uint8_t out[PV_BUILD_ID_MAX])
{
    errno = 0;
    FILE *f = fopen("/sys/kernel/notes", "rb");
    if (!f)
        pv_alloc_check_errno();
    if (!f)
        return 0;
    uint8_t notes[4096];
    size_t n = fread(notes, 1, sizeof notes, f);
    fclose(f);
    /* Elf_Nhdr {namesz, descsz, type}, name and desc padded to 4 bytes */
    size_t at = 0;
    while (n - at >= 12) {
        uint32_t namesz, descsz, type;
        memcpy(&namesz, notes + at, 4);
        memcpy(&descsz, notes + at + 4, 4);
        memcpy(&type, notes + at + 8, 4);
        at += 12;
        size_t name_len = ((size_t)namesz + 3) & ~(size_t)3;
        size_t desc_len = ((size_t)descsz + 3) & ~(size_t)3;
        if (name_len > n - at || desc_len > n - at - name_len)
            return 0;
        if (type == 3 && namesz == 4 && memcmp(notes + at, "GNU", 4) == 0 && descsz > 0) {
            size_t len = descsz < PV_BUILD_ID_MAX ? descsz : PV_BUILD_ID_MAX;
            memcpy(out, notes + at + name_len, len);
            return len;
        }
        at += name_len + desc_len;
    }
    return 0;
}

static void load_kallsyms(pv_symbolizer *s)
{
    s->kallsyms_loaded = true;
    char path[4096];
    /* a directory recorded with --kcore keeps its kallsyms */
    char *kcore = pv_kcore_kallsyms_path(s->file);
    bool loaded = kcore && pv_symtab_load_kallsyms(&s->kallsyms, kcore);
    free(kcore);
    if (loaded)
        return;
    pv_symtab_free(&s->kallsyms);
    dso *kernel = pv_sym_find_dso_by_name(s, "[kernel.kallsyms]", 17, true);
    char cache[4096];
    /* the recorded kernel's kallsyms in a build-id cache: the symbol
     * directory (laid out as one, so that a copy of another machine's
     * ~/.debug serves), then perf's own */
    const char *caches[] = {s->symdir, buildid_dir(cache, sizeof cache)};
    for (size_t i = 0; kernel && kernel->build_id_len && i < sizeof caches / sizeof caches[0]; i++) {
        if (!caches[i])
            continue;
        char h[2 * PV_BUILD_ID_MAX + 1];
        hex(kernel->build_id, kernel->build_id_len, h);
        snprintf(path, sizeof path, "%s/[kernel.kallsyms]/%s/kallsyms", caches[i], h);
        if (is_file(path) && pv_symtab_load_kallsyms(&s->kallsyms, path))
            return;
        pv_symtab_free(&s->kallsyms);
    }
    /* a sysroot stands for the recording machine: its proc/kallsyms, as
     * perf --symfs reads it */
    if (s->sysroot) {
        snprintf(path, sizeof path, "%s/proc/kallsyms", s->sysroot);
        if (!pv_symtab_load_kallsyms(&s->kallsyms, path)) {
            pv_symtab_free(&s->kallsyms);
            s->kallsyms_status = pv_sym_dup_printf("no kallsyms: none in the recording or the build-id "
                                            "cache, and %s is missing or empty", path);
        }
        return;
    }
    /* the tests that hold output to documents made on another machine
     * (tests/t_fleet.sh, t_readme_commands.sh) take no kernel for the
     * running one, whatever kernel the machine runs */
    if (pv_env_flag("PERFVTAB_NOT_RUNNING_KERNEL")) {
        s->kallsyms_status = pv_strdup("no kallsyms: none in the build-id cache, and the running "
                                    "kernel is not taken (PERFVTAB_NOT_RUNNING_KERNEL)");
        return;
    }
    /* the running kernel, when it is the recorded one: the same build-id,
     * or, for a recording without one, the same host and release */
    if (kernel && kernel->build_id_len) {
        uint8_t running[PV_BUILD_ID_MAX];
        size_t running_len = running_kernel_build_id(running);
        if (running_len < kernel->build_id_len ||
            memcmp(running, kernel->build_id, kernel->build_id_len) != 0) {
            s->kallsyms_status = pv_strdup("no kallsyms: the recorded kernel is not in the build-id "
                                        "cache and is not the running kernel");
            return;
        }
    } else {
        char host[256], release[256];
        struct utsname me;
        if (uname(&me) != 0 || !pv_sym_read_feature_text(s->file, PV_FEATURE_HOSTNAME, host, sizeof host) ||
            !pv_sym_read_feature_text(s->file, PV_FEATURE_OSRELEASE, release, sizeof release)) {
            s->kallsyms_status = pv_strdup("no kallsyms: none in the recording or the build-id cache, "
                                        "and the recording does not name its kernel");
            return;
        }
        if (strcmp(host, me.nodename) != 0 || strcmp(release, me.release) != 0) {
            s->kallsyms_status = pv_sym_dup_printf("no kallsyms: recorded on %s (%s), this is %s (%s)",
                                            host, release, me.nodename, me.release);
            return;
        }
    }
    if (!pv_symtab_load_kallsyms(&s->kallsyms, "/proc/kallsyms")) {
        pv_symtab_free(&s->kallsyms);
        s->kallsyms_status = pv_strdup("no kallsyms: /proc/kallsyms unreadable or hidden (kptr_restrict)");
    }
}

/* Why anonymous code of a process has no name: no JIT map, and the
 * jitdump it mapped, if any, could not be used either. */
static char *jit_map_missing(pv_symbolizer *s, const dso *d)
{
    for (size_t i = 0; i < s->nr_dsos; i++) {
        const dso *j = &s->dsos[i];
        if (j->kind == DSO_JITDUMP && j->pid == d->pid && j->status)
            return pv_sym_dup_printf("no JIT map %s; %s", d->name, j->status);
    }
    return pv_sym_dup_printf("no JIT map %s", d->name);
}

void pv_sym_load_dso(pv_symbolizer *s, dso *d)
{
    /* once the work is stopped no symbol file is read (kallsyms is 5 MB of
     * text): the file is left unloaded, asked again next time, and the
     * work fails (base/pv_stop.h) */
    if (pv_stop_said(pv_file_stop(s->file)))
        return;
    d->loaded = true;
    d->identity_offsets = pv_sym_offsets_are_addresses(d->name, d->kind == DSO_JIT);
    switch (d->kind) {
    case DSO_ELF:
        load_elf_dso(s, d);
        break;
    case DSO_VDSO: {
        char path[4096];
        if (find_runtime_image(s, d, path, sizeof path)) {
            if (!pv_elf_read_symbols(path, path, &d->tree))
                d->status = pv_sym_dup_printf("cannot read the symbols of %s", path);
        } else {
            free(d->status);
            d->status = NULL;
            load_own_vdso(d);
        }
        break;
    }
    case DSO_JIT:
        if (!pv_symtab_load_jit_map(&d->symbols, d->name))
            d->status = jit_map_missing(s, d);
        break;
    case DSO_JITDUMP: {
        /* read when its map was fed (map_feed.c); here only if that stopped */
        pv_error ignored;
        d->loaded = false;
        if (pv_sym_load_jitdump(s, d, &ignored))
            d->loaded = true;
        break;
    }
    case DSO_KERNEL:
        if (!s->kallsyms_loaded)
            load_kallsyms(s);
        if (s->kallsyms_status)
            d->status = pv_strdup(s->kallsyms_status);
        break;
    case DSO_NONE:
        d->status = pv_sym_dup_printf("%s is not a file", d->name);
        break;
    }
    /* stacks unwound through this file hold while it stays as it is (or
     * stays missing) */
    if (s->stack_memo && (d->kind == DSO_ELF || d->kind == DSO_VDSO)) {
        char recorded[4096];
        snprintf(recorded, sizeof recorded, "%s%s", s->sysroot ? s->sysroot : "", d->name);
        pv_stack_memo_depends_on(s->stack_memo, d->runtime_path ? d->runtime_path : recorded);
    }
}

