/*
 * Every record type the reader knows, one row each:
 *
 *   X(NAME, number, "name", writer)
 *
 * NAME makes the enum constant PV_RECORD_<NAME> (perf_abi.h); number is
 * the type's value in the record header; "name" is the spelling `perf
 * report --stats` prints (pv_record_type_name); writer names the function
 * write_<writer> that writes its perf_records.fields JSON, in
 * decode/record_fields_kernel.c (kernel types) or record_fields_user.c
 * (user types).  Those tables, the enum and the names are all made from
 * these rows, so a type is added here once.  Only the writer's name is
 * written here: format/ includes nothing of decode/.
 *
 * The kernel's types are below 64 and carry a sample_id_all trailer; perf's
 * own (user) types are from 64 on.  Values from the kernel's
 * <linux/perf_event.h> and perf's tools/perf/util/event.h.
 */
#ifndef PV_RECORD_TYPE_LIST_H
#define PV_RECORD_TYPE_LIST_H

#define PV_KERNEL_RECORD_TYPES(X) \
    X(MMAP, 1, "MMAP", mmap_any) \
    X(LOST, 2, "LOST", lost_any) \
    X(COMM, 3, "COMM", comm) \
    X(EXIT, 4, "EXIT", task) \
    X(THROTTLE, 5, "THROTTLE", throttle) \
    X(UNTHROTTLE, 6, "UNTHROTTLE", throttle) \
    X(FORK, 7, "FORK", task) \
    X(READ, 8, "READ", read) \
    X(SAMPLE, 9, "SAMPLE", sample) \
    X(MMAP2, 10, "MMAP2", mmap_any) \
    X(AUX, 11, "AUX", aux) \
    X(ITRACE_START, 12, "ITRACE_START", itrace_start) \
    X(LOST_SAMPLES, 13, "LOST_SAMPLES", lost_any) \
    X(SWITCH, 14, "SWITCH", switch_any) \
    X(SWITCH_CPU_WIDE, 15, "SWITCH_CPU_WIDE", switch_any) \
    X(NAMESPACES, 16, "NAMESPACES", namespaces) \
    X(KSYMBOL, 17, "KSYMBOL", ksymbol) \
    X(BPF_EVENT, 18, "BPF_EVENT", bpf_event) \
    X(CGROUP, 19, "CGROUP", cgroup) \
    X(TEXT_POKE, 20, "TEXT_POKE", text_poke) \
    X(AUX_OUTPUT_HW_ID, 21, "AUX_OUTPUT_HW_ID", aux_output_hw_id) \
    X(CALLCHAIN_DEFERRED, 22, "CALLCHAIN_DEFERRED", callchain_deferred)

#define PV_USER_RECORD_TYPES(X) \
    X(HEADER_ATTR, 64, "ATTR", header_attr) \
    X(HEADER_EVENT_TYPE, 65, "EVENT_TYPE", header_event_type) \
    X(HEADER_TRACING_DATA, 66, "TRACING_DATA", header_tracing_data) \
    X(HEADER_BUILD_ID, 67, "BUILD_ID", header_build_id) \
    X(FINISHED_ROUND, 68, "FINISHED_ROUND", empty) \
    X(ID_INDEX, 69, "ID_INDEX", id_index) \
    X(AUXTRACE_INFO, 70, "AUXTRACE_INFO", auxtrace_info) \
    X(AUXTRACE, 71, "AUXTRACE", auxtrace) \
    X(AUXTRACE_ERROR, 72, "AUXTRACE_ERROR", auxtrace_error) \
    X(THREAD_MAP, 73, "THREAD_MAP", thread_map) \
    X(CPU_MAP, 74, "CPU_MAP", cpu_map) \
    X(STAT_CONFIG, 75, "STAT_CONFIG", stat_config) \
    X(STAT, 76, "STAT", stat) \
    X(STAT_ROUND, 77, "STAT_ROUND", stat_round) \
    X(EVENT_UPDATE, 78, "EVENT_UPDATE", event_update) \
    X(TIME_CONV, 79, "TIME_CONV", time_conv) \
    X(HEADER_FEATURE, 80, "FEATURE", header_feature) \
    X(COMPRESSED, 81, "COMPRESSED", compressed) \
    X(FINISHED_INIT, 82, "FINISHED_INIT", empty) \
    X(COMPRESSED2, 83, "COMPRESSED2", compressed) \
    X(BPF_METADATA, 84, "BPF_METADATA", bpf_metadata) \
    X(SCHEDSTAT_CPU, 85, "SCHEDSTAT_CPU", schedstat) \
    X(SCHEDSTAT_DOMAIN, 86, "SCHEDSTAT_DOMAIN", schedstat)

/* The enum constant of a row (perf_abi.h). */
#define PV_RECORD_TYPE_ENUM(NAME, number, name, writer) PV_RECORD_##NAME = number,
/* The row's name, at its number (perf_abi.c). */
#define PV_RECORD_TYPE_NAME(NAME, number, name, writer) [number] = name,
/* The row's fields writer, at its number (decode/record_fields_*.c). */
#define PV_RECORD_TYPE_WRITER(NAME, number, name, writer) [number] = write_##writer,

#endif
