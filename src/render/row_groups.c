#include "render/row_groups.h"
#include "base/byte_hash.h"
#include "base/pv_array.h"
#include "base/pv_alloc.h"

#include <stdlib.h>
#include <string.h>

void pv_row_groups_init(pv_row_groups *g, unsigned nkeys, unsigned ncells, const bool *desc)
{
    memset(g, 0, sizeof *g);
    g->nkeys = nkeys;
    g->ncells = ncells;
    for (unsigned k = 0; k < nkeys && k < PV_ROW_GROUPS_MAX_CELLS; k++)
        g->desc[k] = desc ? desc[k] : false;
}

void pv_row_groups_free(pv_row_groups *g)
{
    free(g->cells);
    free(g->types);
    free(g->counts);
    free(g->first_ids);
    free(g->entry_group);
    free(g->entry_slots);
    free(g->group_entry);
    free(g->group_slots);
    free(g->bytes);
    free(g->text_offsets);
    free(g->text_lens);
    free(g->text_slots);
    free(g->recent);
    free(g->order);
    memset(g, 0, sizeof *g);
}

/* Doubles an open-addressing table of indexes + 1 when it is half full,
 * reinserting with hash_of(index). */
static int grow_slots(uint32_t **slots, size_t *nr_slots, size_t used,
                      uint64_t (*hash_of)(const pv_row_groups *, uint32_t), const pv_row_groups *g)
{
    if (*nr_slots && used < *nr_slots / 2)
        return 0;
    size_t n = *nr_slots ? *nr_slots * 2 : 1024;
    uint32_t *s = pv_calloc(n, sizeof *s);
    if (!s)
        return -1;
    for (size_t i = 0; i < *nr_slots; i++) {
        uint32_t v = (*slots)[i];
        if (!v)
            continue;
        size_t j = hash_of(g, v - 1) & (n - 1);
        while (s[j])
            j = (j + 1) & (n - 1);
        s[j] = v;
    }
    free(*slots);
    *slots = s;
    *nr_slots = n;
    return 0;
}

static uint64_t text_hash(const pv_row_groups *g, uint32_t t)
{
    return pv_hash_bytes(0, g->bytes + g->text_offsets[t], g->text_lens[t]);
}

#define RECENT_TEXTS 4096

/* The id of text p[0..len), added the first time. */
static int intern(pv_row_groups *g, const void *p, size_t len, int64_t *id)
{
    if (len > UINT32_MAX || g->nr_texts >= UINT32_MAX - 1)
        return -1;
    if (!g->recent && !(g->recent = pv_calloc(RECENT_TEXTS, sizeof *g->recent)))
        return -1;
    size_t r = ((uintptr_t)p >> 3) % RECENT_TEXTS;
    if (g->recent[r].at == p) {
        uint32_t t = g->recent[r].text;
        if (g->text_lens[t] == len && memcmp(g->bytes + g->text_offsets[t], p, len) == 0) {
            *id = t;
            return 0;
        }
    }
    if (grow_slots(&g->text_slots, &g->nr_text_slots, g->nr_texts, text_hash, g))
        return -1;
    size_t mask = g->nr_text_slots - 1;
    size_t j = pv_hash_bytes(0, p, len) & mask;
    for (; g->text_slots[j]; j = (j + 1) & mask) {
        uint32_t t = g->text_slots[j] - 1;
        if (g->text_lens[t] == len && memcmp(g->bytes + g->text_offsets[t], p, len) == 0) {
            *id = t;
            g->recent[r].at = p;
            g->recent[r].text = t;
            return 0;
        }
    }
    if (g->cap_bytes - g->nr_bytes < len + 1 &&
        !pv_array_grow((void **)&g->bytes, &g->cap_bytes, g->nr_bytes + len + 1, 1))
        return -1;
    if (!pv_array_grow((void **)&g->text_offsets, &g->cap_texts, g->nr_texts + 1,
                       sizeof *g->text_offsets))
        return -1;
    /* text_lens grows with text_offsets: same capacity */
    uint32_t *lens = pv_realloc(g->text_lens, g->cap_texts * sizeof *lens);
    if (!lens)
        return -1;
    g->text_lens = lens;
    memcpy(g->bytes + g->nr_bytes, p, len);
    g->bytes[g->nr_bytes + len] = 0;        /* a C string: handed on with length -1 */
    g->text_offsets[g->nr_texts] = g->nr_bytes;
    g->text_lens[g->nr_texts] = (uint32_t)len;
    g->nr_bytes += len + 1;
    *id = (int64_t)g->nr_texts;
    g->recent[r].at = p;
    g->recent[r].text = (uint32_t)g->nr_texts;
    g->text_slots[j] = (uint32_t)++g->nr_texts;
    return 0;
}

static uint64_t cells_hash(const int64_t *cells, const uint8_t *types, unsigned n)
{
    return pv_hash_bytes(pv_hash_bytes(0, cells, n * sizeof *cells), types, n);
}

static uint64_t entry_hash(const pv_row_groups *g, uint32_t e)
{
    return cells_hash(g->cells + (size_t)e * g->ncells, g->types + (size_t)e * g->ncells, g->ncells);
}

static uint64_t group_hash(const pv_row_groups *g, uint32_t grp)
{
    uint32_t e = g->group_entry[grp];
    return cells_hash(g->cells + (size_t)e * g->ncells, g->types + (size_t)e * g->ncells, g->nkeys);
}

static bool same_cells(const pv_row_groups *g, uint32_t e, const int64_t *cells,
                       const uint8_t *types, unsigned n)
{
    return memcmp(g->cells + (size_t)e * g->ncells, cells, n * sizeof *cells) == 0 &&
           memcmp(g->types + (size_t)e * g->ncells, types, n) == 0;
}

static int new_entry(pv_row_groups *g, const int64_t *cells, const uint8_t *types, int64_t id)
{
    size_t need = g->nr_entries + 1, cap = g->cap_entries;
    if (g->nr_entries >= UINT32_MAX - 1)
        return -1;
    if (cap < need) {
        size_t c = cap;
        if (!pv_array_grow((void **)&g->counts, &c, need, sizeof *g->counts))
            return -1;
        int64_t *ids = pv_realloc(g->first_ids, c * sizeof *ids);
        if (ids) g->first_ids = ids;
        uint32_t *eg = ids ? pv_realloc(g->entry_group, c * sizeof *eg) : NULL;
        if (eg) g->entry_group = eg;
        int64_t *cl = eg ? pv_realloc(g->cells, c * g->ncells * sizeof *cl + 1) : NULL;
        if (cl) g->cells = cl;
        uint8_t *ty = cl ? pv_realloc(g->types, c * g->ncells + 1) : NULL;
        if (ty) g->types = ty;
        if (!ty)
            return -1;      /* the arrays that grew keep their old contents */
        g->cap_entries = c;
    }
    size_t e = g->nr_entries++;
    memcpy(g->cells + e * g->ncells, cells, g->ncells * sizeof *cells);
    memcpy(g->types + e * g->ncells, types, g->ncells);
    g->counts[e] = 1;
    g->first_ids[e] = id;
    return 0;
}

int pv_row_groups_add(pv_row_groups *g, const pv_value *values, int64_t id)
{
    int64_t cells[PV_ROW_GROUPS_MAX_CELLS];
    uint8_t types[PV_ROW_GROUPS_MAX_CELLS];
    if (g->ncells > PV_ROW_GROUPS_MAX_CELLS)
        return -1;
    for (unsigned c = 0; c < g->ncells; c++) {
        types[c] = (uint8_t)values[c].type;
        switch (values[c].type) {
        case PV_VALUE_NULL: cells[c] = 0; break;
        case PV_VALUE_INT: cells[c] = values[c].i; break;
        case PV_VALUE_TEXT:
            if (intern(g, values[c].bytes, values[c].len, &cells[c]))
                return -1;
            break;
        default:
            return -1;
        }
    }
    g->rows++;
    if (grow_slots(&g->entry_slots, &g->nr_entry_slots, g->nr_entries, entry_hash, g))
        return -1;
    size_t mask = g->nr_entry_slots - 1;
    size_t j = cells_hash(cells, types, g->ncells) & mask;
    for (; g->entry_slots[j]; j = (j + 1) & mask) {
        uint32_t e = g->entry_slots[j] - 1;
        if (same_cells(g, e, cells, types, g->ncells)) {
            g->counts[e]++;
            return 0;
        }
    }
    if (new_entry(g, cells, types, id))
        return -1;
    uint32_t e = (uint32_t)(g->nr_entries - 1);
    g->entry_slots[j] = e + 1;
    /* its group: found by the key cells, or new */
    if (grow_slots(&g->group_slots, &g->nr_group_slots, g->nr_groups, group_hash, g))
        return -1;
    mask = g->nr_group_slots - 1;
    j = cells_hash(cells, types, g->nkeys) & mask;
    for (; g->group_slots[j]; j = (j + 1) & mask) {
        uint32_t grp = g->group_slots[j] - 1;
        if (same_cells(g, g->group_entry[grp], cells, types, g->nkeys)) {
            g->entry_group[e] = grp;
            return 0;
        }
    }
    if (!pv_array_grow((void **)&g->group_entry, &g->cap_groups, g->nr_groups + 1,
                       sizeof *g->group_entry))
        return -1;
    g->group_entry[g->nr_groups] = e;
    g->entry_group[e] = (uint32_t)g->nr_groups;
    g->group_slots[j] = (uint32_t)++g->nr_groups;
    return 0;
}

pv_value pv_row_groups_cell(const pv_row_groups *g, size_t k, unsigned c)
{
    size_t at = (size_t)g->order[k] * g->ncells + c;
    pv_value v = { (pv_value_type)g->types[at], 0, 0, NULL, 0 };
    if (v.type == PV_VALUE_INT)
        v.i = g->cells[at];
    else if (v.type == PV_VALUE_TEXT) {
        size_t t = (size_t)g->cells[at];
        v.bytes = g->bytes + g->text_offsets[t];
        v.len = g->text_lens[t];
    }
    return v;
}

uint64_t pv_row_groups_count(const pv_row_groups *g, size_t k)
{
    return g->counts[g->order[k]];
}

int64_t pv_row_groups_id(const pv_row_groups *g, size_t k)
{
    return g->first_ids[g->order[k]];
}

/* SQL's order under the BINARY collation: NULL < INTEGER < TEXT; text by bytes, then length. */
static int compare_cell(const pv_row_groups *g, uint8_t ta, int64_t a, uint8_t tb, int64_t b)
{
    int rank_a = ta == PV_VALUE_NULL ? 0 : ta == PV_VALUE_INT ? 1 : 2;
    int rank_b = tb == PV_VALUE_NULL ? 0 : tb == PV_VALUE_INT ? 1 : 2;
    if (rank_a != rank_b)
        return rank_a < rank_b ? -1 : 1;
    if (rank_a == 1)
        return a < b ? -1 : a > b;
    if (rank_a == 2 && a != b) {
        uint32_t la = g->text_lens[a], lb = g->text_lens[b];
        int c = memcmp(g->bytes + g->text_offsets[a], g->bytes + g->text_offsets[b], la < lb ? la : lb);
        return c ? c : la < lb ? -1 : la > lb;
    }
    return 0;
}

static int compare_groups(const void *pa, const void *pb, void *context)
{
    const pv_row_groups *g = context;
    size_t ea = (size_t)g->group_entry[*(const uint32_t *)pa] * g->ncells;
    size_t eb = (size_t)g->group_entry[*(const uint32_t *)pb] * g->ncells;
    for (unsigned k = 0; k < g->nkeys; k++) {
        int c = compare_cell(g, g->types[ea + k], g->cells[ea + k], g->types[eb + k], g->cells[eb + k]);
        if (c)
            return g->desc[k] ? -c : c;
    }
    return 0;
}

int pv_row_groups_finish(pv_row_groups *g)
{
    size_t n = g->nr_groups;
    uint32_t *groups = pv_malloc((n ? n : 1) * sizeof *groups);
    uint64_t *start = pv_calloc(n + 1, sizeof *start);
    g->order = pv_malloc((g->nr_entries ? g->nr_entries : 1) * sizeof *g->order);
    if (!groups || !start || !g->order) {
        free(groups);
        free(start);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        groups[i] = (uint32_t)i;
    qsort_r(groups, n, sizeof *groups, compare_groups, g);
    /* a counting sort of the entries by their group's rank, stable */
    uint32_t *rank = pv_malloc((n ? n : 1) * sizeof *rank);
    if (!rank) {
        free(groups);
        free(start);
        return -1;
    }
    for (size_t r = 0; r < n; r++)
        rank[groups[r]] = (uint32_t)r;
    for (size_t e = 0; e < g->nr_entries; e++)
        start[rank[g->entry_group[e]] + 1]++;
    for (size_t r = 0; r < n; r++)
        start[r + 1] += start[r];
    for (size_t e = 0; e < g->nr_entries; e++)
        g->order[start[rank[g->entry_group[e]]]++] = (uint32_t)e;
    free(rank);
    free(groups);
    free(start);
    /* the tables that found entries and groups are not needed any more */
    free(g->entry_slots);
    free(g->group_slots);
    free(g->text_slots);
    free(g->recent);
    g->recent = NULL;
    g->entry_slots = g->group_slots = g->text_slots = NULL;
    g->nr_entry_slots = g->nr_group_slots = g->nr_text_slots = 0;
    return 0;
}

size_t pv_row_groups_bytes(const pv_row_groups *g)
{
    size_t per_entry = g->ncells * (sizeof *g->cells + 1) + sizeof *g->counts +
                       sizeof *g->first_ids + sizeof *g->entry_group + sizeof *g->order;
    return g->cap_entries * per_entry + g->cap_bytes + g->cap_texts * 12 +
           (g->nr_entry_slots + g->nr_group_slots + g->nr_text_slots) * 4 + g->cap_groups * 4;
}
