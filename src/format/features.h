/*
 * Feature sections (HEADER_* of perf's header.h): names, and each section
 * decoded into one SQL value.
 *
 * Decoding is on demand: perf_file.c only keeps the {offset, size} of each
 * section; a caller asks for one feature at a time, and the value is built
 * in a caller-owned strbuf so that nothing is allocated per value.
 *
 * Strings are TEXT, total_mem (kB) and clockid (resolution in ns) are
 * INTEGER, everything else is JSON text with perf's field names.
 */
#ifndef PV_FEATURES_H
#define PV_FEATURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/perf_file.h"
#include "base/pv_error.h"
#include "base/pv_strbuf.h"

enum {
    PV_FEATURE_TRACING_DATA = 1,
    PV_FEATURE_BUILD_ID = 2,
    PV_FEATURE_HOSTNAME = 3,
    PV_FEATURE_OSRELEASE = 4,
    PV_FEATURE_VERSION = 5,
    PV_FEATURE_ARCH = 6,
    PV_FEATURE_NRCPUS = 7,
    PV_FEATURE_CPUDESC = 8,
    PV_FEATURE_CPUID = 9,
    PV_FEATURE_TOTAL_MEM = 10,
    PV_FEATURE_CMDLINE = 11,
    PV_FEATURE_EVENT_DESC = 12,
    PV_FEATURE_CPU_TOPOLOGY = 13,
    PV_FEATURE_NUMA_TOPOLOGY = 14,
    PV_FEATURE_BRANCH_STACK = 15,
    PV_FEATURE_PMU_MAPPINGS = 16,
    PV_FEATURE_GROUP_DESC = 17,
    PV_FEATURE_AUXTRACE = 18,
    PV_FEATURE_STAT = 19,
    PV_FEATURE_CACHE = 20,
    PV_FEATURE_SAMPLE_TIME = 21,
    PV_FEATURE_MEM_TOPOLOGY = 22,
    PV_FEATURE_CLOCKID = 23,
    PV_FEATURE_DIR_FORMAT = 24,
    PV_FEATURE_BPF_PROG_INFO = 25,
    PV_FEATURE_BPF_BTF = 26,
    PV_FEATURE_COMPRESSED = 27,
    PV_FEATURE_CPU_PMU_CAPS = 28,
    PV_FEATURE_CLOCK_DATA = 29,
    PV_FEATURE_HYBRID_TOPOLOGY = 30,
    PV_FEATURE_PMU_CAPS = 31,
    PV_FEATURE_CPU_DOMAIN_INFO = 32,
    PV_FEATURE_E_MACHINE = 33,
    PV_FEATURE_CLN_SIZE = 34,
    PV_FEATURE_LAST_KNOWN = 34,
};

typedef enum {
    PV_FEATURE_VALUE_NULL,
    PV_FEATURE_VALUE_INTEGER,
    PV_FEATURE_VALUE_TEXT,
    PV_FEATURE_VALUE_JSON,
} pv_feature_value_kind;

/* "hostname", ...; NULL for an id this reader does not know. */
const char *pv_feature_name(unsigned id);

/*
 * Decodes feature id of f.  TEXT and JSON values are appended to out (reset
 * first), an INTEGER is stored in *integer; *kind says which.  A feature
 * the file lacks, or an unknown id, is PV_FEATURE_VALUE_NULL.  -1 with err
 * naming the file, the feature and the byte offset when the section is
 * malformed.
 */
int pv_feature_decode(pv_file *f, unsigned id, pv_feature_value_kind *kind, int64_t *integer,
                      pv_strbuf *out, pv_error *err);

/*
 * The recording machine's architecture as uname -m names it ("x86_64"):
 * the arch feature, or where the file lacks it, the name of the E_MACHINE
 * feature's ELF machine (perf 7.0+).  Copied into out; false when neither
 * tells (or out is too small).
 */
bool pv_feature_arch(pv_file *f, char *out, size_t size);

#endif
