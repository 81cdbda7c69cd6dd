/*
 * Opening a recording: a perf.data file, a `perf record --threads`
 * directory, or a pipe-mode stream saved to a file or read from a pipe
 * ('-', a FIFO: format/perf_file.h), whose attrs and features are records
 * read with the record walk.
 */
#ifndef PV_FILE_OPEN_H
#define PV_FILE_OPEN_H

#include <stdint.h>

#include "format/perf_file.h"
#include "base/pv_error.h"
#include "base/pv_stop.h"

int pv_file_open(const char *path, pv_file **out, pv_error *err);
/* The same, asking stop while it reads (a stream's opening waits for the
 * writer's first records). */
int pv_file_open_stoppable(const char *path, const pv_stop *stop, pv_file **out, pv_error *err);
/* A perf.data image already in memory (a single file, not a directory); the
 * bytes must outlive the pv_file.  name is used in messages. */
int pv_file_open_memory(const char *name, const uint8_t *bytes, uint64_t size,
                        pv_file **out, pv_error *err);

#endif
