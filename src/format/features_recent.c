/*
 * The feature sections perf added after 6.1 (features.c holds the older
 * ones and the table both share): CPU_DOMAIN_INFO (32), E_MACHINE (33),
 * CLN_SIZE (34), and the architecture the E_MACHINE feature gives where
 * the arch feature is missing.  Layouts as perf writes them
 * (tools/perf/util/header.c; CPU_DOMAIN_INFO also in
 * tools/perf/Documentation/perf.data-file-format.txt).
 */
#include "format/features_internal.h"

#include <stdio.h>
#include <string.h>

#include "format/perf_file.h"

/*
 * cpu_domain_info (perf 7.0, `perf sched stats record`): the sched domains
 * of each cpu, from /proc/schedstat.
 *   u32 schedstat_version; u32 max_sched_domains;
 *   then, to the end of the section, one entry per cpu that has domains:
 *     u32 cpu; u32 nr_domains;
 *     nr_domains times: u32 domain;
 *                       perf_header_string dname (schedstat 17 and later);
 *                       perf_header_string cpumask ("00000000,000000ff");
 *                       perf_header_string cpulist ("0-7")
 * perf itself reads nr_cpus_online entries; reading to the section's end
 * reads the same ones from what perf writes, and does not depend on the
 * nrcpus feature.
 */
int pv_feature_decode_cpu_domain_info(feature_ctx *x)
{
    uint32_t version = pv_bytes_u32(&x->c);
    uint32_t max_domains = pv_bytes_u32(&x->c);
    if (x->c.failed)
        return pv_feature_truncated(x);
    bool named = version >= 17;
    /* the least a domain takes: its number and two or three empty strings */
    uint64_t min_domain = 4 + 4 + 4 + (named ? 4 : 0);
    pv_json_object_begin(&x->w);
    pv_feature_key_u64(x, "schedstat_version", version);
    pv_feature_key_u64(x, "max_sched_domains", max_domains);
    pv_json_key(&x->w, "cpus");
    pv_json_array_begin(&x->w);
    while (pv_bytes_left(&x->c) > 0) {
        uint32_t cpu = pv_bytes_u32(&x->c);
        uint32_t nr;
        if (x->c.failed)
            return pv_feature_truncated(x);
        if (pv_feature_read_count32(x, min_domain, "domain", &nr))
            return -1;
        pv_json_object_begin(&x->w);
        pv_feature_key_u64(x, "cpu", cpu);
        pv_json_key(&x->w, "domains");
        pv_json_array_begin(&x->w);
        for (uint32_t i = 0; i < nr; i++) {
            pv_json_object_begin(&x->w);
            pv_feature_key_u64(x, "domain", pv_bytes_u32(&x->c));
            if ((named && !pv_feature_key_string(x, "name")) ||
                !pv_feature_key_string(x, "cpumask") || !pv_feature_key_string(x, "cpulist"))
                return pv_feature_truncated(x);
            pv_json_object_end(&x->w);
        }
        pv_json_array_end(&x->w);
        pv_json_object_end(&x->w);
    }
    pv_json_array_end(&x->w);
    pv_json_object_end(&x->w);
    return pv_feature_done(x, PV_FEATURE_VALUE_JSON);
}

/* uname -m's name for an ELF machine (<elf.h>'s EM_*), as perf's arch
 * feature spells it; NULL for one without a single name. */
static const char *e_machine_arch(uint32_t e_machine)
{
    switch (e_machine) {
    case 2: return "sparc";          /* EM_SPARC */
    case 3: return "i686";           /* EM_386 */
    case 8: return "mips";           /* EM_MIPS */
    case 15: return "parisc";        /* EM_PARISC */
    case 20: return "ppc";           /* EM_PPC */
    case 21: return "ppc64";         /* EM_PPC64 */
    case 22: return "s390x";         /* EM_S390 */
    case 40: return "arm";           /* EM_ARM */
    case 42: return "sh";            /* EM_SH */
    case 43: return "sparc64";       /* EM_SPARCV9 */
    case 50: return "ia64";          /* EM_IA_64 */
    case 62: return "x86_64";        /* EM_X86_64 */
    case 183: return "aarch64";      /* EM_AARCH64 */
    case 243: return "riscv64";      /* EM_RISCV (perf records 64-bit riscv) */
    case 258: return "loongarch64";  /* EM_LOONGARCH */
    default: return NULL;
    }
}

/*
 * e_machine (perf 7.0): the ELF machine of the recorded threads and its
 * flags, each widened to a u32 so the section stays aligned:
 *   u32 e_machine; u32 e_flags
 * The value adds "arch", uname -m's name for the machine, where one is known.
 */
int pv_feature_decode_e_machine(feature_ctx *x)
{
    uint32_t e_machine = pv_bytes_u32(&x->c);
    uint32_t e_flags = pv_bytes_u32(&x->c);
    if (x->c.failed)
        return pv_feature_truncated(x);
    pv_json_object_begin(&x->w);
    pv_feature_key_u64(x, "e_machine", e_machine);
    pv_feature_key_u64(x, "e_flags", e_flags);
    const char *arch = e_machine_arch(e_machine);
    if (arch) {
        pv_json_key(&x->w, "arch");
        pv_json_cstring(&x->w, arch);
    }
    pv_json_object_end(&x->w);
    return pv_feature_done(x, PV_FEATURE_VALUE_JSON);
}

/*
 * cln_size (perf 7.1): the cache line size in bytes of the recording
 * machine, which perf c2c and perf mem group addresses by.  Read as one
 * integer as wide as the section (4 or 8 bytes): no published document
 * gives its width.
 */
int pv_feature_decode_cln_size(feature_ctx *x)
{
    if (x->c.size == 4)
        x->integer = pv_bytes_u32(&x->c);
    else if (x->c.size == 8)
        x->integer = (int64_t)pv_bytes_u64(&x->c);
    else
        return pv_feature_fail(x, "section of %llu bytes is not one 4- or 8-byte integer",
                               (unsigned long long)x->c.size);
    return pv_feature_done(x, PV_FEATURE_VALUE_INTEGER);
}

/* the text of a feature holding one string, as perf_features gives it */
static bool feature_text(pv_file *f, unsigned id, char *out, size_t size)
{
    pv_strbuf b = {0};
    pv_feature_value_kind kind;
    int64_t integer;
    pv_error err;
    bool ok = pv_feature_decode(f, id, &kind, &integer, &b, &err) == 0 &&
              kind == PV_FEATURE_VALUE_TEXT && !b.failed && b.len < size;
    if (ok)
        memcpy(out, pv_strbuf_text(&b), b.len + 1);
    pv_strbuf_free(&b);
    return ok;
}

bool pv_feature_arch(pv_file *f, char *out, size_t size)
{
    if (feature_text(f, PV_FEATURE_ARCH, out, size))
        return true;
    const uint8_t *bytes;
    uint64_t section_size, offset;
    pv_error ignored;
    if (!pv_file_has_feature(f, PV_FEATURE_E_MACHINE) ||
        pv_file_feature_bytes(f, PV_FEATURE_E_MACHINE, &bytes, &section_size, &offset,
                              &ignored) ||
        section_size < 4)
        return false;
    const char *arch = e_machine_arch(pv_load_u32(bytes, f->swap));
    if (!arch || strlen(arch) >= size)
        return false;
    memcpy(out, arch, strlen(arch) + 1);
    return true;
}
