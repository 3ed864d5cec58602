/*
 * The runtime reports what the guest declared and leaves every judgement to
 * the host (CONTRACT X1). It still must not crash or read without end on a
 * descriptor that is wrong: it reads no member past the declared struct_size
 * and no string past AHR_DESCRIPTOR_STRING_MAX_BYTES.
 */
#define _POSIX_C_SOURCE 200809L /* strnlen */

#include "raw_descriptor.h"

#include <stdalign.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "sized_struct.h"
#include "utf8_cut.h"

/* The descriptor's five, the table's id, and four per action. */
enum { DESCRIPTOR_STRINGS = 5, STRING_COUNT = DESCRIPTOR_STRINGS + 1 + 4 * APPHOST_ACTIONS_MAX };

void ahr_read_entry(const void *symbol, apphost_entry_t *entry)
{
    memset(entry, 0, sizeof *entry);
    memcpy(&entry->abi_version, symbol, sizeof entry->abi_version);
    if (entry->abi_version.major == APPHOST_ABI_VERSION_MAJOR) {
        memcpy(entry, symbol, sizeof *entry);
    }
}

/* The length to keep of a guest string: up to its NUL, at most `bound`. */
static size_t bounded_length(const char *string, size_t bound)
{
    size_t length = strnlen(string, bound + 1);

    return ahr_utf8_prefix_length(string, length, bound);
}

/* An action's strings are kept to one byte past what the host accepts, so
 * that it still sees them too long, and so that 64 actions fit in one
 * LOADED frame. */
static const size_t action_bounds[4] = {
    APPHOST_ACTION_NAME_MAX_BYTES + 1,
    2 * APPHOST_ACTION_ARGUMENTS_MAX + 1,
    3,
    APPHOST_ACTION_DESCRIPTION_MAX_BYTES + 1,
};

/* Where a string lies in copy_strings' order: the descriptor's five and the
 * table's id, then four per action. */
static size_t bound_of(size_t index)
{
    return index <= DESCRIPTOR_STRINGS ? AHR_DESCRIPTOR_STRING_MAX_BYTES
                                       : action_bounds[(index - DESCRIPTOR_STRINGS - 1) % 4];
}

/* Copies the guest's strings, NULL ones staying absent, into one block. */
static bool copy_strings(const char *const sources[], ahr_text *const targets[], size_t count, char **storage)
{
    size_t lengths[STRING_COUNT];
    size_t total = 0;
    char *next;
    size_t i;

    for (i = 0; i < count; i++) {
        lengths[i] = sources[i] == NULL ? 0 : bounded_length(sources[i], bound_of(i));
        total += lengths[i] + 1;
    }
    *storage = malloc(total);
    if (*storage == NULL) {
        return false;
    }
    next = *storage;
    for (i = 0; i < count; i++) {
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

/* Copies whole members of a guest struct of `declared` bytes, the first
 * `size` of this runtime's: those that end past `declared` stay zero. */
static void copy_members(void *destination, const void *source, size_t declared, size_t size)
{
    memset(destination, 0, size);
    memcpy(destination, source, declared < size ? declared : size);
}

#define KEEP_IF_DECLARED(object, type, member, declared)                                                             \
    do {                                                                                                             \
        if (offsetof(type, member) + sizeof(object.member) > (declared)) {                                           \
            memset(&object.member, 0, sizeof(object.member));                                                        \
        }                                                                                                            \
    } while (0)

/* Reads the actions table (actions.h) into `raw`, and names its strings in
 * `sources` and `targets` for copy_strings; returns how many it named. */
static size_t read_actions(const apphost_guest_actions_t *guest_table, ahr_raw_descriptor *raw,
                           const char **sources, ahr_text **targets)
{
    apphost_guest_actions_t table;
    size_t named = 0;

    raw->has_actions = true;
    memcpy(&raw->actions_struct_size, guest_table, sizeof raw->actions_struct_size);
    copy_members(&table, guest_table, raw->actions_struct_size, sizeof table);
    KEEP_IF_DECLARED(table, apphost_guest_actions_t, action_size, raw->actions_struct_size);
    KEEP_IF_DECLARED(table, apphost_guest_actions_t, id, raw->actions_struct_size);
    KEEP_IF_DECLARED(table, apphost_guest_actions_t, actions, raw->actions_struct_size);
    KEEP_IF_DECLARED(table, apphost_guest_actions_t, count, raw->actions_struct_size);
    raw->action_size = table.action_size;
    raw->action_count = table.count;
    sources[named] = table.id;
    targets[named++] = &raw->actions_id;
    if (table.actions == NULL || table.action_size < sizeof(const char *)) {
        return named;
    }
    /* A count past the limit is refused whole: reading on would read past
     * any array a guest of this ABI could have declared. */
    raw->actions_read = table.count <= APPHOST_ACTIONS_MAX ? table.count : 0;
    for (uint32_t i = 0; i < raw->actions_read; i++) {
        const unsigned char *entry = (const unsigned char *)table.actions + (size_t)i * table.action_size;
        ahr_raw_action *action = &raw->actions[i];
        apphost_action_t declared;

        copy_members(&declared, entry, table.action_size, sizeof declared);
        KEEP_IF_DECLARED(declared, apphost_action_t, arguments, table.action_size);
        KEEP_IF_DECLARED(declared, apphost_action_t, result, table.action_size);
        KEEP_IF_DECLARED(declared, apphost_action_t, description, table.action_size);
        KEEP_IF_DECLARED(declared, apphost_action_t, flags, table.action_size);
        KEEP_IF_DECLARED(declared, apphost_action_t, function, table.action_size);
        action->flags = declared.flags;
        action->function = declared.function;
        action->has_function = declared.function != NULL;
        sources[named] = declared.name;
        targets[named++] = &action->name;
        sources[named] = declared.arguments;
        targets[named++] = &action->arguments;
        sources[named] = declared.result;
        targets[named++] = &action->result;
        sources[named] = declared.description;
        targets[named++] = &action->description;
    }
    return named;
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

    const char *sources[STRING_COUNT] = {
        descriptor.id, descriptor.name, descriptor.version, descriptor.vendor, descriptor.description,
    };
    ahr_text *targets[STRING_COUNT] = {&raw->id, &raw->name, &raw->version, &raw->vendor, &raw->description};
    size_t count = DESCRIPTOR_STRINGS;

    if (descriptor.actions != NULL) {
        count += read_actions(descriptor.actions, raw, sources + count, targets + count);
    }
    return copy_strings(sources, targets, count, storage);
}
