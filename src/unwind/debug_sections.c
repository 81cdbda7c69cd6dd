#include "unwind/debug_sections.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "base/byte_reader.h"
#include "base/pv_alloc.h"
#include "base/pv_stop.h"

#define READ_CHUNK (64 * 1024)

bool pv_debug_elf_open(pv_debug_elf *e, int fd, bool *no_memory)
{
    memset(e, 0, sizeof *e);
    e->fd = fd;
    *no_memory = false;
    struct stat st;
    if (elf_version(EV_CURRENT) == EV_NONE || fstat(fd, &st) != 0)
        return false;
    e->file_size = (uint64_t)st.st_size;
    errno = 0;
    e->elf = elf_begin(fd, ELF_C_READ, NULL);
    GElf_Ehdr ehdr;
    if (!e->elf || elf_kind(e->elf) != ELF_K_ELF || !gelf_getehdr(e->elf, &ehdr)) {
        *no_memory = errno == ENOMEM;
        pv_debug_elf_close(e);
        return false;
    }
    e->is64 = ehdr.e_ident[EI_CLASS] == ELFCLASS64;
    bool little = ehdr.e_ident[EI_DATA] == ELFDATA2LSB;
    e->swap = little != (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__);
    e->type = ehdr.e_type;
    return true;
}

void pv_debug_elf_close(pv_debug_elf *e)
{
    if (e->elf)
        elf_end(e->elf);
    e->elf = NULL;
}

void pv_section_bytes_free(pv_section_bytes *b)
{
    free(b->data);
    b->data = NULL;
    b->size = 0;
}

/* The first section named name (SHT_NOBITS ones skipped, as libdw skips
 * them), its header in *shdr. */
static Elf_Scn *find_section(pv_debug_elf *e, const char *name, GElf_Shdr *shdr)
{
    size_t names;
    if (elf_getshdrstrndx(e->elf, &names) != 0) {
        e->failed = true;
        return NULL;
    }
    for (Elf_Scn *scn = elf_nextscn(e->elf, NULL); scn; scn = elf_nextscn(e->elf, scn)) {
        if (!gelf_getshdr(scn, shdr)) {
            e->failed = true;
            continue;
        }
        if (shdr->sh_type == SHT_NOBITS)
            continue;
        const char *n = elf_strptr(e->elf, names, shdr->sh_name);
        if (!n)
            e->failed = true;
        else if (strcmp(n, name) == 0)
            return scn;
    }
    return NULL;
}

bool pv_debug_elf_has(pv_debug_elf *e, const char *name)
{
    GElf_Shdr shdr;
    return find_section(e, name, &shdr) != NULL;
}

bool pv_debug_elf_has_symtab(pv_debug_elf *e)
{
    for (Elf_Scn *scn = elf_nextscn(e->elf, NULL); scn; scn = elf_nextscn(e->elf, scn)) {
        GElf_Shdr shdr;
        if (!gelf_getshdr(scn, &shdr))
            e->failed = true;
        else if (shdr.sh_type == SHT_SYMTAB)
            return true;
    }
    return false;
}

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcmp(s + n - m, tail) == 0;
}

bool pv_debug_elf_needs_libdw(pv_debug_elf *e)
{
    size_t names;
    if (elf_getshdrstrndx(e->elf, &names) != 0)
        return true;
    for (Elf_Scn *scn = elf_nextscn(e->elf, NULL); scn; scn = elf_nextscn(e->elf, scn)) {
        GElf_Shdr shdr;
        if (!gelf_getshdr(scn, &shdr))
            return true;
        const char *n = elf_strptr(e->elf, names, shdr.sh_name);
        if (!n)
            return true;
        if (strncmp(n, ".zdebug", 7) == 0 || strncmp(n, ".gnu.debuglto_", 14) == 0 ||
            ends_with(n, ".dwo") || strcmp(n, ".gnu_debugaltlink") == 0 ||
            strcmp(n, ".debug_sup") == 0 || strcmp(n, ".gnu.prelink_undo") == 0)
            return true;
    }
    return false;
}

/* Exactly size bytes at offset; false on a short read or an error. */
static bool read_at(int fd, uint8_t *buf, uint64_t size, uint64_t offset)
{
    while (size > 0) {
        size_t want = size > (1u << 30) ? (1u << 30) : (size_t)size;
        ssize_t got = pread(fd, buf, want, (off_t)offset);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return false;
        buf += got;
        size -= (uint64_t)got;
        offset += (uint64_t)got;
    }
    return true;
}

/* The zlib stream of size bytes at offset, inflated into exactly
 * out->size bytes.  The buffer grows as the stream yields: a header that
 * claims more than the stream holds costs no memory.  Once the work is
 * stopped, no more of a section is read. */
static pv_section_status inflate_at(const pv_debug_elf *e, uint64_t offset, uint64_t size,
                                    pv_section_bytes *out)
{
    int fd = e->fd;
    uint64_t want = out->size;
    size_t cap = want < 4 * size + READ_CHUNK ? (size_t)want : (size_t)(4 * size + READ_CHUNK);
    uint8_t *chunk = pv_malloc(READ_CHUNK);
    out->data = pv_malloc(cap);
    if (!chunk || !out->data) {
        free(chunk);
        pv_section_bytes_free(out);
        return PV_SECTION_NO_MEMORY;
    }
    z_stream z;
    memset(&z, 0, sizeof z);
    int rc = inflateInit(&z);
    pv_section_status status = rc == Z_MEM_ERROR ? PV_SECTION_NO_MEMORY : PV_SECTION_FOR_LIBDW;
    bool ended = false;
    uint64_t done = 0;
    while (rc == Z_OK && !ended) {
        if (z.avail_in == 0) {
            if (pv_stop_said(e->stop)) {
                status = PV_SECTION_STOPPED;
                break;
            }
            uint64_t n = size - done < READ_CHUNK ? size - done : READ_CHUNK;
            if (n == 0 || !read_at(fd, chunk, n, offset + done))
                break;
            done += n;
            z.next_in = chunk;
            z.avail_in = (uInt)n;
        }
        uint64_t written = z.total_out;
        if (written == cap && cap < want) {
            size_t grown = want - cap < cap ? (size_t)want : cap * 2;
            uint8_t *bigger = pv_realloc(out->data, grown);
            if (!bigger) {
                status = PV_SECTION_NO_MEMORY;
                break;
            }
            out->data = bigger;
            cap = grown;
        }
        uint64_t room = cap - written;
        z.next_out = out->data + written;
        z.avail_out = room > (1u << 30) ? (1u << 30) : (uInt)room;
        rc = inflate(&z, Z_NO_FLUSH);
        if (rc == Z_STREAM_END)
            ended = true;
        else if (rc == Z_BUF_ERROR && z.total_out == want)
            break;      /* more than the header said */
        else if (rc == Z_BUF_ERROR)
            rc = Z_OK;  /* wants input or room */
    }
    if (rc == Z_MEM_ERROR)
        status = PV_SECTION_NO_MEMORY;
    inflateEnd(&z);
    free(chunk);
    if (ended && z.total_out == want)
        return PV_SECTION_READ;
    pv_section_bytes_free(out);
    return status;
}

pv_section_status pv_debug_elf_read(pv_debug_elf *e, const char *name, pv_section_bytes *out)
{
    out->data = NULL;
    out->size = 0;
    GElf_Shdr shdr;
    if (!find_section(e, name, &shdr))
        return e->failed ? PV_SECTION_FOR_LIBDW : PV_SECTION_ABSENT;
    if (pv_stop_said(e->stop))
        return PV_SECTION_STOPPED;
    if (shdr.sh_offset > e->file_size || shdr.sh_size > e->file_size - shdr.sh_offset)
        return PV_SECTION_FOR_LIBDW;    /* past the end of the file */
    if (!(shdr.sh_flags & SHF_COMPRESSED)) {
        out->size = shdr.sh_size;
        if (out->size == 0)
            return PV_SECTION_READ;
        out->data = pv_malloc(out->size);
        if (!out->data)
            return PV_SECTION_NO_MEMORY;
        if (read_at(e->fd, out->data, out->size, shdr.sh_offset))
            return PV_SECTION_READ;
        pv_section_bytes_free(out);
        return PV_SECTION_FOR_LIBDW;
    }
    /* Elf32_Chdr / Elf64_Chdr, read field by field */
    uint8_t header[24];
    size_t header_size = e->is64 ? 24 : 12;
    if (shdr.sh_size < header_size || !read_at(e->fd, header, header_size, shdr.sh_offset))
        return PV_SECTION_FOR_LIBDW;
    pv_byte_reader r;
    pv_byte_reader_init(&r, header, header_size, shdr.sh_offset, e->swap);
    uint32_t type = pv_bytes_u32(&r);
    if (e->is64)
        pv_bytes_skip(&r, 4);
    out->size = e->is64 ? pv_bytes_u64(&r) : pv_bytes_u32(&r);
    uint64_t packed = shdr.sh_size - header_size;
    /* zlib inflates at most 1032 bytes from one */
    if (type != ELFCOMPRESS_ZLIB || out->size == 0 || packed == 0 || out->size / 1032 > packed ||
        out->size > SIZE_MAX / 2) {
        out->size = 0;
        return PV_SECTION_FOR_LIBDW;
    }
    return inflate_at(e, shdr.sh_offset + header_size, packed, out);
}

uint64_t pv_debug_elf_address_sync(pv_debug_elf *e)
{
    size_t n;
    if (elf_getphdrnum(e->elf, &n) != 0) {
        e->failed = true;
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(e->elf, (int)i, &ph))
            e->failed = true;
        else if (ph.p_type == PT_LOAD)
            return ph.p_vaddr + ph.p_memsz;
    }
    return 0;
}
