/*
 * The runtime reports what the guest declared and leaves every judgement to
 * the host (CONTRACT X1). It still must not crash or read without end on a
 * descriptor that is wrong: it reads no member past the declared struct_size
 * and no string past AHR_DESCRIPTOR_STRING_MAX_BYTES.
 */
#define _POSIX_C_SOURCE 200809L /* strnlen */

#include "raw_descriptor.h"

#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "sized_struct.h"
#include "utf8_cut.h"

enum { STRING_COUNT = 5 };

void ahr_read_entry(const void *symbol, apphost_entry_t *entry)
{
    memset(entry, 0, sizeof *entry);
    memcpy(&entry->abi_version, symbol, sizeof entry->abi_version);
    if (entry->abi_version.major == APPHOST_ABI_VERSION_MAJOR) {
        memcpy(entry, symbol, sizeof *entry);
    }
}

/* The length to keep of a guest string: up to its NUL, bounded. */
static size_t bounded_length(const char *string)
{
    size_t length = strnlen(string, AHR_DESCRIPTOR_STRING_MAX_BYTES + 1);

    return ahr_utf8_prefix_length(string, length, AHR_DESCRIPTOR_STRING_MAX_BYTES);
}

/* Copies the guest's strings, NULL ones staying absent, into one block. */
static bool copy_strings(const char *const sources[STRING_COUNT], ahr_text *const targets[STRING_COUNT],
                         char **storage)
{
    size_t lengths[STRING_COUNT];
    size_t total = 0;
    char *next;
    int i;

    for (i = 0; i < STRING_COUNT; i++) {
        lengths[i] = sources[i] == NULL ? 0 : bounded_length(sources[i]);
        total += lengths[i] + 1;
    }
    *storage = malloc(total);
    if (*storage == NULL) {
        return false;
    }
    next = *storage;
    for (i = 0; i < STRING_COUNT; i++) {
        if (sources[i] == NULL) {
            *targets[i] = (ahr_text){NULL, 0};
            continue;
        }
        memcpy(next, sources[i], lengths[i]);
        next[lengths[i]] = '\0';
        *targets[i] = (ahr_text){next, lengths[i]};
        next += lengths[i] + 1;
    }
    return true;
}

bool ahr_read_raw_descriptor(const apphost_entry_t *entry, ahr_raw_descriptor *raw, char **storage)
{
    apphost_guest_descriptor_t descriptor;

    memset(raw, 0, sizeof *raw);
    memset(&descriptor, 0, sizeof descriptor);
    raw->abi_version = entry->abi_version;
    raw->has_descriptor = entry->descriptor != NULL;
    if (raw->has_descriptor) {
        raw->struct_size = ahr_copy_sized_struct(&descriptor, sizeof descriptor,
                                                 alignof(apphost_guest_descriptor_t), entry->descriptor);
    }
    raw->capabilities = descriptor.capabilities;
    raw->has_init = entry->init != NULL;
    raw->has_deinit = entry->deinit != NULL;
    raw->has_query = entry->query != NULL;

    const char *const sources[STRING_COUNT] = {
        descriptor.id, descriptor.name, descriptor.version, descriptor.vendor, descriptor.description,
    };
    ahr_text *const targets[STRING_COUNT] = {&raw->id, &raw->name, &raw->version, &raw->vendor, &raw->description};
    return copy_strings(sources, targets, storage);
}
