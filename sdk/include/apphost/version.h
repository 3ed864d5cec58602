/* SPDX-License-Identifier: Apache-2.0 */
/*
 * apphost ABI version, and how the ABI changes.
 *
 * The version is APPHOST_ABI_VERSION_MAJOR.MINOR.REVISION below; this header
 * is the one place that names it (sdk/apphost.pc repeats it, and
 * scripts/abi-check fails when the two differ).
 *
 * Compatibility rule: a host loads a guest built for the same major version,
 * whatever the two minor versions; it refuses only another major. So a guest
 * built against newer headers of the same major loads on an older host, and
 * must not assume what those headers add: it probes what it uses. An
 * extension the host does not offer is a NULL from host->get_extension; a
 * member the host's table lacks lies past that table's struct_size
 * (APPHOST_HAS_MEMBER below). The host, for its part, reads no member of a
 * guest's struct past the guest's struct_size.
 *
 * Within a major version the ABI only grows (scripts/abi-check holds the
 * headers to it): new extensions and types, new enum values and status codes,
 * and members appended to a struct that starts with struct_size. A major
 * version may change anything.
 *
 * A struct only grows when the members it has keep their types and meanings.
 * Say ABI 1.2 appends members to apphost_scenes_t, the table of
 * "apphost.scenes/1": the extension keeps its id, and a guest built against
 * 1.2 uses an appended member only when the host's table covers it,
 *
 *     if (APPHOST_HAS_MEMBER(scenes, apphost_scenes_t, member)
 *         && scenes->member != NULL) { ... }
 *
 * that is, offsetof(apphost_scenes_t, member) + sizeof(void *) <=
 * scenes->struct_size for a function pointer. A host of 1.1 offers the
 * smaller table of 1.1, and the guest does without the new members there.
 *
 * An extension id's revision changes when a member's type or meaning
 * changes, or a member goes away: "apphost.background/1" would become
 * "apphost.background/2", with a table of its own. The host then keeps
 * offering the old revision next to the new one for the rest of the major
 * version, so that guests built against the old one keep working.
 *
 * Rules cited as CONTRACT <id> are in sdk/CONTRACT.md.
 */
#ifndef APPHOST_VERSION_H
#define APPHOST_VERSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    APPHOST_ABI_VERSION_MAJOR = 1,
    APPHOST_ABI_VERSION_MINOR = 10,
    APPHOST_ABI_VERSION_REVISION = 0
};

typedef struct apphost_version {
    uint32_t major;
    uint32_t minor;
    /* Bug-fix level of the headers; ignored by the compatibility rule. */
    uint32_t revision;
} apphost_version_t;

/* The version these headers declare, for apphost_entry.abi_version. */
#define APPHOST_ABI_VERSION_INIT \
    { APPHOST_ABI_VERSION_MAJOR, APPHOST_ABI_VERSION_MINOR, APPHOST_ABI_VERSION_REVISION }

/* [thread-safe] True when a host of version `host` may load a guest built
 * for version `guest`: the same major version. The minor versions may differ
 * either way; the guest probes what it uses (see above). */
static inline bool apphost_version_is_compatible(apphost_version_t host, apphost_version_t guest)
{
    return host.major == guest.major;
}

/* True when the struct `ptr` points to (of `type`, starting with
 * struct_size, never NULL) holds `member` whole: when its struct_size, as
 * whoever filled it in built it, reaches past the member's end. */
#ifdef __cplusplus
#define APPHOST_HAS_MEMBER(ptr, type, member) \
    (offsetof(type, member) + sizeof(type::member) <= (ptr)->struct_size)
#else
#define APPHOST_HAS_MEMBER(ptr, type, member) \
    (offsetof(type, member) + sizeof(((type *)0)->member) <= (ptr)->struct_size)
#endif

#ifdef __cplusplus
}
#endif

#endif /* APPHOST_VERSION_H */
