/* Typed decoders of the records about tasks: COMM, FORK/EXIT, NAMESPACES,
 * CGROUP (record_types.h). */
#include "decode/record_types.h"

#include "format/record_reader.h"

int pv_rec_comm_decode(const pv_file *f, const pv_record *rec, pv_rec_comm *out, pv_error *err)
{
    pv_rec_reader r;
    *out = (pv_rec_comm){0};
    if (pv_rec_open(&r, f, rec, &out->trailer, err))
        return -1;
    out->pid = pv_rec_u32(&r, "pid");
    out->tid = pv_rec_u32(&r, "tid");
    out->comm = pv_rec_rest_string(&r, "comm", &out->comm_len);
    out->exec = (rec->misc & PV_MISC_COMM_EXEC) != 0;
    return pv_rec_finish(&r, err);
}

int pv_rec_task_decode(const pv_file *f, const pv_record *rec, pv_rec_task *out, pv_error *err)
{
    pv_rec_reader r;
    *out = (pv_rec_task){0};
    if (pv_rec_open(&r, f, rec, &out->trailer, err))
        return -1;
    out->exit = rec->type == PV_RECORD_EXIT;
    out->pid = pv_rec_u32(&r, "pid");
    out->ppid = pv_rec_u32(&r, "ppid");
    out->tid = pv_rec_u32(&r, "tid");
    out->ptid = pv_rec_u32(&r, "ptid");
    out->time = pv_rec_u64(&r, "time");
    return pv_rec_finish(&r, err);
}

int pv_rec_namespaces_decode(const pv_file *f, const pv_record *rec, pv_rec_namespaces *out,
                             pv_error *err)
{
    pv_rec_reader r;
    *out = (pv_rec_namespaces){.swap = f->swap};
    if (pv_rec_open(&r, f, rec, &out->trailer, err))
        return -1;
    out->pid = pv_rec_u32(&r, "pid");
    out->tid = pv_rec_u32(&r, "tid");
    out->nr_namespaces = pv_rec_u64(&r, "nr_namespaces");
    if (pv_rec_check_count(&r, "namespaces", out->nr_namespaces, 16, err))
        return -1;
    out->namespaces = pv_rec_bytes(&r, out->nr_namespaces * 16, "namespaces");
    return pv_rec_finish(&r, err);
}

void pv_rec_namespace_at(const pv_rec_namespaces *ns, uint64_t i, uint64_t *dev, uint64_t *ino)
{
    *dev = pv_load_u64(ns->namespaces + i * 16, ns->swap);
    *ino = pv_load_u64(ns->namespaces + i * 16 + 8, ns->swap);
}

int pv_rec_cgroup_decode(const pv_file *f, const pv_record *rec, pv_rec_cgroup *out, pv_error *err)
{
    pv_rec_reader r;
    *out = (pv_rec_cgroup){0};
    if (pv_rec_open(&r, f, rec, &out->trailer, err))
        return -1;
    out->id = pv_rec_u64(&r, "id");
    out->path = pv_rec_rest_string(&r, "path", &out->path_len);
    return pv_rec_finish(&r, err);
}
