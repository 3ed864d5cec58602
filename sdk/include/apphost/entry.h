/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The entry point: the one symbol a guest library exports.
 *
 * A guest defines, in C or C++,
 *
 *     const apphost_entry_t apphost_entry = { ... };
 *
 * (the declaration below gives it C linkage and default visibility)
 * and hides every other symbol (sdk/apphost.map does that). The host
 * dlopens the library, reads apphost_entry.abi_version first and refuses
 * the guest unless apphost_version_is_compatible() holds.
 *
 * Rules cited as CONTRACT <id> are in sdk/CONTRACT.md.
 */
#ifndef APPHOST_ENTRY_H
#define APPHOST_ENTRY_H

#include "descriptor.h"
#include "host.h"
#include "status.h"
#include "version.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define APPHOST_EXPORT __attribute__((visibility("default")))
#else
#define APPHOST_EXPORT
#endif

/* The name of the exported entry symbol, for dlsym(). */
#define APPHOST_ENTRY_SYMBOL "apphost_entry"

typedef struct apphost_entry {
    /* The ABI version the guest was built for: APPHOST_ABI_VERSION_INIT. */
    apphost_version_t abi_version;

    /* The guest's descriptor: static data, readable before init. */
    const apphost_guest_descriptor_t *descriptor;

    /* [main-queue] Called once after the library is loaded, before any other
     * callback. `host` is owned by the host and valid until deinit returns:
     * keep the pointer. Return APPHOST_OK, or an error to refuse to run: the
     * host then unloads the library without calling deinit. */
    apphost_status_t (*init)(const apphost_host_t *host);

    /* [main-queue] Called once before the library is unloaded, after
     * will_terminate or after a failed launch. Release everything init made. */
    void (*deinit)(void);

    /* [thread-safe] Returns the guest's interface with id `interface_id` (such
     * as APPHOST_GUEST_APP_CALLBACKS_ID), or NULL when the guest has none.
     * The host calls it after init succeeds. The returned struct is owned by
     * the guest and must stay valid until deinit returns. */
    const void *(*query)(const char *interface_id);
} apphost_entry_t;

/* The guest's entry. Declared here so that a definition in C++ has external C
 * linkage: a const object at namespace scope would otherwise be internal. */
extern APPHOST_EXPORT const apphost_entry_t apphost_entry;

#ifdef __cplusplus
}
#endif

#endif /* APPHOST_ENTRY_H */
