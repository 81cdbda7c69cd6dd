#include "stream/file_open.h"

#include "format/event_names.h"
#include "format/offcpu_event.h"
#include "stream/pipe_header.h"

/* A pipe's attrs, event names and features are records of the stream.
 * Then, with every attr known, the events' names (made here, so that memory
 * running out is this error, not a NULL event in a row later) and what the
 * sample decoder needs to know of the events. */
static int finish_pipe(pv_file *f, pv_file **out, pv_error *err)
{
    if ((f->pipe && (pv_pipe_read_header_records(f, err) || pv_file_index_ids(f, err))) ||
        pv_file_load_event_names(f, err) || pv_offcpu_event_mark(f, err)) {
        pv_file_close(f);
        *out = NULL;
        return -1;
    }
    return 0;
}

int pv_file_open_stoppable(const char *path, const pv_stop *stop, pv_file **out, pv_error *err)
{
    if (pv_file_open_header(path, stop, out, err))
        return -1;
    if (finish_pipe(*out, out, err))
        return -1;
    pv_file_clear_stop(*out, stop);
    return 0;
}

int pv_file_open(const char *path, pv_file **out, pv_error *err)
{
    return pv_file_open_stoppable(path, NULL, out, err);
}

int pv_file_open_memory(const char *name, const uint8_t *bytes, uint64_t size,
                        pv_file **out, pv_error *err)
{
    if (pv_file_open_memory_header(name, bytes, size, out, err))
        return -1;
    return finish_pipe(*out, out, err);
}
