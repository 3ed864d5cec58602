/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Status codes returned by host and guest functions.
 *
 * APPHOST_OK is zero; every error is positive. New codes may be added in a
 * minor version, so treat unknown codes as errors and name them with
 * apphost_status_name().
 *
 * Rules cited as CONTRACT <id> are in sdk/CONTRACT.md.
 */
#ifndef APPHOST_STATUS_H
#define APPHOST_STATUS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One of enum apphost_status, as a fixed-width integer for the ABI. */
typedef int32_t apphost_status_t;

enum apphost_status {
    APPHOST_OK = 0,
    /* A NULL pointer, an empty string or a value out of range. */
    APPHOST_ERROR_INVALID_ARGUMENT = 1,
    /* A scene (or other) handle the host does not know, or no longer knows. */
    APPHOST_ERROR_INVALID_HANDLE = 2,
    /* The call is not allowed in the current app or scene state. */
    APPHOST_ERROR_INVALID_STATE = 3,
    /* The host does not offer this function or value. */
    APPHOST_ERROR_UNSUPPORTED = 4,
    /* The host could not allocate what the call needs. */
    APPHOST_ERROR_OUT_OF_MEMORY = 5,
    /* The data is larger than the host accepts (see each function). */
    APPHOST_ERROR_TOO_LARGE = 6,
    /* The guest failed; returned by a guest from init or launch. */
    APPHOST_ERROR_GUEST_FAILED = 7,
    /* The host failed for a reason of its own. */
    APPHOST_ERROR_INTERNAL = 8,
    /* Since ABI 1.1: opening a scene needs the transient activation of a
     * user action, and the guest holds none (CONTRACT S9). */
    APPHOST_ERROR_NO_ACTIVATION = 9,
    /* Since ABI 1.2: a [main-queue] function was called from a thread that
     * is not delivering one of the host's callbacks to this guest (host.h,
     * "Thread tags"); the call did nothing. */
    APPHOST_ERROR_WRONG_THREAD = 10,
    /* Since ABI 1.2: the call needs a capability that the guest's descriptor
     * does not declare, such as APPHOST_CAPABILITY_MULTIPLE_SCENES for a
     * second scene (CONTRACT S13). */
    APPHOST_ERROR_NOT_DECLARED = 11,
    /* Since ABI 1.2: refused by one of the host's limits, such as how many
     * notifications a guest may post in a while (CONTRACT N1); the same call
     * may succeed later. */
    APPHOST_ERROR_LIMIT_REACHED = 12,
    /* Since ABI 1.4: values that are each valid but are refused together,
     * such as an audio category with an option it does not take (CONTRACT
     * C3); the call changed nothing. */
    APPHOST_ERROR_INVALID_COMBINATION = 13
};

/* [thread-safe] A short, stable, lower-case name for `status`, such as
 * "invalid_argument", or "unknown" for a code these headers do not know.
 * The string is static: never free it. */
static inline const char *apphost_status_name(apphost_status_t status)
{
    switch (status) {
    case APPHOST_OK: return "ok";
    case APPHOST_ERROR_INVALID_ARGUMENT: return "invalid_argument";
    case APPHOST_ERROR_INVALID_HANDLE: return "invalid_handle";
    case APPHOST_ERROR_INVALID_STATE: return "invalid_state";
    case APPHOST_ERROR_UNSUPPORTED: return "unsupported";
    case APPHOST_ERROR_OUT_OF_MEMORY: return "out_of_memory";
    case APPHOST_ERROR_TOO_LARGE: return "too_large";
    case APPHOST_ERROR_GUEST_FAILED: return "guest_failed";
    case APPHOST_ERROR_INTERNAL: return "internal";
    case APPHOST_ERROR_NO_ACTIVATION: return "no_activation";
    case APPHOST_ERROR_WRONG_THREAD: return "wrong_thread";
    case APPHOST_ERROR_NOT_DECLARED: return "not_declared";
    case APPHOST_ERROR_LIMIT_REACHED: return "limit_reached";
    case APPHOST_ERROR_INVALID_COMBINATION: return "invalid_combination";
    default: return "unknown";
    }
}

#ifdef __cplusplus
}
#endif

#endif /* APPHOST_STATUS_H */
