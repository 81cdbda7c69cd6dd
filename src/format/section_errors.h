/*
 * The errors of a feature section's decoders (format/features.c and the
 * section iterators beside it, such as format/event_desc.c), so that every
 * section says what is wrong the same way:
 *   "<file>: <name> feature at offset 0x..: <what>"
 */
#ifndef PV_SECTION_ERRORS_H
#define PV_SECTION_ERRORS_H

#include <stdarg.h>
#include <stdint.h>

#include "format/perf_file.h"
#include "base/byte_reader.h"
#include "base/pv_error.h"

/* The section named name, at file offset offset, of file f. */
typedef struct pv_section_place {
    const pv_file *f;
    const char *name;
    uint64_t offset;
} pv_section_place;

/* Sets err to the message; returns -1. */
int pv_section_vfail(const pv_section_place *at, pv_error *err, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
int pv_section_fail(const pv_section_place *at, pv_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The one message for a read of c past the section. */
int pv_section_truncated(const pv_section_place *at, const pv_byte_reader *c, pv_error *err);
/* A count of nr elements, each at least min_each bytes (0: no least), read
 * at count_offset, must fit in what is left of c; checked before looping so
 * that a hostile count fails at once.  A failed c is a truncated section. */
int pv_section_check_count(const pv_section_place *at, const pv_byte_reader *c, uint64_t nr,
                           uint64_t min_each, uint64_t count_offset, const char *what,
                           pv_error *err);

#endif
