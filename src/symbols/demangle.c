#include "symbols/demangle.h"

#include <libiberty/demangle.h>
#include <stdbool.h>

#include "base/pv_alloc.h"
#include "base/pv_strbuf.h"

/* libiberty hands the name over in pieces */
static void append(const char *piece, size_t len, void *opaque)
{
    pv_strbuf_append(opaque, piece, len);
}

/*
 * cplus_demangle's "auto" style, piece by piece: Rust first (its legacy
 * names are also C++ names, which would keep their hash), then C++.
 * cplus_demangle itself allocates its answer with malloc and answers NULL
 * when that fails, which would show a mangled name where memory ran out;
 * the callback forms allocate nothing, and the answer is built here, where
 * a failed allocation is counted (base/pv_alloc.h) and fails the query.
 */
static bool demangle_every(const char *name, char **out)
{
    pv_strbuf text = {0};
    bool mangled = rust_demangle_callback(name, DMGL_NO_OPTS, append, &text) ||
                   (pv_strbuf_free(&text),
                    cplus_demangle_v3_callback(name, DMGL_NO_OPTS, append, &text));
    bool failed = mangled && text.failed;
    if (failed)
        pv_alloc_count_failure();       /* also when too long to ask for */
    if (!mangled || failed)
        pv_strbuf_free(&text);
    *out = text.text;
    return !failed;
}

char *pv_demangle_every(const char *name)
{
    char *text;
    demangle_every(name, &text);
    return text;
}

/* libiberty's Rust demangler takes only "_R" (v0) and "_ZN" (legacy)
 * names; its C++ one, without DMGL_TYPES, only "_Z" and
 * "_GLOBAL_[._$][DI]_" names.  test_demangle holds this to
 * pv_demangle_every over every symbol of the system's libraries. */
bool pv_demangle_may_change(const char *name)
{
    return name[0] == '_' && (name[1] == 'Z' || name[1] == 'R' || name[1] == 'G');
}

bool pv_demangle_into(const char *name, char **out)
{
    *out = NULL;
    return !pv_demangle_may_change(name) || demangle_every(name, out);
}

char *pv_demangle(const char *name)
{
    char *text;
    pv_demangle_into(name, &text);
    return text;
}
