/*
 * What the unit tests of record decoders share: a fake one-event file, the
 * label of a check run in each byte order, checks of decoded fields that
 * end the test function on the first mismatch, and the check that an error
 * names the file, the record's offset (BB_RECORD_OFFSET) and what is wrong.
 * Include after unit_check.h and byte_builder.h.
 */
#ifndef PV_RECORD_CHECKS_H
#define PV_RECORD_CHECKS_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "format/attr.h"
#include "format/perf_file.h"
#include "base/pv_error.h"

/* A file "fake.data" of one event a (none when a is NULL). */
static inline pv_file fake_file(pv_attr *a, bool swap)
{
    pv_file f;
    memset(&f, 0, sizeof f);
    f.path = f.data_path = (char *)"fake.data";
    f.swap = swap;
    f.attrs = a;
    f.nr_attrs = a ? 1 : 0;
    f.sample_id_word = -1;
    f.trailer_id_word = -1;
    return f;
}

/* "what (big-endian)": valid until the next call. */
static inline const char *named(const char *what, bool be)
{
    static char label[200];
    snprintf(label, sizeof label, "%s (%s)", what, be ? "big-endian" : "little-endian");
    return label;
}

#define EQ(what, got, want)                                                                 \
    do {                                                                                    \
        unsigned long long got_ = (unsigned long long)(got);                                \
        unsigned long long want_ = (unsigned long long)(want);                              \
        if (got_ != want_) {                                                                \
            check(false, what, "%s is 0x%llx, want 0x%llx", #got, got_, want_);             \
            return;                                                                         \
        }                                                                                   \
    } while (0)

#define TEXT(what, got, got_len, want)                                                      \
    do {                                                                                    \
        if (!(got) || (got_len) != strlen(want) || memcmp(got, want, got_len) != 0) {       \
            check(false, what, "%s is not \"%s\"", #got, want);                             \
            return;                                                                         \
        }                                                                                   \
    } while (0)

#define DECODED(what, rc, err)                                                              \
    do {                                                                                    \
        if ((rc) != 0) {                                                                    \
            check(false, what, "error: %s", (err).msg);                                     \
            return;                                                                         \
        }                                                                                   \
    } while (0)

/* rc must be an error naming the file, the offset and each fragment. */
static inline void expect_error(const char *what, int rc, const pv_error *err, const char *frag1,
                                const char *frag2)
{
    if (rc == 0)
        check(false, what, "no error");
    else if (!strstr(err->msg, "fake.data") || !strstr(err->msg, "offset 0x1a38"))
        check(false, what, "message lacks file or offset: %s", err->msg);
    else if ((frag1 && !strstr(err->msg, frag1)) || (frag2 && !strstr(err->msg, frag2)))
        check(false, what, "message lacks \"%s\" or \"%s\": %s", frag1, frag2 ? frag2 : "",
              err->msg);
    else
        check(true, what, " ");
}

#endif
