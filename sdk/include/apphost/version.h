/*
 * apphost ABI version.
 *
 * Compatibility rule: a host loads a guest when both were built for the same
 * major version and the guest's minor version is not newer than the host's.
 * Minor versions only add (new extensions, new trailing struct members,
 * new enum values); a major version may change anything.
 *
 * Rules cited as CONTRACT <id> are in sdk/CONTRACT.md.
 */
#ifndef APPHOST_VERSION_H
#define APPHOST_VERSION_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    APPHOST_ABI_VERSION_MAJOR = 1,
    APPHOST_ABI_VERSION_MINOR = 1,
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
 * for version `guest`: same major, guest minor not newer than host minor. */
static inline bool apphost_version_is_compatible(apphost_version_t host, apphost_version_t guest)
{
    return host.major == guest.major && guest.minor <= host.minor;
}

#ifdef __cplusplus
}
#endif

#endif /* APPHOST_VERSION_H */
