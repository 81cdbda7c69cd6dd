/*
 * The event of `perf record --off-cpu` (BPF), and which of its forms a
 * file holds.
 *
 * perf names the event "offcpu-time" (util/off_cpu.h); it is a bpf-output
 * event (PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT).  perf 5.19 to 6.13
 * write its samples with their fields where every sample has them.  perf
 * 6.14+ sample PERF_SAMPLE_RAW on it, and its BPF program (and perf, for
 * the sums it writes at the end) puts the sample's real fields in the raw
 * data; perf's evsel.c puts them in place of the recorded ones for an
 * offcpu-time event that samples RAW.  perfvtab recognises that form the
 * same way: the name, the bpf-output type and config, and RAW sampled
 * (decode/sample.c reads the raw layout).
 */
#ifndef PV_OFFCPU_EVENT_H
#define PV_OFFCPU_EVENT_H

#include "base/pv_error.h"
#include "format/perf_file.h"

#define PV_OFFCPU_EVENT "offcpu-time"
/* perf's time for the summed samples it writes when the recording ends
 * (OFF_CPU_TIMESTAMP, ~0 << 32, plus one per sample): no time at all */
#define PV_OFFCPU_SUMMED_TIME 0xffffffff00000000ull

/* Sets pv_attr.offcpu_embedded on the file's offcpu-time event when it
 * samples RAW (perf 6.14+).  Called once the attrs and names are known;
 * -1 when a name could not be had (out of memory). */
int pv_offcpu_event_mark(pv_file *f, pv_error *err);

#endif
