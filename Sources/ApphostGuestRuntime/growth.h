/* Room for one more item in a growing array. */
#ifndef AHR_GROWTH_H
#define AHR_GROWTH_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Makes room for item number `count` + 1 in the array at *items, which holds
 * *capacity items of `item_size` bytes: when it is full, doubles it (4 items
 * at first) and updates *items and *capacity. False, with the array as it
 * was, when memory runs out or the size would overflow.
 */
bool ahr_reserve_one(void **items, size_t *capacity, size_t count, size_t item_size);

#endif
