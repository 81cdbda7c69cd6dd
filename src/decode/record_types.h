/*
 * Typed records: one decoder per record type, which every consumer uses
 * (the tables, the symbolizer, diagnostics, the fields JSON).
 *
 * Each decoder fills a plain struct of typed fields from a record's body
 * read through the bounds-checked byte reader, and the record's sample_id_all
 * trailer (kernel types only; fields == 0 when there is none).  Strings and
 * arrays are not copied: they point into the record bytes and are valid as
 * long as the record is.  Arrays are read with the accessors below, which
 * handle byte order.
 *
 * Errors: a body that ends before a field does gives one message naming the
 * record, its offset, the field and where it would have been (see
 * record_reader.h); a count that cannot fit, or a value no writer produces
 * (an MMAP2 build-id over 20 bytes), is an error naming the value.
 *
 * Layouts are offsets within the body, after the 8-byte header.  Kernel
 * layouts are those of <linux/perf_event.h>; user records (type >= 64)
 * those perf writes.
 */
#ifndef PV_RECORD_TYPES_H
#define PV_RECORD_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "format/perf_abi.h"
#include "format/perf_file.h"
#include "base/pv_error.h"
#include "stream/record_walk.h"
#include "decode/sample.h"

/* ------------------------------------------------------------ maps (record_maps.c) */

/* MMAP:  0 pid u32, 4 tid u32, 8 start u64, 16 len u64, 24 pgoff u64, 32 filename[]
 * MMAP2: as MMAP up to pgoff, then
 *   32 either {maj u32, min u32, ino u64, ino_generation u64}
 *          or, when misc & MMAP_BUILD_ID, {build_id_size u8, 3 reserved, build_id[20]},
 *   56 prot u32, 60 flags u32, 64 filename[]
 * The short MMAP2 of Linux 3.12-3.15 and RHEL 7's 3.10 has no prot and flags:
 *   56 filename[] (inode form only; short_layout, recognized as record_maps.c
 *   explains; perf 6.1 reads its name 8 bytes late).
 * filename[] is NUL-terminated and NUL-padded to a multiple of 8 bytes.
 * A build_id_size over 20 is an error: the kernel writes at most 20, and the
 * field holds no more (perf 6.1 overflows its buffer on such a record; later
 * perf cuts it to 20).  The record is damaged, so it is reported, never
 * truncated into a build-id that matches no file. */
typedef struct pv_rec_mmap {
    pv_sample_id trailer;
    bool mmap2;
    bool has_build_id;         /* MMAP2 with misc MMAP_BUILD_ID */
    uint32_t pid, tid;
    uint64_t start, len, pgoff;
    uint32_t maj, min;         /* MMAP2 without build-id */
    uint64_t ino, ino_generation;
    uint8_t build_id_size;     /* MMAP2 with build-id: 0..20 */
    const uint8_t *build_id;   /* build_id_size bytes */
    bool short_layout;         /* MMAP2 without prot and flags (old kernels) */
    uint32_t prot, flags;      /* MMAP2, unless short_layout (then unknown, 0) */
    const char *filename;      /* filename_len bytes, not NUL-terminated */
    uint64_t filename_len;
} pv_rec_mmap;

/* MMAP or MMAP2. */
int pv_rec_mmap_decode(const pv_file *f, const pv_record *rec, pv_rec_mmap *out, pv_error *err);

/* ------------------------------------------------------------ tasks (record_tasks.c) */

/* COMM: 0 pid u32, 4 tid u32, 8 comm[] (NUL-padded); misc COMM_EXEC: by exec */
typedef struct pv_rec_comm {
    pv_sample_id trailer;
    uint32_t pid, tid;
    const char *comm;
    uint64_t comm_len;
    bool exec;
} pv_rec_comm;

/* FORK, EXIT: 0 pid u32, 4 ppid u32, 8 tid u32, 12 ptid u32, 16 time u64 */
typedef struct pv_rec_task {
    pv_sample_id trailer;
    bool exit;
    uint32_t pid, ppid, tid, ptid;
    uint64_t time;
} pv_rec_task;

/* NAMESPACES: 0 pid u32, 4 tid u32, 8 nr_namespaces u64, 16 nr x {dev u64, ino u64} */
typedef struct pv_rec_namespaces {
    pv_sample_id trailer;
    uint32_t pid, tid;
    uint64_t nr_namespaces;
    const uint8_t *namespaces; /* nr_namespaces entries of 16 bytes */
    bool swap;
} pv_rec_namespaces;

/* CGROUP: 0 id u64, 8 path[] */
typedef struct pv_rec_cgroup {
    pv_sample_id trailer;
    uint64_t id;
    const char *path;
    uint64_t path_len;
} pv_rec_cgroup;

int pv_rec_comm_decode(const pv_file *f, const pv_record *rec, pv_rec_comm *out, pv_error *err);
int pv_rec_task_decode(const pv_file *f, const pv_record *rec, pv_rec_task *out, pv_error *err);
int pv_rec_namespaces_decode(const pv_file *f, const pv_record *rec, pv_rec_namespaces *out,
                             pv_error *err);
void pv_rec_namespace_at(const pv_rec_namespaces *ns, uint64_t i, uint64_t *dev, uint64_t *ino);
int pv_rec_cgroup_decode(const pv_file *f, const pv_record *rec, pv_rec_cgroup *out, pv_error *err);

/* ------------------------------------------------------------ losses (record_losses.c) */

/* LOST: 0 id u64, 8 lost u64 (ring buffer overflow)
 * LOST_SAMPLES: 0 lost u64 (dropped by the kernel) */
typedef struct pv_rec_lost {
    pv_sample_id trailer;
    bool has_id;               /* LOST; LOST_SAMPLES has none */
    uint64_t id, lost;
} pv_rec_lost;

/* THROTTLE, UNTHROTTLE: 0 time u64, 8 id u64, 16 stream_id u64 */
typedef struct pv_rec_throttle {
    pv_sample_id trailer;
    bool unthrottle;
    uint64_t time, id, stream_id;
} pv_rec_throttle;

/* LOST or LOST_SAMPLES. */
int pv_rec_lost_decode(const pv_file *f, const pv_record *rec, pv_rec_lost *out, pv_error *err);
int pv_rec_throttle_decode(const pv_file *f, const pv_record *rec, pv_rec_throttle *out,
                           pv_error *err);

/* ------------------------------------------------------------ events (record_events.c) */

/* READ: 0 pid u32, 4 tid u32, 8 the event's read_format block:
 *   not GROUP: value, [time_enabled], [time_running], [id], [lost]
 *   GROUP:     nr, [time_enabled], [time_running], nr x {value, [id], [lost]}
 * The event is the record's (by its trailer id), else the first. */
typedef struct pv_read_value {
    uint64_t value, id, lost;  /* id, lost: when read_format has them */
} pv_read_value;

typedef struct pv_rec_read {
    pv_sample_id trailer;
    uint32_t pid, tid;
    uint64_t read_format;      /* the event's: which fields are present */
    bool group;
    uint64_t nr;               /* GROUP: entries in values; else 1 */
    uint64_t time_enabled, time_running;
    pv_read_value one;         /* not GROUP */
    const uint8_t *values;     /* GROUP: nr entries of value, [id], [lost] */
    bool swap;
} pv_rec_read;

/* SWITCH: no body.  SWITCH_CPU_WIDE: 0 next_prev_pid u32, 4 next_prev_tid u32.
 * misc SWITCH_OUT: out (else in); SWITCH_OUT_PREEMPT: out while runnable. */
typedef struct pv_rec_switch {
    pv_sample_id trailer;
    bool cpu_wide;
    bool out, preempt;
    uint32_t next_prev_pid, next_prev_tid;  /* cpu_wide */
} pv_rec_switch;

int pv_rec_read_decode(const pv_file *f, const pv_record *rec, pv_rec_read *out, pv_error *err);
pv_read_value pv_rec_read_value_at(const pv_rec_read *r, uint64_t i);
/* SWITCH or SWITCH_CPU_WIDE. */
int pv_rec_switch_decode(const pv_file *f, const pv_record *rec, pv_rec_switch *out,
                         pv_error *err);

/* ------------------------------------------------------------ code (record_code.c) */

/* KSYMBOL: 0 addr u64, 8 len u32, 12 ksym_type u16, 14 flags u16, 16 name[] */
typedef struct pv_rec_ksymbol {
    pv_sample_id trailer;
    uint64_t addr;
    uint32_t len;
    uint16_t ksym_type, flags;
    const char *name;
    uint64_t name_len;
} pv_rec_ksymbol;

/* BPF_EVENT: 0 type u16, 2 flags u16, 4 id u32, 8 tag[8] */
typedef struct pv_rec_bpf_event {
    pv_sample_id trailer;
    uint16_t type, flags;
    uint32_t id;
    const uint8_t *tag;        /* 8 bytes */
} pv_rec_bpf_event;

/* TEXT_POKE: 0 addr u64, 8 old_len u16, 10 new_len u16,
 *   12 old_len bytes, new_len bytes, padding to 8 */
typedef struct pv_rec_text_poke {
    pv_sample_id trailer;
    uint64_t addr;
    uint16_t old_len, new_len;
    const uint8_t *old_bytes, *new_bytes;
} pv_rec_text_poke;

/* BPF_METADATA (perf 6.17; a user record, perf's
 * tools/lib/perf/include/perf/event.h): the variables named bpf_metadata_*
 * of one BPF program, as perf record found them.
 *   0 prog_name[512] (KSYM_NAME_LEN, NUL-padded), 512 nr_entries u64,
 *   520 nr_entries x {key[64], value[256]} (NUL-padded)
 * Bytes past the entries (perf leaves room for an id header) are not read. */
#define PV_BPF_METADATA_PROG_NAME_LEN 512
#define PV_BPF_METADATA_KEY_LEN 64
#define PV_BPF_METADATA_VALUE_LEN 256
typedef struct pv_rec_bpf_metadata {
    const char *prog_name;
    uint64_t prog_name_len;
    uint64_t nr_entries;
    const uint8_t *entries;    /* nr_entries x (KEY_LEN + VALUE_LEN) bytes */
} pv_rec_bpf_metadata;

int pv_rec_bpf_metadata_decode(const pv_file *f, const pv_record *rec, pv_rec_bpf_metadata *out,
                               pv_error *err);
/* Entry i's key and value, each up to its first NUL. */
void pv_rec_bpf_metadata_entry(const pv_rec_bpf_metadata *m, uint64_t i, const char **key,
                               uint64_t *key_len, const char **value, uint64_t *value_len);

int pv_rec_ksymbol_decode(const pv_file *f, const pv_record *rec, pv_rec_ksymbol *out,
                          pv_error *err);
int pv_rec_bpf_event_decode(const pv_file *f, const pv_record *rec, pv_rec_bpf_event *out,
                            pv_error *err);
int pv_rec_text_poke_decode(const pv_file *f, const pv_record *rec, pv_rec_text_poke *out,
                            pv_error *err);

/* ------------------------------------------------------------ aux (record_aux.c) */

/* AUX: 0 aux_offset u64, 8 aux_size u64, 16 flags u64 */
typedef struct pv_rec_aux {
    pv_sample_id trailer;
    uint64_t aux_offset, aux_size, flags;
} pv_rec_aux;

/* ITRACE_START: 0 pid u32, 4 tid u32 */
typedef struct pv_rec_itrace_start {
    pv_sample_id trailer;
    uint32_t pid, tid;
} pv_rec_itrace_start;

/* AUX_OUTPUT_HW_ID: 0 hw_id u64 */
typedef struct pv_rec_aux_output_hw_id {
    pv_sample_id trailer;
    uint64_t hw_id;
} pv_rec_aux_output_hw_id;

int pv_rec_aux_decode(const pv_file *f, const pv_record *rec, pv_rec_aux *out, pv_error *err);
int pv_rec_itrace_start_decode(const pv_file *f, const pv_record *rec, pv_rec_itrace_start *out,
                               pv_error *err);
int pv_rec_aux_output_hw_id_decode(const pv_file *f, const pv_record *rec,
                                   pv_rec_aux_output_hw_id *out, pv_error *err);

/* ------------------------------------------------------------ callchains (record_callchains.c) */

/* CALLCHAIN_DEFERRED (Linux 6.19, perf 7.0 --call-graph fp,defer): the
 * user part of the callchains of earlier samples of the same task, walked
 * when it went back to user space.  0 cookie u64 (the one those samples
 * carry after PERF_CONTEXT_USER_DEFERRED), 8 nr u64, 16 ips[nr] u64 (the
 * kernel writes PERF_CONTEXT_USER first, then the user addresses, leaf
 * first). */
typedef struct pv_rec_callchain_deferred {
    pv_sample_id trailer;
    uint64_t cookie, nr;
    const uint8_t *ips;        /* nr u64 in file byte order */
    bool swap;
} pv_rec_callchain_deferred;

int pv_rec_callchain_deferred_decode(const pv_file *f, const pv_record *rec,
                                     pv_rec_callchain_deferred *out, pv_error *err);
static inline uint64_t pv_rec_callchain_deferred_ip(const pv_rec_callchain_deferred *c, uint64_t i)
{
    return pv_load_u64(c->ips + i * 8, c->swap);
}

/* ------------------------------------------------------------ perf stat (record_stats.c) */

/* STAT: 0 id u64, 8 cpu u32, 12 thread u32, 16 val u64, 24 ena u64, 32 run u64 */
typedef struct pv_rec_stat {
    uint64_t id;
    uint32_t cpu, thread;      /* perf's int: -1 = any */
    uint64_t val, ena, run;
} pv_rec_stat;

/* STAT_ROUND: 0 type u64 (0 interval, 1 final), 8 time u64 */
typedef struct pv_rec_stat_round {
    uint64_t type, time;
} pv_rec_stat_round;

/* STAT_CONFIG: 0 nr u64, 8 nr x {tag u64, val u64}; tags 0 aggr_mode,
 * 1 interval, 2 scale, 3 aggr_level */
typedef struct pv_rec_stat_config {
    uint64_t nr;
    const uint8_t *entries;    /* nr entries of 16 bytes */
    bool swap;
} pv_rec_stat_config;

int pv_rec_stat_decode(const pv_file *f, const pv_record *rec, pv_rec_stat *out, pv_error *err);
int pv_rec_stat_round_decode(const pv_file *f, const pv_record *rec, pv_rec_stat_round *out,
                             pv_error *err);
int pv_rec_stat_config_decode(const pv_file *f, const pv_record *rec, pv_rec_stat_config *out,
                              pv_error *err);
void pv_rec_stat_config_at(const pv_rec_stat_config *c, uint64_t i, uint64_t *tag, uint64_t *val);

/* ------------------------------------------------------------ perf sched stats (record_schedstat.c) */

/*
 * SCHEDSTAT_CPU and SCHEDSTAT_DOMAIN (perf 7.0's `perf sched stats record`;
 * user records, perf's tools/lib/perf/include/perf/event.h): a snapshot of
 * one cpu's, or one cpu's sched domain's, line of /proc/schedstat.
 *   SCHEDSTAT_CPU:    0 timestamp u64, 8 cpu u32, 12 version u16, 14 pad[2],
 *                     16 the counters of that version's layout
 *   SCHEDSTAT_DOMAIN: 0 timestamp u64, 8 cpu u32, 12 version u16,
 *                     14 domain u16, 16 the counters of that version's layout
 * The counters of schedstat versions 15, 16 and 17 are those of perf's
 * tools/lib/perf/include/perf/schedstat-v15.h, -v16.h and -v17.h, in that
 * order, each a u32 or u64 (record_schedstat.c lists them).  A version
 * without a known layout decodes its header only.
 */
typedef struct pv_schedstat_counter {
    const char *name;          /* perf's field name: "yld_count", "busy_lb_count" */
    uint8_t width;             /* 4 or 8 bytes */
} pv_schedstat_counter;

typedef struct pv_rec_schedstat {
    bool domain_record;        /* SCHEDSTAT_DOMAIN */
    uint64_t timestamp;
    uint32_t cpu;
    uint16_t version;
    uint16_t domain;           /* SCHEDSTAT_DOMAIN only */
    const pv_schedstat_counter *layout;   /* NULL: a version without a known layout */
    size_t nr_counters;
    const uint8_t *counters;   /* the counters' bytes, in layout order */
    uint64_t counters_size;    /* the bytes after the header (all of them when layout is NULL) */
    bool swap;
} pv_rec_schedstat;

/* SCHEDSTAT_CPU or SCHEDSTAT_DOMAIN. */
int pv_rec_schedstat_decode(const pv_file *f, const pv_record *rec, pv_rec_schedstat *out,
                            pv_error *err);
/* Counter i of the layout (i < nr_counters), widened to 64 bits. */
uint64_t pv_rec_schedstat_counter(const pv_rec_schedstat *s, size_t i);

#endif
