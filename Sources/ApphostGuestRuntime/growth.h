/* Growing arrays of items: room for one more; a scene's item found or added. */
#ifndef AHR_GROWTH_H
#define AHR_GROWTH_H

#include <stdbool.h>
#include <stddef.h>

#include "apphost_guest_runtime.h"

/*
 * Makes room for item number `count` + 1 in the array at *items, which holds
 * *capacity items of `item_size` bytes: when it is full, doubles it (4 items
 * at first) and updates *items and *capacity. False, with the array as it
 * was, when memory runs out or the size would overflow.
 */
bool ahr_reserve_one(void **items, size_t *capacity, size_t count, size_t item_size);

/*
 * The item of `scene` among the `count` items of `item_size` bytes at
 * `items`, each of which starts with its apphost_scene_t (the mirror's
 * scenes, the modal stacks); NULL when none is. A guest has few scenes:
 * searched from the start.
 */
void *ahr_find_scene(void *items, size_t count, size_t item_size, apphost_scene_t scene);

/* The item of `scene` in such an array, growing as ahr_reserve_one's; when
 * there is none, a new one, zeroed but for its scene and counted in
 * *count. NULL, with the array as it was, when memory runs out. */
void *ahr_find_or_add_scene(void **items, size_t *count, size_t *capacity, size_t item_size, apphost_scene_t scene);

#endif
