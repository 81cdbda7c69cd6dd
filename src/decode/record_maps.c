/* Typed decoders of MMAP and MMAP2 (record_types.h). */
#include "decode/record_types.h"

#include <string.h>

#include "format/record_reader.h"

/*
 * Whether an MMAP2 body, read up to ino_generation (offset 56), has the short
 * layout of Linux 3.12-3.15 and RHEL 7's 3.10: no prot and flags, the name at
 * 56 instead of 64.  rest is the body from 56 to the sample_id trailer.
 *
 * Every kernel writes the name NUL-terminated and NUL-padded to a multiple of
 * 8 bytes, ending where the body does.  The length alone cannot tell the two
 * layouts apart: a short record whose name has 8 bytes or more also reads as
 * a well-formed long one, whose name starts 8 bytes late (perf 6.1 reads it
 * so: "64/libc-2.17.so" for "/usr/lib64/libc-2.17.so").  What decides is the
 * 8 bytes at 56, prot and flags in the long layout.  They are short when:
 *  1. the byte at 56 is not a control character (>= 0x20).  In the long
 *     layout it is the first byte of prot in file order: 0 big-endian, and
 *     little-endian PROT_READ|PROT_WRITE|PROT_EXEC bits, at most 7, the only
 *     bits the kernel, perf's /proc synthesis and simpleperf put there.  A
 *     name starts with '/', '[' or a letter ("anon_inode:...").
 *  2. a string starting at 56 has its first NUL where the kernel's padding
 *     ends the body exactly: round_up(length + 1, 8) == the bytes left.  With
 *     the 3 zero bytes of a long record's prot this holds only for an empty
 *     long name field, which no writer makes (the NUL needs 8 bytes).
 * So a record a kernel or perf wrote in today's layout is never taken as
 * short, whatever its name, and a short one is always recognized: its name
 * is never empty, and its padding is the kernel's.
 */
static bool mmap2_is_short(const uint8_t *rest, uint64_t left)
{
    if (!rest || left < 8 || left % 8 != 0 || rest[0] < 0x20)
        return false;
    const uint8_t *nul = memchr(rest, 0, left);
    if (!nul)
        return false;
    uint64_t name_len = (uint64_t)(nul - rest);
    return (name_len + 1 + 7) / 8 * 8 == left;
}

int pv_rec_mmap_decode(const pv_file *f, const pv_record *rec, pv_rec_mmap *out, pv_error *err)
{
    pv_rec_reader r;
    *out = (pv_rec_mmap){0};
    if (pv_rec_open(&r, f, rec, &out->trailer, err))
        return -1;
    out->mmap2 = rec->type == PV_RECORD_MMAP2;
    out->pid = pv_rec_u32(&r, "pid");
    out->tid = pv_rec_u32(&r, "tid");
    out->start = pv_rec_u64(&r, "start");
    out->len = pv_rec_u64(&r, "len");
    out->pgoff = pv_rec_u64(&r, "pgoff");
    if (out->mmap2) {
        if (rec->misc & PV_MISC_MMAP_BUILD_ID) {
            out->has_build_id = true;
            out->build_id_size = pv_rec_u8(&r, "build_id_size");
            pv_rec_skip(&r, 3, "build_id");
            /* checked at once: the bytes it claims are not all there */
            if (!r.c.failed && out->build_id_size > PV_BUILD_ID_MAX)
                return pv_rec_malformed(&r, err, "build-id size %u (> %d)", out->build_id_size,
                                        PV_BUILD_ID_MAX);
            out->build_id = pv_rec_bytes(&r, out->build_id_size, "build_id");
            pv_rec_skip(&r, PV_BUILD_ID_MAX - out->build_id_size, "prot");
        } else {
            out->maj = pv_rec_u32(&r, "maj");
            out->min = pv_rec_u32(&r, "min");
            out->ino = pv_rec_u64(&r, "ino");
            out->ino_generation = pv_rec_u64(&r, "ino_generation");
            /* the short layout predates build-ids in MMAP2 (Linux 5.12) */
            pv_byte_reader ahead = r.c;
            uint64_t left = pv_bytes_left(&ahead);
            out->short_layout = mmap2_is_short(pv_bytes_take(&ahead, left), left);
        }
        if (!out->short_layout) {
            out->prot = pv_rec_u32(&r, "prot");
            out->flags = pv_rec_u32(&r, "flags");
        }
    }
    out->filename = pv_rec_rest_string(&r, "filename", &out->filename_len);
    return pv_rec_finish(&r, err);
}
