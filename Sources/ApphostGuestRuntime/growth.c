#include "growth.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

void *ahr_find_scene(void *items, size_t count, size_t item_size, apphost_scene_t scene)
{
    unsigned char *item = items;

    for (size_t i = 0; i < count; i++, item += item_size) {
        if (*(const apphost_scene_t *)item == scene) {
            return item;
        }
    }
    return NULL;
}

void *ahr_find_or_add_scene(void **items, size_t *count, size_t *capacity, size_t item_size, apphost_scene_t scene)
{
    unsigned char *item = ahr_find_scene(*items, *count, item_size, scene);

    if (item != NULL || !ahr_reserve_one(items, capacity, *count, item_size)) {
        return item;
    }
    item = (unsigned char *)*items + *count * item_size;
    memset(item, 0, item_size);
    memcpy(item, &scene, sizeof scene);
    (*count)++;
    return item;
}
