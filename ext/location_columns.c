#include "location_columns.h"

pv_value pv_location_value(const pv_location *l, int field)
{
    switch (field) {
    case PV_LOC_DSO: return pv_text_value(l->dso);
    case PV_LOC_DSO_OFFSET: return l->dso ? pv_int_value((int64_t)l->dso_offset) : pv_null_value();
    case PV_LOC_SYM: return pv_text_value(l->sym);
    case PV_LOC_SYM_OFFSET: return l->sym ? pv_int_value((int64_t)l->sym_offset) : pv_null_value();
    case PV_LOC_SYM_STATUS: return pv_text_value(l->status);
    default: return pv_null_value();
    }
}

/* Looked up once per row, whichever of the two columns is read first. */
pv_value pv_source_value(PvSourceColumns *src, pv_symbolizer *s, const PvSourceAddress *at,
                         bool want_file)
{
    if (!src->looked) {
        src->found = pv_symbolizer_source_line(s, at->pid, at->key, at->cpumode, at->ip,
                                               at->level, src->file, sizeof src->file,
                                               &src->line);
        src->looked = true;
    }
    if (!src->found)
        return pv_null_value();
    if (want_file)
        return pv_text_value(src->file);
    return pv_int_value((int64_t)src->line);
}
