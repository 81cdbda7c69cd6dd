/*
 * What symbol resolution needs from an ELF file, read with libelf: its
 * build-id, its .gnu_debuglink, where its loadable segments sit (to turn
 * an offset in the file into the address its symbols use), and its
 * symbols (.symtab, then .dynsym) with the filter perf applies: functions,
 * objects, and untyped labels in text sections; never undefined, absolute
 * or non-allocated ones.
 */
#ifndef PV_ELF_IMAGE_H
#define PV_ELF_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/symtree.h"

#define PV_ELF_MAX_LOADS 32

typedef struct pv_elf_image {
    uint8_t build_id[20];
    uint8_t build_id_len;       /* 0: no NT_GNU_BUILD_ID note */
    char debuglink[256];        /* "" when none */
    bool has_symtab;
    bool has_dynsym;
    size_t nr_loads;
    struct pv_elf_load { uint64_t offset, vaddr, filesz; } loads[PV_ELF_MAX_LOADS];
} pv_elf_image;

/* Reads the headers of path.  false: not a readable ELF file (why says so). */
bool pv_elf_probe(const char *path, pv_elf_image *img, char *why, size_t why_size);
/* Builds t from path's symbols (.symtab, then .dynsym) at their ELF
 * addresses, and perf's "name@plt" symbols for the .plt entries of
 * runtime_path (the mapped file; path may be its debug file), in perf's
 * order (see symtree.h). */
bool pv_elf_read_symbols(const char *path, const char *runtime_path, pv_symtree *t);
/* Same for an ELF image in memory (the running process's vdso). */
bool pv_elf_probe_memory(const void *image, size_t size, pv_elf_image *img);
bool pv_elf_read_symbols_memory(const void *image, size_t size, pv_symtree *t);

/* The address the symbols use for file offset off (the image's segments). */
uint64_t pv_elf_offset_to_vaddr(const pv_elf_image *img, uint64_t off);

#endif
