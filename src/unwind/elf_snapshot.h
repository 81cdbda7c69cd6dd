/*
 * Files libdw maps, made safe to map.  libelf and libdw map the ELF and
 * debug files they open; a file that shrinks while mapped (a rebuild, an
 * upgrade, a truncation) makes the next access to a lost page a SIGBUS,
 * which kills the host.  So the files handed to libdwfl are snapshots: a
 * copy in a sealed memory file (memfd) that nothing can shrink.  The copy
 * costs the file's size in memory while the session that reads it lives
 * (the debug cache bounds how many are open).  The reader's own libelf
 * handles (symbols/elf_image.c) read with ELF_C_READ instead, which reads
 * sections with pread and turns a shrunk file into an error.
 */
#ifndef PV_ELF_SNAPSHOT_H
#define PV_ELF_SNAPSHOT_H

#include <elfutils/libdwfl.h>
#include <stddef.h>

/* A sealed snapshot of the regular file at path (or of the open fd when
 * path is NULL; the fd is left open), positioned at 0; or -1 with why set.
 * A file that changed while it was copied is an error too. */
int pv_elf_snapshot(const char *path, int fd, char *why, size_t why_size);

/* libdwfl's find_debuginfo callback, as dwfl_standard_find_debuginfo finds
 * the file, handing libdwfl a snapshot of it. */
int pv_elf_snapshot_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
                                   Dwarf_Addr base, const char *file_name,
                                   const char *debuglink_file, GElf_Word debuglink_crc,
                                   char **debuginfo_file_name);

#endif
