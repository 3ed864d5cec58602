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

/* What a guest needs beyond its container, declared as bits of
 * apphost_guest_descriptor.capabilities: its entitlements (CONTRACT A6). The
 * host gives a guest exactly what it declares. A guest that declares none
 * gets the container alone (CONTRACT X6): one scene, no background audio or
 * tasks, no network, no audio input; a guest built before ABI 1.10, which
 * could not declare the last two, has neither. A host refuses a descriptor
 * with a bit it does not know. */
enum apphost_capability {
    /* The guest may keep playing or recording audio in background (CONTRACT B9). */
    APPHOST_CAPABILITY_BACKGROUND_AUDIO = 1 << 0,
    /* The guest supports more than one scene at a time. */
    APPHOST_CAPABILITY_MULTIPLE_SCENES = 1 << 1,
    /* The guest runs background tasks (apphost.background extension). */
    APPHOST_CAPABILITY_BACKGROUND_TASKS = 1 << 2,
    /* Since ABI 1.10: the guest may use the network. Without it the guest's
     * worker has a network namespace with no interface up, and socket() of
     * any family but AF_UNIX fails with EPERM (CONTRACT X6). */
    APPHOST_CAPABILITY_NETWORK = 1 << 3,
    /* Since ABI 1.10: the guest may record, with the categories RECORD and
     * PLAY_AND_RECORD. Without it set_configuration refuses them with
     * APPHOST_ERROR_NOT_DECLARED (CONTRACT C3). */
    APPHOST_CAPABILITY_AUDIO_INPUT = 1 << 4
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
