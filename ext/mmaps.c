/*
 * perf_mmaps: one row per PERF_RECORD_MMAP and PERF_RECORD_MMAP2, in file order.
 *
 *   MMAP:  u32 pid, tid; u64 start, len, pgoff; char filename[]
 *   MMAP2: u32 pid, tid; u64 start, len, pgoff;
 *          { u32 maj, min; u64 ino, ino_generation; }
 *            or, with misc MMAP_BUILD_ID, { u8 build_id_size; u8 pad[3]; u8 build_id[20]; }
 *          u32 prot, flags; char filename[]
 *   both followed by the sample_id trailer.
 */
#include "perf_abi.h"
#include "pv_cursor.h"
#include "record_walk.h"
#include "sample.h"
#include "vtab_common.h"

#define MMAPS_COLUMNS(X) \
    X(RECORD, record, INTEGER) \
    X(TIME, time, INTEGER) \
    X(PID, pid, INTEGER) \
    X(TID, tid, INTEGER) \
    X(CPU, cpu, INTEGER) \
    X(START, start, INTEGER) \
    X(LEN, len, INTEGER) \
    X(PGOFF, pgoff, INTEGER) \
    X(FILENAME, filename, TEXT) \
    X(KIND, kind, TEXT) \
    X(MAJ, maj, INTEGER) \
    X(MIN, min, INTEGER) \
    X(INO, ino, INTEGER) \
    X(INO_GENERATION, ino_generation, INTEGER) \
    X(PROT, prot, INTEGER) \
    X(FLAGS, flags, INTEGER) \
    X(BUILD_ID, build_id, TEXT) \
    X(CPUMODE, cpumode, TEXT) \
    X(EXECUTABLE, executable, INTEGER)
enum { MMAPS_COLUMNS(PV_COLUMN_ENUM) };

typedef struct MmapsState {
    PvRecordRows rows;          /* first: see vtab_common.h */
    pv_sample_id trailer;
    uint32_t pid, tid;
    uint64_t start, len, pgoff;
    uint32_t maj, min, prot, flags;
    uint64_t ino, ino_generation;
    const uint8_t *build_id;
    uint8_t build_id_size;
    const char *filename;
    uint64_t filename_len;
} MmapsState;

#define MMAP2_BUILD_ID_MAX 20

static int decode_mmap(pv_file *f, MmapsState *st, pv_error *err)
{
    const pv_record *r = &st->rows.record;
    pv_cursor c;
    if (pv_record_body(f, r, &st->trailer, &c, err))
        return -1;
    st->pid = pv_cursor_u32(&c);
    st->tid = pv_cursor_u32(&c);
    st->start = pv_cursor_u64(&c);
    st->len = pv_cursor_u64(&c);
    st->pgoff = pv_cursor_u64(&c);
    st->build_id = NULL;
    st->build_id_size = 0;
    if (r->type == PV_RECORD_MMAP2) {
        if (r->misc & PV_MISC_MMAP_BUILD_ID) {
            st->build_id_size = pv_cursor_u8(&c);
            pv_cursor_skip(&c, 3);
            st->build_id = pv_cursor_bytes(&c, MMAP2_BUILD_ID_MAX);
            if (st->build_id_size > MMAP2_BUILD_ID_MAX)
                return pv_error_set(err, "%s: MMAP2 record at offset 0x%llx has a build-id of %u bytes (> 20)",
                                    f->data_path, (unsigned long long)r->file_offset, st->build_id_size);
        } else {
            st->maj = pv_cursor_u32(&c);
            st->min = pv_cursor_u32(&c);
            st->ino = pv_cursor_u64(&c);
            st->ino_generation = pv_cursor_u64(&c);
        }
        st->prot = pv_cursor_u32(&c);
        st->flags = pv_cursor_u32(&c);
    }
    st->filename = pv_cursor_padded_string(&c, pv_cursor_left(&c), &st->filename_len);
    if (c.failed || !st->filename)
        return pv_record_too_short(f, r, err);
    return 0;
}

static bool mmaps_wants(uint32_t type)
{
    return type == PV_RECORD_MMAP || type == PV_RECORD_MMAP2;
}

static int mmaps_decode(PvCursor *cur, pv_error *err)
{
    return decode_mmap(cur->file, cur->state, err);
}

static int mmaps_column(PvCursor *cur, sqlite3_context *ctx, int i)
{
    MmapsState *st = cur->state;
    bool mmap2 = st->rows.record.type == PV_RECORD_MMAP2;
    bool inode_form = mmap2 && !(st->rows.record.misc & PV_MISC_MMAP_BUILD_ID);
    switch (i) {
    case COL_RECORD: sqlite3_result_int64(ctx, (sqlite3_int64)st->rows.record.index); break;
    case COL_TIME:
        if (st->trailer.fields & PV_SAMPLE_TIME) pv_result_u64(ctx, st->trailer.time);
        break;
    case COL_PID: sqlite3_result_int(ctx, (int32_t)st->pid); break;
    case COL_TID: sqlite3_result_int(ctx, (int32_t)st->tid); break;
    case COL_CPU:
        if (st->trailer.fields & PV_SAMPLE_CPU) pv_result_u64(ctx, st->trailer.cpu);
        break;
    case COL_START: pv_result_u64(ctx, st->start); break;
    case COL_LEN: pv_result_u64(ctx, st->len); break;
    case COL_PGOFF: pv_result_u64(ctx, st->pgoff); break;
    case COL_FILENAME: pv_result_file_text(ctx, st->filename, st->filename_len); break;
    case COL_KIND: pv_result_static_name(ctx, mmap2 ? "MMAP2" : "MMAP"); break;
    case COL_MAJ: if (inode_form) pv_result_u64(ctx, st->maj); break;
    case COL_MIN: if (inode_form) pv_result_u64(ctx, st->min); break;
    case COL_INO: if (inode_form) pv_result_u64(ctx, st->ino); break;
    case COL_INO_GENERATION: if (inode_form) pv_result_u64(ctx, st->ino_generation); break;
    case COL_PROT: if (mmap2) pv_result_u64(ctx, st->prot); break;
    case COL_FLAGS: if (mmap2) pv_result_u64(ctx, st->flags); break;
    case COL_BUILD_ID:
        if (st->build_id) {
            pv_strbuf_reset(&cur->text);
            pv_strbuf_hex(&cur->text, st->build_id, st->build_id_size);
            pv_result_text_buffer(cur, ctx);
        }
        break;
    case COL_CPUMODE:
        pv_result_static_name(ctx, pv_cpumode_name(st->rows.record.misc & PV_MISC_CPUMODE_MASK));
        break;
    case COL_EXECUTABLE:
        sqlite3_result_int(ctx, !(st->rows.record.misc & PV_MISC_MMAP_DATA));
        break;
    }
    return SQLITE_OK;
}

const PvTableDef pv_mmaps_table = {
    .pushdown = PV_PUSHDOWN_TIME,
    .name = "perf_mmaps",
    .columns = PV_COLUMNS_DECL(MMAPS_COLUMNS),
    .state_size = sizeof(MmapsState),
    .first = pv_record_rows_first,
    .next = pv_record_rows_next,
    .column = mmaps_column,
    .reset = pv_record_rows_reset,
    .wants = mmaps_wants,
    .decode = mmaps_decode,
};
