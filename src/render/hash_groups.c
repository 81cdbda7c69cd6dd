#include "render/hash_groups.h"
#include "base/pv_array.h"
#include "base/pv_alloc.h"
#include "base/byte_hash.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct pv_stored_key {
    pv_value_type type;
    int64_t i;
    double r;
    uint64_t offset;        /* TEXT, BLOB: in bytes */
    size_t len;
};

void pv_hash_groups_init(pv_hash_groups *g, unsigned nkeys)
{
    memset(g, 0, sizeof *g);
    g->nkeys = nkeys;
}

void pv_hash_groups_free(pv_hash_groups *g)
{
    free(g->groups);
    free(g->keys);
    free(g->bytes);
    free(g->slots);
    memset(g, 0, sizeof *g);
}

/* A real that is a whole number an int64 holds, as that integer. */
static bool real_as_int(double r, int64_t *out)
{
    if (!(r >= -9223372036854775808.0 && r < 9223372036854775808.0) || r != floor(r))
        return false;
    *out = (int64_t)r;
    return true;
}

static uint64_t hash_key(uint64_t h, const pv_value *v)
{
    int64_t i;
    switch (v->type) {
    case PV_VALUE_INT:
        return pv_hash_bytes(h ^ 1, &v->i, sizeof v->i);
    case PV_VALUE_REAL:
        /* equal numbers hash alike whatever their type */
        if (real_as_int(v->r, &i))
            return pv_hash_bytes(h ^ 1, &i, sizeof i);
        return pv_hash_bytes(h ^ 2, &v->r, sizeof v->r);
    case PV_VALUE_TEXT:
        return pv_hash_bytes(h ^ 3, v->bytes, v->len);
    case PV_VALUE_BLOB:
        return pv_hash_bytes(h ^ 4, v->bytes, v->len);
    default:
        return pv_hash_bytes(h, "", 1);
    }
}

static bool is_number(pv_value_type t)
{
    return t == PV_VALUE_INT || t == PV_VALUE_REAL;
}

static bool same_key(const pv_value *a, const pv_value *b)
{
    if (is_number(a->type) && is_number(b->type)) {
        if (a->type == PV_VALUE_INT && b->type == PV_VALUE_INT)
            return a->i == b->i;
        if (a->type == PV_VALUE_REAL && b->type == PV_VALUE_REAL)
            return a->r == b->r;
        const pv_value *integer = a->type == PV_VALUE_INT ? a : b;
        const pv_value *real = a->type == PV_VALUE_INT ? b : a;
        int64_t i;
        return real_as_int(real->r, &i) && i == integer->i;
    }
    if (a->type != b->type)
        return false;
    if (a->type == PV_VALUE_TEXT || a->type == PV_VALUE_BLOB)
        return a->len == b->len && (a->len == 0 || memcmp(a->bytes, b->bytes, a->len) == 0);
    return true;    /* NULL */
}

pv_value pv_hash_groups_key(const pv_hash_groups *g, size_t i, unsigned k)
{
    const pv_stored_key *s = &g->keys[g->groups[i].first_key + k];
    pv_value v = { s->type, s->i, s->r, NULL, s->len };
    if (s->type == PV_VALUE_TEXT || s->type == PV_VALUE_BLOB)
        v.bytes = g->bytes + s->offset;
    return v;
}

static bool group_has_keys(const pv_hash_groups *g, size_t i, const pv_value *keys)
{
    for (unsigned k = 0; k < g->nkeys; k++) {
        pv_value stored = pv_hash_groups_key(g, i, k);
        if (!same_key(&stored, &keys[k]))
            return false;
    }
    return true;
}

static bool rehash(pv_hash_groups *g, size_t nr_slots)
{
    uint32_t *slots = pv_calloc(nr_slots, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i < g->nr_groups; i++) {
        uint64_t h = 14695981039346656037u;
        for (unsigned k = 0; k < g->nkeys; k++) {
            pv_value v = pv_hash_groups_key(g, i, k);
            h = hash_key(h, &v);
        }
        size_t j = h & (nr_slots - 1);
        while (slots[j])
            j = (j + 1) & (nr_slots - 1);
        slots[j] = (uint32_t)(i + 1);
    }
    free(g->slots);
    g->slots = slots;
    g->nr_slots = nr_slots;
    return true;
}

static bool store_key(pv_hash_groups *g, size_t at, const pv_value *v)
{
    pv_stored_key *s = &g->keys[at];
    memset(s, 0, sizeof *s);
    s->type = v->type;
    s->i = v->i;
    s->r = v->r;
    if (v->type == PV_VALUE_TEXT || v->type == PV_VALUE_BLOB) {
        if (!pv_array_grow((void **)&g->bytes, &g->cap_bytes, g->nr_bytes + v->len + 1, 1))
            return false;
        if (v->len)
            memcpy(g->bytes + g->nr_bytes, v->bytes, v->len);
        s->offset = g->nr_bytes;
        s->len = v->len;
        g->nr_bytes += v->len;
    }
    return true;
}

/* The group of keys, made if new; NULL when out of memory. */
static pv_group *group_of(pv_hash_groups *g, const pv_value *keys)
{
    uint64_t h = 14695981039346656037u;
    for (unsigned k = 0; k < g->nkeys; k++)
        h = hash_key(h, &keys[k]);
    if ((g->nr_groups + 1) * 2 > g->nr_slots &&
        !rehash(g, g->nr_slots ? g->nr_slots * 2 : 256))
        return NULL;
    size_t j = h & (g->nr_slots - 1);
    while (g->slots[j]) {
        size_t i = g->slots[j] - 1;
        if (group_has_keys(g, i, keys))
            return &g->groups[i];
        j = (j + 1) & (g->nr_slots - 1);
    }
    size_t first_key = g->nr_groups * g->nkeys;
    if (g->nr_groups >= UINT32_MAX - 1 ||
        !pv_array_grow((void **)&g->groups, &g->cap_groups, g->nr_groups + 1, sizeof *g->groups) ||
        !pv_array_grow((void **)&g->keys, &g->cap_keys, first_key + g->nkeys + 1, sizeof *g->keys))
        return NULL;
    for (unsigned k = 0; k < g->nkeys; k++)
        if (!store_key(g, first_key + k, &keys[k]))
            return NULL;
    pv_group *grp = &g->groups[g->nr_groups];
    memset(grp, 0, sizeof *grp);
    grp->first_key = first_key;
    g->slots[j] = (uint32_t)(++g->nr_groups);
    return grp;
}

pv_group_status pv_hash_groups_add(pv_hash_groups *g, const pv_value *keys, const pv_value *value)
{
    pv_group *grp = group_of(g, keys);
    if (!grp)
        return PV_GROUP_NO_MEMORY;
    grp->rows++;
    if (value->type == PV_VALUE_INT) {
        grp->has_sum = true;
        grp->real_total += (double)value->i;
        if (!grp->real_sum && __builtin_add_overflow(grp->int_sum, value->i, &grp->int_sum))
            return PV_GROUP_OVERFLOW;
    } else if (value->type == PV_VALUE_REAL) {
        grp->has_sum = true;
        grp->real_sum = true;
        grp->real_total += value->r;
    }
    return PV_GROUP_OK;
}
