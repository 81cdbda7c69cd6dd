/*
 * perf_profile: the whole file's profile, one row per event and function.
 *
 *   SELECT dso, sym, period FROM perf_profile('perf.data') ORDER BY period DESC;
 *
 * samples/period: the samples whose ip is in the function (perf report
 * --no-children); children_samples/children_period: the samples with the
 * function on the stack, each sample once (perf report --children).  An
 * unresolved address is its own row: sym NULL, addr the address (in the
 * dso, or the ip when no map holds it).  Counted in one pass into a hash
 * table (src/analysis/profile.c): the same numbers as GROUP BY over perf_samples
 * and perf_callchains, without sorting every sample and frame.  The
 * callchains are walked only when a children column is read.  inlined: sym
 * is a function inlined at the frames (--call-graph dwarf, from the debug
 * info), perf's "sym (inlined)" row.  name: the row as perf report names
 * it (sym, "sym (inlined)", or the address as 0x%016x); event_period: the
 * event's total period, the denominator of perf report's percentages.  A
 * report needs no window function or printf over its rows, which cost more
 * than the profile itself where unresolved frames give 200k rows.
 * dso_name: the dso as the ready queries show it (the file name; "[JIT]
 * tid PID" for /tmp/perf-PID.map; "[unknown]" without a map).
 *
 * The rows come sorted (a qsort in first()) when the query's ORDER BY is
 * one of profile_orders, so SQLite sorts nothing: the ready queries' orders.
 */
#include <stdlib.h>
#include <string.h>

#include "base/pv_env.h"
#include "format/event_names.h"
#include "analysis/profile.h"
#include "analysis/profile_parallel.h"
#include "symbol_paths.h"
#include "vtab_common.h"

#define PROFILE_COLUMNS(X) \
    X(EVENT, event, TEXT) \
    X(DSO, dso, TEXT) \
    X(SYM, sym, TEXT) \
    X(ADDR, addr, INTEGER) \
    X(SAMPLES, samples, INTEGER) \
    X(PERIOD, period, INTEGER) \
    X(CHILDREN_SAMPLES, children_samples, INTEGER) \
    X(CHILDREN_PERIOD, children_period, INTEGER) \
    X(INLINED, inlined, INTEGER) \
    X(NAME, name, TEXT) \
    X(EVENT_PERIOD, event_period, INTEGER) \
    X(DSO_NAME, dso_name, TEXT)
enum { PROFILE_COLUMNS(PV_COLUMN_ENUM) };

/* sql/inclusive_profile.sql's and sql/flat_profile.sql's ORDER BY, and
 * their first two keys or more. */
static const PvRowOrder profile_orders[] = {
    { 5, 2, { { COL_EVENT, false }, { COL_CHILDREN_PERIOD, true }, { COL_NAME, false },
              { COL_DSO_NAME, false }, { COL_DSO, false } } },
    { 5, 2, { { COL_EVENT, false }, { COL_PERIOD, true }, { COL_DSO_NAME, false },
              { COL_NAME, false }, { COL_DSO, false } } },
};

typedef struct ProfileState {
    pv_symbolizer *symbolizer;
    pv_profile profile;
    size_t at;
} ProfileState;

static void sort_rows(pv_profile *p, pv_file *file, const PvRowOrder *order);

static int profile_first(PvCursor *cur, pv_error *err)
{
    ProfileState *st = cur->state;
    bool children = pv_column_used(cur, COL_CHILDREN_SAMPLES) ||
                    pv_column_used(cur, COL_CHILDREN_PERIOD);
    /* on the connection's threads (perf_threads) where the file splits,
     * else on this one: the same rows */
    pv_symbol_paths paths = { pv_cache_sysroot(cur->cache), pv_cache_symdir(cur->cache) };
    int split = pv_profile_build_parallel(cur->file, &paths, pv_cache_threads(cur->cache),
                                          children, &st->profile, err);
    if (split < 0)
        return -1;
    pv_cache_count_profile(cur->cache, split == 0);
    if (split > 0 && (pv_vtab_symbolizer(cur, &st->symbolizer, err) ||
                      pv_profile_build(cur->file, st->symbolizer, children, &st->profile, err)))
        return -1;
    if (cur->row_order > 0 && cur->row_order <= (sizeof profile_orders / sizeof profile_orders[0]))
        sort_rows(&st->profile, cur->file, &profile_orders[cur->row_order - 1]);
    st->at = 0;
    cur->rowid = 0;
    cur->eof = st->profile.nr_rows == 0;
    return 0;
}

static int profile_next(PvCursor *cur, pv_error *err)
{
    (void)err;
    ProfileState *st = cur->state;
    st->at++;
    cur->rowid = (sqlite3_int64)st->at;
    cur->eof = st->at >= st->profile.nr_rows;
    return 0;
}

static void profile_reset(PvCursor *cur)
{
    ProfileState *st = cur->state;
    pv_profile_free(&st->profile);
    pv_symbolizer_free(st->symbolizer);
    st->symbolizer = NULL;
}

/* A text value as SQLite compares it, without building it: head then
 * body; null: SQL NULL. */
typedef struct TextView {
    const char *head, *body;
    size_t head_len, body_len;
    bool null;
} TextView;

enum { ADDR_TEXT_SIZE = 24 };

static TextView text_view(const char *text)
{
    return text ? (TextView){ text, "", strlen(text), 0, false } : (TextView){ .null = true };
}

/* name: what coalesce(sym || CASE WHEN inlined THEN ' (inlined)' ELSE ''
 * END, printf('0x%016x', addr)) gives; buf holds the address's text. */
static TextView name_view(const pv_profile_row *r, char buf[ADDR_TEXT_SIZE])
{
    if (!r->sym) {
        /* printf's "0x%016" PRIx64, without printf's cost: 200k rows of
         * unresolved frames on a many-process file */
        static const char digits[] = "0123456789abcdef";
        uint64_t a = r->addr;
        buf[0] = '0';
        buf[1] = 'x';
        for (int i = 17; i >= 2; i--, a >>= 4)
            buf[i] = digits[a & 15];
        buf[18] = 0;
        return (TextView){ buf, "", 18, 0, false };
    }
    TextView v = text_view(r->sym);
    if (r->inlined) {
        v.body = " (inlined)";
        v.body_len = strlen(v.body);
    }
    return v;
}

/* dso_name: what the ready queries' CASE WHEN dso GLOB
 * '/tmp/perf-[0-9]*.map' THEN '[JIT] tid ' || substr(dso, 11, length(dso) - 14)
 * ELSE coalesce(replace(dso, rtrim(dso, replace(dso, '/', '')), ''),
 * '[unknown]') END gives: the text after the last '/'. */
static TextView dso_name_view(const char *dso)
{
    if (!dso)
        return text_view("[unknown]");
    size_t len = strlen(dso);
    if (len >= 15 && memcmp(dso, "/tmp/perf-", 10) == 0 && dso[10] >= '0' && dso[10] <= '9' &&
        memcmp(dso + len - 4, ".map", 4) == 0)
        return (TextView){ "[JIT] tid ", dso + 10, 10, len - 14, false };
    const char *slash = strrchr(dso, '/');
    return text_view(slash ? slash + 1 : dso);
}

static void view_at(const TextView *v, size_t i, const char **at, size_t *left)
{
    if (i < v->head_len) {
        *at = v->head + i;
        *left = v->head_len - i;
    } else {
        *at = v->body + (i - v->head_len);
        *left = v->body_len - (i - v->head_len);
    }
}

/* As SQLite orders text by BINARY: NULL first, then memcmp, then the
 * shorter first. */
static int compare_views(const TextView *x, const TextView *y)
{
    if (x->null || y->null)
        return (int)y->null - (int)x->null;
    size_t x_len = x->head_len + x->body_len, y_len = y->head_len + y->body_len;
    size_t n = x_len < y_len ? x_len : y_len;
    for (size_t i = 0; i < n;) {
        const char *xp, *yp;
        size_t x_left, y_left;
        view_at(x, i, &xp, &x_left);
        view_at(y, i, &yp, &y_left);
        size_t m = x_left < y_left ? x_left : y_left;
        if (m > n - i)
            m = n - i;
        int c = memcmp(xp, yp, m);
        if (c)
            return c;
        i += m;
    }
    return x_len < y_len ? -1 : x_len > y_len;
}

/* Handed over as NUL-terminated (length -1): SQLite then copies the
 * terminator too, where a text given by its length is copied again (grown
 * by one byte) the first time it is read as C text. */
static void result_view(sqlite3_context *ctx, const TextView *v)
{
    if (v->null)
        return;
    if (!v->body_len) {
        /* one piece: a C text or the address's buffer, ending at head_len */
        sqlite3_result_text(ctx, v->head, -1, SQLITE_TRANSIENT);
        return;
    }
    char *joined = sqlite3_malloc64(v->head_len + v->body_len + 1);
    if (!joined) {
        sqlite3_result_error_nomem(ctx);
        return;
    }
    memcpy(joined, v->head, v->head_len);
    memcpy(joined + v->head_len, v->body, v->body_len);
    joined[v->head_len + v->body_len] = 0;
    sqlite3_result_text(ctx, joined, -1, sqlite3_free);
}

/* As SQLite orders integers (the columns give the counts as signed). */
static int compare_int(uint64_t x, uint64_t y)
{
    int64_t a = (int64_t)x, b = (int64_t)y;
    return a < b ? -1 : a > b;
}

static int compare_text(const char *x, const char *y)
{
    if (x == y)
        return 0;
    TextView a = text_view(x), b = text_view(y);
    return compare_views(&a, &b);
}

typedef struct SortContext {
    pv_file *file;
    const PvRowOrder *order;
} SortContext;

static int compare_key(const pv_profile_row *x, const pv_profile_row *y, int column,
                       pv_file *file)
{
    char x_buf[ADDR_TEXT_SIZE], y_buf[ADDR_TEXT_SIZE];
    TextView a, b;
    switch (column) {
    case COL_EVENT:
        if (x->attr_index == y->attr_index)
            return 0;
        return compare_text(pv_file_event_name(file, (size_t)x->attr_index),
                            pv_file_event_name(file, (size_t)y->attr_index));
    case COL_PERIOD: return compare_int(x->self_period, y->self_period);
    case COL_CHILDREN_PERIOD: return compare_int(x->period, y->period);
    case COL_DSO: return compare_text(x->dso, y->dso);
    case COL_NAME:
        /* two addresses: fixed-width hex orders as the numbers do */
        if (!x->sym && !y->sym)
            return x->addr < y->addr ? -1 : x->addr > y->addr;
        if (x->sym == y->sym && x->inlined == y->inlined)
            return 0;
        a = name_view(x, x_buf);
        b = name_view(y, y_buf);
        return compare_views(&a, &b);
    case COL_DSO_NAME:
        if (x->dso == y->dso)
            return 0;
        a = dso_name_view(x->dso);
        b = dso_name_view(y->dso);
        return compare_views(&a, &b);
    default: return 0;
    }
}

/* The order's keys from the first'th, then the row's identity and
 * counts: a total order, so equal keys come in one order whatever the
 * hash table's. */
static int compare_rows_from(const pv_profile_row *x, const pv_profile_row *y,
                             const SortContext *sc, unsigned first)
{
    for (unsigned i = first; i < sc->order->nr_keys; i++) {
        int c = compare_key(x, y, sc->order->keys[i].column, sc->file);
        if (c)
            return sc->order->keys[i].desc ? -c : c;
    }
    int c = x->attr_index < y->attr_index ? -1 : x->attr_index > y->attr_index;
    if (!c) c = compare_text(x->dso, y->dso);
    if (!c) c = compare_text(x->sym, y->sym);
    if (!c) c = (int)x->inlined - (int)y->inlined;
    if (!c) c = x->addr < y->addr ? -1 : x->addr > y->addr;
    if (!c) c = compare_int(x->self_period, y->self_period);
    if (!c) c = compare_int(x->period, y->period);
    if (!c) c = compare_int(x->self_samples, y->self_samples);
    if (!c) c = compare_int(x->samples, y->samples);
    return c;
}

static int compare_rows(const void *xp, const void *yp, void *arg)
{
    return compare_rows_from(xp, yp, arg, 0);
}

/* ---- the sort by keys made once per row (compare_rows' order) ---- */

/* What a row's first keys are, made before the sort: the event's rank
 * among the names, the count, and each text's first 16 bytes (two
 * big-endian words, zeros past its end: as no text holds a zero byte, two
 * that differ there order as SQLite orders the texts).  Keys after them,
 * and ties, are compare_rows_from's. */
enum { PREFIX_KEYS = 2, PREFIX_WORDS = 2 };
typedef struct SortEntry {
    const pv_profile_row *row;
    uint64_t count;                 /* the count key, as a signed order: sign bit flipped */
    uint64_t prefix[PREFIX_KEYS][PREFIX_WORDS];
    const char *text[PREFIX_KEYS];  /* the whole text; NULL: compare_key's to make */
    size_t len[PREFIX_KEYS];
    uint32_t event_rank;
} SortEntry;

typedef struct EntryContext {
    SortContext sc;
    unsigned nr_keyed;              /* the order's keys the entries hold */
    int kind[PV_ROW_ORDER_MAX_KEYS];    /* per key: 0 event, 1 count, 2.. prefix 0.. */
} EntryContext;

/* The 8 bytes of v from byte from on, big-endian, zeros past its end. */
static uint64_t view_prefix(const TextView *v, size_t from)
{
    uint64_t prefix = 0;
    if (v->head_len >= 8 && from <= v->head_len - 8) {
        /* within head: its 8 bytes at once */
        unsigned char bytes[8];
        memcpy(bytes, v->head + from, 8);
        for (int i = 0; i < 8; i++)
            prefix = prefix << 8 | bytes[i];
        return prefix;
    }
    for (size_t i = from; i < from + 8; i++) {
        unsigned char byte = 0;
        if (i < v->head_len)
            byte = (unsigned char)v->head[i];
        else if (i - v->head_len < v->body_len)
            byte = (unsigned char)v->body[i - v->head_len];
        prefix = prefix << 8 | byte;
    }
    return prefix;
}

static int compare_entries(const void *xp, const void *yp, void *arg)
{
    const SortEntry *x = *(SortEntry *const *)xp, *y = *(SortEntry *const *)yp;
    const EntryContext *ec = arg;
    for (unsigned i = 0; i < ec->nr_keyed; i++) {
        int k = ec->kind[i], c;
        if (k == 0)
            c = x->event_rank < y->event_rank ? -1 : x->event_rank > y->event_rank;
        else if (k == 1)
            c = x->count < y->count ? -1 : x->count > y->count;
        else if (x->prefix[k - 2][0] != y->prefix[k - 2][0])
            c = x->prefix[k - 2][0] < y->prefix[k - 2][0] ? -1 : 1;
        else if (x->prefix[k - 2][1] != y->prefix[k - 2][1])
            c = x->prefix[k - 2][1] < y->prefix[k - 2][1] ? -1 : 1;
        else if (x->text[k - 2] && y->text[k - 2]) {
            size_t n = x->len[k - 2] < y->len[k - 2] ? x->len[k - 2] : y->len[k - 2];
            c = memcmp(x->text[k - 2], y->text[k - 2], n);
            if (!c)
                c = x->len[k - 2] < y->len[k - 2] ? -1 : x->len[k - 2] > y->len[k - 2];
        } else
            c = compare_key(x->row, y->row, ec->sc.order->keys[i].column, ec->sc.file);
        if (c)
            return ec->sc.order->keys[i].desc ? -c : c;
    }
    return compare_rows_from(x->row, y->row, &ec->sc, ec->nr_keyed);
}

/* Which of the order's leading keys the entries can hold. */
static void plan_entries(EntryContext *ec)
{
    unsigned prefixes = 0, events = 0, counts = 0;
    ec->nr_keyed = 0;
    for (unsigned i = 0; i < ec->sc.order->nr_keys; i++) {
        int column = ec->sc.order->keys[i].column;
        if (column == COL_EVENT && !events++)
            ec->kind[i] = 0;
        else if ((column == COL_PERIOD || column == COL_CHILDREN_PERIOD) && !counts++)
            ec->kind[i] = 1;
        else if ((column == COL_NAME || column == COL_DSO_NAME) && prefixes < PREFIX_KEYS)
            ec->kind[i] = 2 + (int)prefixes++;
        else
            break;
        ec->nr_keyed = i + 1;
    }
}

/* Each event's rank among the events' names as compare_key orders them. */
static uint32_t *event_ranks(const pv_profile *p, pv_file *file)
{
    size_t n = 0;
    for (size_t r = 0; r < p->nr_rows; r++)
        if ((size_t)p->rows[r].attr_index + 1 > n)
            n = (size_t)p->rows[r].attr_index + 1;
    uint32_t *ranks = sqlite3_malloc64((n ? n : 1) * sizeof *ranks);
    if (ranks)
        memset(ranks, 0, (n ? n : 1) * sizeof *ranks);
    for (size_t a = 0; ranks && a < n; a++)
        for (size_t b = 0; b < n; b++)
            ranks[a] += compare_text(pv_file_event_name(file, b), pv_file_event_name(file, a)) < 0;
    return ranks;
}

static void fill_entry(SortEntry *e, const pv_profile_row *r, const EntryContext *ec,
                       const uint32_t *ranks)
{
    e->row = r;
    e->event_rank = ranks[r->attr_index];
    e->count = 0;
    for (unsigned i = 0; i < ec->nr_keyed; i++) {
        int column = ec->sc.order->keys[i].column;
        char buf[ADDR_TEXT_SIZE];
        TextView v;
        if (ec->kind[i] == 1)
            e->count = (column == COL_PERIOD ? r->self_period : r->period) ^ (UINT64_C(1) << 63);
        if (ec->kind[i] < 2)
            continue;
        v = column == COL_NAME ? name_view(r, buf) : dso_name_view(r->dso);
        for (size_t w = 0; w < PREFIX_WORDS; w++)
            e->prefix[ec->kind[i] - 2][w] = view_prefix(&v, 8 * w);
        /* one piece, not the address's text in buf: comparable as it is */
        bool whole = !v.null && !v.body_len && v.head != buf;
        e->text[ec->kind[i] - 2] = whole ? v.head : NULL;
        e->len[ec->kind[i] - 2] = whole ? v.head_len : 0;
    }
}

/* The rows put in the order of the sorted entries: gathered into a copy
 * (independent reads, which the CPU overlaps), else, out of memory, in
 * place cycle by cycle (each read waits for the one before). */
static void permute_rows(pv_profile *p, SortEntry **sorted)
{
    pv_profile_row *gathered = sqlite3_malloc64(p->nr_rows * sizeof *gathered);
    if (gathered) {
        for (size_t at = 0; at < p->nr_rows; at++)
            gathered[at] = *sorted[at]->row;
        memcpy(p->rows, gathered, p->nr_rows * sizeof *gathered);
        sqlite3_free(gathered);
        return;
    }
    for (size_t start = 0; start < p->nr_rows; start++) {
        if (!sorted[start]->row)
            continue;
        pv_profile_row first = p->rows[start];
        size_t at = start;
        for (;;) {
            size_t from = (size_t)(sorted[at]->row - p->rows);
            sorted[at]->row = NULL;
            if (from == start) {
                p->rows[at] = first;
                break;
            }
            p->rows[at] = p->rows[from];
            at = from;
        }
    }
}

/* The leading keys a radix sort orders the entries by, as 64-bit words
 * most significant first: the event's rank, the count, and when the
 * order's third key is a text, its 16-byte prefix; a descending key's
 * bits inverted, so that all sort up. */
enum { RADIX_WORDS_MAX = 2 + PREFIX_WORDS };
typedef struct RadixPlan {
    unsigned nr_words;
    uint64_t flip[RADIX_WORDS_MAX];
} RadixPlan;

static uint64_t radix_word(const SortEntry *e, unsigned w, const RadixPlan *rp)
{
    uint64_t v = w == 0 ? e->event_rank : w == 1 ? e->count : e->prefix[0][w - 2];
    return v ^ rp->flip[w];
}

/* Whether x and y tie in every word the radix sort ordered them by. */
static bool radix_tie(const SortEntry *x, const SortEntry *y, const RadixPlan *rp)
{
    for (unsigned w = 0; w < rp->nr_words; w++)
        if (radix_word(x, w, rp) != radix_word(y, w, rp))
            return false;
    return true;
}

/* An entry's radix words, copied out once so that the passes read and
 * move them in sequence instead of following each pointer again (a
 * profile's entries are megabytes, visited in a scattered order). */
typedef struct RadixItem {
    uint64_t word[RADIX_WORDS_MAX];
    SortEntry *entry;
} RadixItem;

/* sorted[0 .. n) in the plan's words' order by a stable LSD radix sort, 8
 * bits a pass (a pass whose byte all share is skipped).  False (sorted
 * untouched) when out of memory. */
static bool radix_sort(SortEntry **sorted, size_t n, const RadixPlan *rp)
{
    if (n < 2)      /* sorted already; from[0] below needs a row */
        return true;
    RadixItem *items = sqlite3_malloc64(n * sizeof *items);
    RadixItem *spare = sqlite3_malloc64(n * sizeof *spare);
    size_t (*at)[256] = sqlite3_malloc64(8 * sizeof *at);
    if (!items || !spare || !at) {
        sqlite3_free(items);
        sqlite3_free(spare);
        sqlite3_free(at);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        for (unsigned w = 0; w < rp->nr_words; w++)
            items[i].word[w] = radix_word(sorted[i], w, rp);
        items[i].entry = sorted[i];
    }
    RadixItem *from = items, *to = spare;
    for (unsigned w = rp->nr_words; w-- > 0;) {
        /* the word's 8 bytes counted in one walk */
        memset(at, 0, 8 * sizeof *at);
        for (size_t i = 0; i < n; i++) {
            uint64_t v = from[i].word[w];
            for (unsigned b = 0; b < 8; b++)
                at[b][(v >> (8 * b)) & 255]++;
        }
        uint64_t v0 = from[0].word[w];
        for (unsigned b = 0; b < 8; b++) {
            unsigned shift = 8 * b;
            if (at[b][(v0 >> shift) & 255] == n)
                continue;
            size_t sum = 0;
            for (unsigned d = 0; d < 256; d++) {
                size_t here = at[b][d];
                at[b][d] = sum;
                sum += here;
            }
            for (size_t i = 0; i < n; i++)
                to[at[b][(from[i].word[w] >> shift) & 255]++] = from[i];
            RadixItem *was = from;
            from = to;
            to = was;
        }
    }
    for (size_t i = 0; i < n; i++)
        sorted[i] = from[i].entry;
    sqlite3_free(items);
    sqlite3_free(spare);
    sqlite3_free(at);
    return true;
}

/* sorted in compare_entries' order.  When the order starts with the event
 * and a count (both ready queries' do), by radix in those and the next
 * key's prefix, then the runs that tie in them compared; else compared
 * throughout.  compare_entries is a total order: either way gives one. */
static void sort_entries(SortEntry **sorted, size_t n, EntryContext *ec)
{
    RadixPlan rp = { 0, { 0 } };
    if (ec->nr_keyed >= 2 && ec->kind[0] == 0 && ec->kind[1] == 1) {
        rp.nr_words = ec->nr_keyed >= 3 && ec->kind[2] == 2 ? 2 + PREFIX_WORDS : 2;
        for (unsigned w = 0; w < rp.nr_words; w++)
            rp.flip[w] = ec->sc.order->keys[w < 2 ? w : 2].desc ? UINT64_MAX : 0;
    }
    if (!rp.nr_words || !radix_sort(sorted, n, &rp)) {
        qsort_r(sorted, n, sizeof *sorted, compare_entries, ec);
        return;
    }
    for (size_t first = 0, end; first < n; first = end) {
        for (end = first + 1; end < n && radix_tie(sorted[end], sorted[first], &rp); end++)
            ;
        if (end - first > 1)
            qsort_r(sorted + first, end - first, sizeof *sorted, compare_entries, ec);
    }
}

/* The sort by entries; false (rows untouched) when out of memory. */
static bool sort_by_entries(pv_profile *p, pv_file *file, const PvRowOrder *order)
{
    EntryContext ec = { { file, order }, 0, { 0 } };
    plan_entries(&ec);
    uint32_t *ranks = event_ranks(p, file);
    SortEntry *entries = sqlite3_malloc64(p->nr_rows * sizeof *entries);
    /* sorted as pointers: qsort moves 8 bytes, not an entry */
    SortEntry **sorted = sqlite3_malloc64(p->nr_rows * sizeof *sorted);
    if (!ranks || !entries || !sorted) {
        sqlite3_free(ranks);
        sqlite3_free(entries);
        sqlite3_free(sorted);
        return false;
    }
    for (size_t r = 0; r < p->nr_rows; r++) {
        fill_entry(&entries[r], &p->rows[r], &ec, ranks);
        sorted[r] = &entries[r];
    }
    sort_entries(sorted, p->nr_rows, &ec);
    permute_rows(p, sorted);
    sqlite3_free(sorted);
    sqlite3_free(entries);
    sqlite3_free(ranks);
    return true;
}

/* In the order's keys, as SQLite's ORDER BY would have them (ties, which
 * SQL leaves in any order, in one).  The environment's
 * PERFVTAB_PROFILE_ROW_SORT=1 sorts the rows themselves, comparing each
 * key from the row (the twin tests compare). */
static void sort_rows(pv_profile *p, pv_file *file, const PvRowOrder *order)
{
    SortContext sc = { file, order };
    if (p->nr_rows <= 1)    /* no rows: rows is NULL, which qsort_r may not take */
        return;
    if (pv_env_flag("PERFVTAB_PROFILE_ROW_SORT") || !sort_by_entries(p, file, order))
        qsort_r(p->rows, p->nr_rows, sizeof *p->rows, compare_rows, &sc);
}

static int profile_column(PvCursor *cur, sqlite3_context *ctx, int i)
{
    ProfileState *st = cur->state;
    const pv_profile_row *r = &st->profile.rows[st->at];
    switch (i) {
    case COL_EVENT:
        sqlite3_result_text(ctx, pv_file_event_name(cur->file, (size_t)r->attr_index), -1,
                            SQLITE_TRANSIENT);
        break;
    case COL_DSO:
        if (r->dso) sqlite3_result_text(ctx, r->dso, -1, SQLITE_TRANSIENT);
        break;
    case COL_SYM:
        if (r->sym) sqlite3_result_text(ctx, r->sym, -1, SQLITE_TRANSIENT);
        break;
    case COL_ADDR:
        if (!r->sym) pv_result_u64(ctx, r->addr);
        break;
    case COL_SAMPLES: sqlite3_result_int64(ctx, (sqlite3_int64)r->self_samples); break;
    case COL_PERIOD: pv_result_u64(ctx, r->self_period); break;
    case COL_CHILDREN_SAMPLES: sqlite3_result_int64(ctx, (sqlite3_int64)r->samples); break;
    case COL_CHILDREN_PERIOD: pv_result_u64(ctx, r->period); break;
    case COL_INLINED: sqlite3_result_int(ctx, r->inlined); break;
    case COL_NAME: {
        char buf[ADDR_TEXT_SIZE];
        TextView v = name_view(r, buf);
        result_view(ctx, &v);
        break;
    }
    case COL_DSO_NAME: {
        TextView v = dso_name_view(r->dso);
        result_view(ctx, &v);
        break;
    }
    case COL_EVENT_PERIOD: {
        int64_t total;
        /* as sum(period) OVER (PARTITION BY event) would end */
        if (pv_profile_event_period(&st->profile, r->attr_index, &total))
            sqlite3_result_error(ctx, "integer overflow", -1);
        else
            sqlite3_result_int64(ctx, total);
        break;
    }
    }
    return SQLITE_OK;
}

const PvTableDef pv_profile_table = {
    .name = "perf_profile",
    .columns = PV_COLUMNS_DECL(PROFILE_COLUMNS),
    .state_size = sizeof(ProfileState),
    .first = profile_first,
    .next = profile_next,
    .column = profile_column,
    .reset = profile_reset,
    .row_orders = profile_orders,
    .nr_row_orders = (sizeof profile_orders / sizeof profile_orders[0]),
};
