/* Reading a guest's apphost_entry and descriptor without trusting them. */
#ifndef AHR_RAW_DESCRIPTOR_H
#define AHR_RAW_DESCRIPTOR_H

#include <stdbool.h>

#include "apphost_guest_runtime.h"

/*
 * Reads the apphost_entry at `symbol`: its ABI version first, the rest only
 * when the guest was built for this runtime's ABI major, since another major
 * may lay the entry out differently. Members not read are zero.
 */
void ahr_read_entry(const void *symbol, apphost_entry_t *entry);

/*
 * Fills `raw` from `entry` and the descriptor it points to, copying the
 * strings (each bounded by AHR_DESCRIPTOR_STRING_MAX_BYTES) into one
 * allocation returned in *storage, which `raw` points into; free it with
 * free(). False when that allocation failed; `raw` is then unusable.
 */
bool ahr_read_raw_descriptor(const apphost_entry_t *entry, ahr_raw_descriptor *raw, char **storage);


#endif
