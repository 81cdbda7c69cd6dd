#include "render/folded_stack.h"
#include "base/pv_alloc.h"

#include <stdlib.h>

bool pv_folded_stack_add(pv_folded_stack *s, int64_t depth, const char *name, size_t len)
{
    if (s->count == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 32;
        pv_folded_frame *frames = pv_realloc(s->frames, cap * sizeof *frames);
        if (!frames)
            return false;
        s->frames = frames;
        s->cap = cap;
    }
    size_t off = s->names.len;
    pv_strbuf_append(&s->names, name, len);
    if (s->names.failed)
        return false;
    s->frames[s->count] = (pv_folded_frame){
        .depth = depth, .order = s->count, .name_off = off, .name_len = len};
    s->count++;
    return true;
}

static int deepest_first(const void *a, const void *b)
{
    const pv_folded_frame *x = a, *y = b;
    if (x->depth != y->depth)
        return x->depth < y->depth ? 1 : -1;
    return (x->order > y->order) - (x->order < y->order);
}

bool pv_folded_stack_join(pv_folded_stack *s, pv_strbuf *out)
{
    qsort(s->frames, s->count, sizeof *s->frames, deepest_first);
    for (size_t i = 0; i < s->count; i++) {
        if (i)
            pv_strbuf_append(out, ";", 1);
        const char *name = s->names.text + s->frames[i].name_off;
        size_t len = s->frames[i].name_len, start = 0;
        for (size_t k = 0; k < len; k++) {
            if (name[k] == ';' || name[k] == '\n' || name[k] == '\r') {
                pv_strbuf_append(out, name + start, k - start);
                pv_strbuf_append(out, ":", 1);
                start = k + 1;
            }
        }
        pv_strbuf_append(out, name + start, len - start);
    }
    return !out->failed;
}

void pv_folded_stack_free(pv_folded_stack *s)
{
    free(s->frames);
    pv_strbuf_free(&s->names);
    *s = (pv_folded_stack){0};
}

bool pv_folded_frame_name(pv_strbuf *out, const char *sym, size_t sym_len, const char *dso,
                          size_t dso_len, bool has_ip, uint64_t ip)
{
    if (sym) {
        pv_strbuf_append(out, sym, sym_len);
    } else if (dso && dso_len > 0 && dso[0] == '[') {
        pv_strbuf_append(out, dso, dso_len);
    } else if (dso) {
        size_t base = dso_len;
        while (base > 0 && dso[base - 1] != '/')
            base--;
        pv_strbuf_puts(out, "[");
        pv_strbuf_append(out, dso + base, dso_len - base);
        pv_strbuf_puts(out, "]");
    } else if (has_ip) {
        pv_strbuf_printf(out, "0x%llx", (unsigned long long)ip);
    } else {
        return false;
    }
    return !out->failed;
}
