/*
 * Symbol names as perf shows them.  The one place perfvtab demangles: ELF
 * symbol tables (symbols/elf_image.c) and the DWARF linkage names of inline
 * frames (symbols/unwind_glue.c hands it to unwind/inline_frames.c) both go
 * through it.
 *
 * perf 6.1 as Debian builds it (no libbfd) demangles with libiberty's
 * cplus_demangle(name, DMGL_NO_OPTS) in its default "auto" style, which
 * knows:
 *   - C++ (Itanium): `_ZN3foo3barEv` -> `foo::bar`, no parameters;
 *   - Rust legacy: `_ZN9hot_names4main17h088665bc2f64c49bE` ->
 *     `hot_names::main`, the `17h<16 hex>E` hash left out;
 *   - Rust v0: `_RNvCs..._9hot_names4main` -> `hot_names::main`, generic
 *     arguments kept (`spin_generic::<u8>`), closures as `{closure#N}`.
 * perf's second Rust pass (when libiberty's answer still ends in `::h<hash>`)
 * never fires after this libiberty, which knows every escape it knows.
 * Kernel and JIT names stay as they are: their callers do not ask.
 */
#ifndef PV_DEMANGLE_H
#define PV_DEMANGLE_H

#include <stdbool.h>

/* name demangled into *out, in memory the caller frees, or *out NULL when
 * name is not a mangled name (show it as it is); false when memory ran out,
 * the failure counted (base/pv_alloc.h) so that the query fails. */
bool pv_demangle_into(const char *name, char **out);
/* The same with NULL for both: for callers that show the name as it is
 * and leave the counted failure to fail the query. */
char *pv_demangle(const char *name);

/* Whether pv_demangle could change name: false for the names neither
 * demangler takes (most C names), which then cost no call. */
bool pv_demangle_may_change(const char *name);

/* pv_demangle asking libiberty whatever the name: the twin the tests
 * compare pv_demangle_may_change's shortcut with. */
char *pv_demangle_every(const char *name);

#endif
