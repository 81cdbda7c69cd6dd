#include "path_glob.h"

#include <dirent.h>
#include <stddef.h>
#include <sqlite3ext.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


SQLITE_EXTENSION_INIT3

/* ---- matching one name against one component ------------------------------ */

/* A bracket expression at p ("[a-z_]", "[!.]"): whether it holds c; *p
 * moves past it.  False with *p unmoved when it is not one (no closing
 * `]`): the `[` is then an ordinary character. */
static bool bracket(const char **p, const char *end, unsigned char c, bool *holds)
{
    const char *q = *p + 1;
    bool negate = q < end && (*q == '!' || *q == '^');
    if (negate)
        q++;
    bool found = false, first = true;
    while (q < end && (*q != ']' || first)) {
        first = false;
        unsigned char lo = (unsigned char)*q;
        if (lo == '\\' && q + 1 < end)
            lo = (unsigned char)*++q;
        q++;
        unsigned char hi = lo;
        if (q + 1 < end && *q == '-' && q[1] != ']') {
            hi = (unsigned char)q[1];
            if (hi == '\\' && q + 2 < end)
                hi = (unsigned char)*++q + 0 * hi, hi = (unsigned char)q[1];
            q += 2;
        }
        if (lo <= c && c <= hi)
            found = true;
    }
    if (q >= end)
        return false;
    *p = q + 1;
    *holds = found != negate;
    return true;
}

/* Whether the pattern element at *p (a character, `?`, `\x`, a bracket
 * expression) matches c; *p moves past it. */
static bool element_matches(const char **p, const char *end, unsigned char c)
{
    const char *q = *p;
    bool holds;
    if (*q == '?') {
        *p = q + 1;
        return true;
    }
    if (*q == '[' && bracket(p, end, c, &holds))
        return holds;
    if (*q == '\\' && q + 1 < end)
        q++;
    *p = q + 1;
    return (unsigned char)*q == c;
}

/* Whether name matches the component pattern[0..len): as fnmatch with
 * FNM_PERIOD, in time proportional to their lengths' product (a `*` is
 * retried from the last one only). */
static bool name_matches(const char *pattern, size_t len, const char *name)
{
    const char *p = pattern, *end = pattern + len, *n = name;
    /* a leading '.' is matched only by a '.' */
    if (*n == '.' && !(p < end && (*p == '.' || (*p == '\\' && p + 1 < end && p[1] == '.'))))
        return false;
    const char *star_p = NULL, *star_n = NULL;
    while (*n) {
        if (p < end && *p == '*') {
            star_p = ++p;
            star_n = n;
            continue;
        }
        if (p < end && element_matches(&p, end, (unsigned char)*n)) {
            n++;
            continue;
        }
        if (!star_p)
            return false;
        p = star_p;
        n = ++star_n;
    }
    while (p < end && *p == '*')
        p++;
    return p == end;
}

/* ---- the walk ------------------------------------------------------------ */

int pv_glob_is_pattern(const char *path)
{
    return strpbrk(path, "*?[") != NULL;
}

typedef struct Paths {
    char **items;
    size_t count, capacity;
} Paths;

static void paths_free(Paths *ps)
{
    for (size_t i = 0; i < ps->count; i++)
        sqlite3_free(ps->items[i]);
    sqlite3_free(ps->items);
    ps->items = NULL;
    ps->count = ps->capacity = 0;
}

/* Adds prefix + sep + name (sep: the slashes the pattern has before the
 * name's component, as glob keeps them); false when out of memory. */
static bool paths_add(Paths *ps, const char *prefix, const char *sep, size_t sep_len,
                      const char *name, size_t name_len)
{
    if (ps->count == ps->capacity) {
        size_t capacity = ps->capacity ? 2 * ps->capacity : 16;
        char **grown = sqlite3_realloc64(ps->items, capacity * sizeof *grown);
        if (!grown)
            return false;
        ps->items = grown;
        ps->capacity = capacity;
    }
    char *path = sqlite3_mprintf("%s%.*s%.*s", prefix, (int)sep_len, sep, (int)name_len, name);
    if (!path)
        return false;
    ps->items[ps->count++] = path;
    return true;
}

/* A component without wildcards, its escapes undone, in out (len+1 bytes). */
static void unescape(const char *component, size_t len, char *out)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (component[i] == '\\' && i + 1 < len)
            i++;
        out[n++] = component[i];
    }
    out[n] = 0;
}

static bool has_wildcard(const char *component, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (component[i] == '\\')
            i++;
        else if (component[i] == '*' || component[i] == '?' || component[i] == '[')
            return true;
    }
    return false;
}

typedef struct Walk {
    const char *pattern;
    const pv_stop *stop;
    uint64_t visited;
    pv_error *err;
} Walk;

/* Every entry of directory prefix matching the component, into next. */
static int read_level(Walk *w, const char *prefix, const char *sep, size_t sep_len,
                      const char *component, size_t len, Paths *next)
{
    if (pv_stop_check_point(w->stop, w->pattern, w->err))
        return -1;
    /* the directory: prefix and the slashes after it ("/" for a pattern's
     * root), or "." for a relative pattern's first component */
    char *where = *prefix || sep_len ? sqlite3_mprintf("%s%.*s", prefix, (int)sep_len, sep)
                                     : sqlite3_mprintf(".");
    if (!where)
        return pv_error_set_kind(w->err, PV_ERROR_NOMEM, "%s: out of memory", w->pattern);
    DIR *dir = opendir(where);
    sqlite3_free(where);
    if (!dir)
        return 0;   /* not a directory, or unreadable: no match there, as glob */
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (++w->visited > PV_GLOB_MAX_VISITED) {
            closedir(dir);
            return pv_error_set(w->err, "%s: the pattern reads over %u directory entries; "
                                "name fewer directories", w->pattern, PV_GLOB_MAX_VISITED);
        }
        if ((w->visited & 1023) == 0 && pv_stop_check_point(w->stop, w->pattern, w->err)) {
            closedir(dir);
            return -1;
        }
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            if (!(len > 0 && component[0] == '.'))
                continue;
        if (!name_matches(component, len, e->d_name))
            continue;
        if (next->count >= PV_GLOB_MAX_MATCHES) {
            closedir(dir);
            return pv_error_set(w->err, "%s: the pattern matches over %u paths at one level; "
                                "name fewer files", w->pattern, PV_GLOB_MAX_MATCHES);
        }
        if (!paths_add(next, prefix, sep, sep_len, e->d_name, strlen(e->d_name))) {
            closedir(dir);
            return pv_error_set_kind(w->err, PV_ERROR_NOMEM, "%s: out of memory", w->pattern);
        }
    }
    closedir(dir);
    return 0;
}

static int compare_paths(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int pv_glob_expand(const char *pattern, const pv_stop *stop, char ***paths, size_t *count,
                   pv_error *err)
{
    *paths = NULL;
    *count = 0;
    size_t total = strlen(pattern);
    if (total > PV_GLOB_MAX_PATTERN)
        return pv_error_set(err, "%.64s...: a pattern of %zu bytes; at most %u", pattern, total,
                            PV_GLOB_MAX_PATTERN);
    size_t wild = 0;
    for (const char *c = pattern; *c;) {
        size_t len = strcspn(c, "/");
        wild += has_wildcard(c, len);
        c += len + (c[len] == '/');
    }
    if (wild > PV_GLOB_MAX_COMPONENTS)
        return pv_error_set(err, "%.64s...: a pattern with %zu components that have wildcards; "
                            "at most %u", pattern, wild, PV_GLOB_MAX_COMPONENTS);
    Walk w = {pattern, stop, 0, err};
    Paths level = {0}, next = {0};
    if (!paths_add(&level, "", "", 0, "", 0)) {
        paths_free(&level);
        return pv_error_set_kind(err, PV_ERROR_NOMEM, "%s: out of memory", pattern);
    }
    char literal[PV_GLOB_MAX_PATTERN + 1];
    const char *c = pattern;
    for (;;) {
        size_t sep_len = strspn(c, "/");
        const char *sep = c;
        c += sep_len;
        if (!*c)
            break;
        size_t len = strcspn(c, "/");
        const char *component = c;
        c += len;
        bool wildcard = has_wildcard(component, len);
        if (!wildcard)
            unescape(component, len, literal);
        for (size_t i = 0; i < level.count; i++) {
            if (wildcard ? read_level(&w, level.items[i], sep, sep_len, component, len, &next) != 0
                         : !paths_add(&next, level.items[i], sep, sep_len, literal, strlen(literal))) {
                if (!wildcard)
                    pv_error_set_kind(err, PV_ERROR_NOMEM, "%s: out of memory", pattern);
                paths_free(&level);
                paths_free(&next);
                return -1;
            }
        }
        paths_free(&level);
        level = next;
        next = (Paths){0};
    }
    /* a pattern ending in slashes names directories, and keeps them */
    size_t dir_slashes = 0;
    while (c - dir_slashes > pattern && c[-1 - (ptrdiff_t)dir_slashes] == '/')
        dir_slashes++;
    const char *dir_sep = c - dir_slashes;
    if (dir_sep == pattern)
        dir_slashes = 0;    /* "/" alone is no component */
    if (dir_slashes > 1)
        dir_slashes = 1;    /* as glob: one slash after a directory */
    /* what the walk did not read (literal components) must exist */
    size_t kept = 0;
    for (size_t i = 0; i < level.count; i++) {
        struct stat st;
        bool keep = dir_slashes ? stat(level.items[i], &st) == 0 && S_ISDIR(st.st_mode)
                                : lstat(level.items[i], &st) == 0;
        char *path = level.items[i];
        if (keep && dir_slashes) {
            path = sqlite3_mprintf("%s%.*s", level.items[i], (int)dir_slashes, dir_sep);
            sqlite3_free(level.items[i]);
            if (!path) {
                for (size_t j = i + 1; j < level.count; j++)
                    sqlite3_free(level.items[j]);
                level.count = kept;
                paths_free(&level);
                return pv_error_set_kind(err, PV_ERROR_NOMEM, "%s: out of memory", pattern);
            }
        } else if (!keep) {
            sqlite3_free(level.items[i]);
            continue;
        }
        level.items[kept++] = path;
    }
    level.count = kept;
    if (kept == 0) {
        paths_free(&level);
        return pv_error_set(err, "%s: no such file, and no file matches it as a pattern", pattern);
    }
    qsort(level.items, level.count, sizeof *level.items, compare_paths);
    *paths = level.items;
    *count = level.count;
    return 0;
}

void pv_glob_free(char **paths, size_t count)
{
    Paths ps = {paths, count, count};
    paths_free(&ps);
}
