#include "growth.h"

#include <stdint.h>
#include <stdlib.h>

bool ahr_reserve_one(void **items, size_t *capacity, size_t count, size_t item_size)
{
    size_t grown;
    void *moved;

    if (count < *capacity) {
        return true;
    }
    grown = *capacity == 0 ? 4 : *capacity * 2;
    if (grown < *capacity || grown > SIZE_MAX / item_size) {
        return false;
    }
    moved = realloc(*items, grown * item_size);
    if (moved == NULL) {
        return false;
    }
    *items = moved;
    *capacity = grown;
    return true;
}
