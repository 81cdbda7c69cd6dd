/*
 * An ELF file's DWARF sections, read one at a time by name: libelf (with
 * ELF_C_READ, as symbols/elf_image.c reads) for the section headers, the
 * bytes with pread, a SHF_COMPRESSED section inflated with zlib.  Nothing
 * is mapped, so a file that shrinks is an error, not a SIGBUS; and a
 * section is held only while its caller needs it (libdw inflates them all
 * and keeps them for its session).
 *
 * What libdw would read differently (.zdebug_ sections, LTO or split
 * DWARF sections, a compression other than zlib, a stream zlib cannot
 * inflate) is not guessed at: the caller is told to let libdw read it.
 */
#ifndef PV_DEBUG_SECTIONS_H
#define PV_DEBUG_SECTIONS_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum pv_section_status {
    PV_SECTION_READ,
    PV_SECTION_ABSENT,      /* no such section, or SHT_NOBITS */
    PV_SECTION_FOR_LIBDW,   /* one libdw reads its own way, or unreadable */
    PV_SECTION_NO_MEMORY,
    PV_SECTION_STOPPED,     /* the work was stopped (stop, base/pv_stop.h) */
} pv_section_status;

typedef struct pv_debug_elf {
    int fd;                 /* the caller's: not closed here */
    Elf *elf;
    bool swap;              /* the file's byte order is not the host's */
    bool is64;
    uint16_t type;          /* e_type */
    uint64_t file_size;     /* bounds what a section header may claim */
    bool failed;            /* libelf could not read a header: answers not to be trusted */
    const struct pv_stop *stop;     /* asked between reads; NULL: never stop */
} pv_debug_elf;

typedef struct pv_section_bytes {
    uint8_t *data;          /* pv_malloc'd, NULL for an empty section */
    uint64_t size;
} pv_section_bytes;

/* Opens the ELF file on fd; false when it is none (or memory ran out:
 * *no_memory). */
bool pv_debug_elf_open(pv_debug_elf *e, int fd, bool *no_memory);
void pv_debug_elf_close(pv_debug_elf *e);

/* Whether the file has a section of that name (SHT_NOBITS ones not
 * counted).  A libelf failure (its memory running out) sets e->failed. */
bool pv_debug_elf_has(pv_debug_elf *e, const char *name);

/* Whether the file has a symbol table (SHT_SYMTAB). */
bool pv_debug_elf_has_symtab(pv_debug_elf *e);

/* Whether a section's name says libdw reads it in a way of its own: a
 * .zdebug_ (GNU-compressed), .gnu.debuglto_ or .dwo section, or a
 * supplementary (dwz) file's link. */
bool pv_debug_elf_needs_libdw(pv_debug_elf *e);

/* The first section of that name into *out (inflated when compressed). */
pv_section_status pv_debug_elf_read(pv_debug_elf *e, const char *name, pv_section_bytes *out);

void pv_section_bytes_free(pv_section_bytes *b);

/* The end of the first PT_LOAD segment (p_vaddr + p_memsz), as
 * libdwfl takes it to align a debug file with its main file; 0 when
 * there is none (e->failed set when libelf could not read them). */
uint64_t pv_debug_elf_address_sync(pv_debug_elf *e);

#endif
