/*
 * Event names as perf report shows them.
 *
 * HEADER_EVENT_DESC holds the names perf record gave the events (with
 * modifiers, e.g. "cycles:u"), read through format/event_desc.h.  An entry belongs to the attr that owns its first id, or failing ids, to
 * the attr at the same position.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "format/event_names.h"

#include "format/attr.h"
#include "format/event_desc.h"
#include "base/pv_alloc.h"

#define FEATURE_EVENT_DESC 12

static char *copy_name(const char *s, uint64_t n)
{
    char *d = pv_malloc((size_t)n + 1);
    if (d) {
        memcpy(d, s, (size_t)n);
        d[n] = 0;
    }
    return d;
}

/* Best effort: a damaged EVENT_DESC leaves the derived names in place;
 * perf_features reports the damage when asked for the section.  False only
 * when a copy could not be made (out of memory). */
static bool names_from_event_desc(pv_file *f)
{
    const uint8_t *bytes;
    uint64_t size, offset;
    pv_error ignored;
    if (!pv_file_has_feature(f, FEATURE_EVENT_DESC) ||
        pv_file_feature_bytes(f, FEATURE_EVENT_DESC, &bytes, &size, &offset, &ignored))
        return true;
    pv_event_desc_iter it;
    pv_event_desc_entry e;
    if (pv_event_desc_start(&it, f, bytes, size, offset, &ignored))
        return true;
    for (uint32_t i = 0; pv_event_desc_next(&it, &e, &ignored) == 1; i++) {
        const char *name = e.name;
        uint64_t len = e.name_len;
        uint32_t nr_ids = e.nr_ids;
        uint64_t first_id = nr_ids > 0 ? pv_event_desc_id(&e, 0) : 0;
        int index = nr_ids > 0 ? pv_file_attr_for_id(f, first_id) : -1;
        if (index < 0 && i < f->nr_attrs)
            index = (int)i;
        if (index < 0 || f->attrs[index].name || len == 0)
            continue;
        f->attrs[index].name = copy_name(name, len);
        if (!f->attrs[index].name)
            return false;
    }
    return true;
}

/* Every attr's name, or -1 when an allocation failed: then no name is
 * kept, so that no row ever shows a NULL event in place of a name. */
int pv_file_load_event_names(pv_file *f, pv_error *err)
{
    if (f->names_loaded)
        return 0;
    bool failed = !names_from_event_desc(f);
    pv_strbuf b = {0};
    for (size_t i = 0; i < f->nr_attrs && !failed; i++) {
        if (f->attrs[i].name)
            continue;
        pv_strbuf_reset(&b);
        pv_attr_default_name(&f->attrs[i], &b);
        f->attrs[i].name = b.failed ? NULL : copy_name(pv_strbuf_text(&b), b.len);
        failed = f->attrs[i].name == NULL;
    }
    pv_strbuf_free(&b);
    if (failed) {
        for (size_t i = 0; i < f->nr_attrs; i++) {
            free(f->attrs[i].name);
            f->attrs[i].name = NULL;
        }
        return pv_error_set_kind(err, PV_ERROR_NOMEM, "%s: out of memory reading the event names", f->path);
    }
    f->names_loaded = true;
    return 0;
}

const char *pv_file_event_name(pv_file *f, size_t attr_index)
{
    if (attr_index >= f->nr_attrs)
        return NULL;
    pv_error ignored;
    /* a file made by other means than stream/file_open.c's opening */
    if (!f->names_loaded && pv_file_load_event_names(f, &ignored))
        return NULL;
    return f->attrs[attr_index].name;
}
