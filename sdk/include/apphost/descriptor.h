/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The guest descriptor: who the guest is and what it declares it needs.
 * The host reads it before calling init, so it must be static data.
 *
 * Rules cited as CONTRACT <id> are in sdk/CONTRACT.md.
 */
#ifndef APPHOST_DESCRIPTOR_H
#define APPHOST_DESCRIPTOR_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Capabilities a guest declares, as bits of apphost_guest_descriptor.capabilities.
 * A host refuses a descriptor with a bit it does not know. */
enum apphost_capability {
    /* The guest may keep playing or recording audio in background (CONTRACT B9). */
    APPHOST_CAPABILITY_BACKGROUND_AUDIO = 1 << 0,
    /* The guest supports more than one scene at a time. */
    APPHOST_CAPABILITY_MULTIPLE_SCENES = 1 << 1,
    /* The guest runs background tasks (apphost.background extension). */
    APPHOST_CAPABILITY_BACKGROUND_TASKS = 1 << 2
};

typedef struct apphost_guest_descriptor {
    /* sizeof(apphost_guest_descriptor_t) as the guest was built; later minor
     * versions only append members, and the host reads no member past it. */
    uint32_t struct_size;
    /* Reverse-DNS identifier, such as "org.example.notes": two or more labels
     * of ASCII letters, digits and '-', separated by '.', at most 255 bytes.
     * It names the guest's data directory and saved state, so never change it. */
    const char *id;
    /* Display name for operators, non-empty UTF-8. */
    const char *name;
    /* The guest's own version, such as "1.4.2", non-empty UTF-8. */
    const char *version;
    /* Who makes the guest, UTF-8; may be NULL. */
    const char *vendor;
    /* One line on what the guest does, UTF-8; may be NULL. */
    const char *description;
    /* Bitwise OR of enum apphost_capability values. */
    uint64_t capabilities;
    /* ABI 1.6: the actions an operator may call (actions.h), static data
     * like the rest; NULL for none. */
    const struct apphost_guest_actions *actions;
} apphost_guest_descriptor_t;

#ifdef __cplusplus
}
#endif

#endif /* APPHOST_DESCRIPTOR_H */
