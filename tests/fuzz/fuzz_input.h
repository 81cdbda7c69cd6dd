/*
 * The fuzz targets' input as a file: pv_file_open and the SQL `path`
 * argument take a path, so the bytes go into an anonymous memfd and the
 * path is /proc/self/fd/N (a regular file, as stat() sees it).  Nothing is
 * written to disk and nothing is left behind when the descriptor closes.
 */
#ifndef PV_FUZZ_INPUT_H
#define PV_FUZZ_INPUT_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* Returns the descriptor (close it when done) and the path in path[64]. */
static int fuzz_input_file(const uint8_t *data, size_t size, char path[64])
{
    int fd = memfd_create("perfvtab-fuzz", MFD_CLOEXEC);
    if (fd < 0) {
        perror("memfd_create");
        abort();
    }
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(fd, data + done, size - done);
        if (n <= 0) {
            perror("write memfd");
            abort();
        }
        done += (size_t)n;
    }
    snprintf(path, 64, "/proc/self/fd/%d", fd);
    return fd;
}
#endif
