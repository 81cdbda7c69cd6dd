#include "scan/record_board.h"
#include "base/pv_alloc.h"

#include <stdlib.h>

static const char record_board_key;

int pv_record_board_get(pv_file *f, pv_record_board **out, pv_error *err)
{
    void *kept;
    if (!pv_file_state_get(f, &record_board_key, &kept)) {
        pv_record_board *b = pv_calloc(1, sizeof *b);
        if (!b)
            return pv_error_set(err, "%s: out of memory for the record board", f->data_path);
        if (pv_file_state_set(f, &record_board_key, b, free, err))
            return -1;
        kept = b;
    }
    *out = kept;
    return 0;
}

void pv_record_board_add_reader(pv_record_board *b)
{
    b->readers++;
}

void pv_record_board_remove_reader(pv_record_board *b)
{
    if (b->readers > 0 && --b->readers == 0) {
        for (unsigned i = 0; i < PV_BOARD_POSTS; i++)
            b->posts[i].owner = NULL;
    }
}

void pv_record_board_post(pv_record_board *b, const void *owner, const pv_record *rec)
{
    if (b->readers == 0)
        return;
    pv_record_post *free_place = NULL;
    for (unsigned i = 0; i < PV_BOARD_POSTS; i++) {
        pv_record_post *p = &b->posts[i];
        if (p->owner == owner) {
            p->rec = *rec;
            return;
        }
        if (!p->owner && !free_place)
            free_place = p;
    }
    if (free_place) {
        free_place->owner = owner;
        free_place->rec = *rec;
    }
}

void pv_record_board_withdraw(pv_record_board *b, const void *owner)
{
    for (unsigned i = 0; i < PV_BOARD_POSTS; i++) {
        if (b->posts[i].owner == owner)
            b->posts[i].owner = NULL;
    }
}

const pv_record *pv_record_board_find(const pv_record_board *b, uint64_t ordinal)
{
    for (unsigned i = 0; i < PV_BOARD_POSTS; i++) {
        if (b->posts[i].owner && b->posts[i].rec.index == ordinal)
            return &b->posts[i].rec;
    }
    return NULL;
}
