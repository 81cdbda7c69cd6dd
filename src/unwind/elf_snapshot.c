#include "unwind/elf_snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

static bool same_version(const struct stat *a, const struct stat *b)
{
    return a->st_size == b->st_size && a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
           a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

int pv_elf_snapshot(const char *path, int fd, char *why, size_t why_size)
{
    const char *name = path ? path : "debug file";
    int source = path ? open(path, O_RDONLY | O_CLOEXEC) : fd;
    struct stat before, after;
    if (source < 0 || fstat(source, &before) != 0) {
        snprintf(why, why_size, "cannot open %s: %s", name, strerror(errno));
        if (path && source >= 0)
            close(source);
        return -1;
    }
    if (!S_ISREG(before.st_mode)) {
        snprintf(why, why_size, "%s is not a regular file", name);
        if (path)
            close(source);
        return -1;
    }
    int copy = memfd_create("perfvtab-elf", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    bool ok = copy >= 0;
    off_t at = 0;
    uint64_t size = (uint64_t)before.st_size;
    errno = 0;
    while (ok && (uint64_t)at < size) {
        errno = 0;
        ssize_t sent = sendfile(copy, source, &at, (size_t)(size - (uint64_t)at));
        if (sent < 0 && errno == EINTR)
            continue;
        ok = sent > 0;
    }
    if (!ok) {
        snprintf(why, why_size, "cannot copy %s: %s", name,
                 errno ? strerror(errno) : "it shrank while it was copied");
    } else if (fstat(source, &after) != 0 || !same_version(&before, &after)) {
        snprintf(why, why_size, "%s changed while it was copied", name);
        ok = false;
    } else if (fcntl(copy, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) !=
                   0 ||
               lseek(copy, 0, SEEK_SET) != 0) {
        snprintf(why, why_size, "cannot seal the copy of %s: %s", name, strerror(errno));
        ok = false;
    }
    if (path)
        close(source);
    if (!ok) {
        if (copy >= 0)
            close(copy);
        return -1;
    }
    return copy;
}

int pv_elf_snapshot_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
                                   Dwarf_Addr base, const char *file_name,
                                   const char *debuglink_file, GElf_Word debuglink_crc,
                                   char **debuginfo_file_name)
{
    int fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
                                          debuglink_crc, debuginfo_file_name);
    if (fd < 0)
        return fd;
    char why[256];
    int copy = pv_elf_snapshot(NULL, fd, why, sizeof why);
    close(fd);
    return copy;    /* -1: as if there were no debug file */
}
