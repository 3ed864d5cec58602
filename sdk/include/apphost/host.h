/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The host interface: what the host offers a guest. The host hands it to the
 * guest's init; the pointer and every function in it stay valid until deinit
 * returns.
 *
 * Thread tags: [main-queue] functions may be called only from the guest's
 * main queue, that is from inside a callback the host made (init, deinit,
 * every callback, expiration handler, timer and async work); [thread-safe]
 * functions may be called from any thread, including threads the guest
 * started itself. Since ABI 1.2 the host checks: a [main-queue] function
 * called from any other thread does nothing and returns
 * APPHOST_ERROR_WRONG_THREAD (app_state: its negation), and the host's log
 * says so once per function.
 *
 * Re-entrancy: no host function calls back into the guest before it
 * returns, except list_sessions (scenes.h), whose visitor runs on the
 * calling thread; what a call leads to (a will_connect, a timer's work)
 * comes later on the main queue, after the running callback returns. Every
 * host function may be called from inside any callback, the one it is about
 * included (dismiss_modal inside should_dismiss_modal, end_task inside an
 * expiration handler): the host holds no lock while guest code runs, and a
 * [thread-safe] function called from a guest thread never waits for the
 * main queue.
 *
 * Ids: scene handles are never reused while the host runs (a reconnected
 * session gets a new one); session ids never change (CONTRACT S8); task,
 * timer, work and modal ids count from 1 in each launch of the guest.
 *
 * Every function tolerates a NULL host, NULL pointers, unknown handles and
 * out-of-range values: it returns an error code instead (CONTRACT X3). One
 * rule for scene handles: APPHOST_SCENE_INVALID (0) gets
 * APPHOST_ERROR_INVALID_HANDLE from every function that takes a scene,
 * before any other check; so does a handle that is not connected, once the
 * other arguments passed their checks.
 *
 * Rules cited as CONTRACT <id> are in sdk/CONTRACT.md.
 */
#ifndef APPHOST_HOST_H
#define APPHOST_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "scene.h"
#include "status.h"
#include "version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Log levels for apphost_host.log. */
enum apphost_log_level {
    APPHOST_LOG_TRACE = 0,
    APPHOST_LOG_DEBUG = 1,
    APPHOST_LOG_INFO = 2,
    APPHOST_LOG_WARNING = 3,
    APPHOST_LOG_ERROR = 4
};

/* The longest log message the host keeps, in bytes; longer ones are cut. */
enum { APPHOST_LOG_MESSAGE_MAX_BYTES = 4096 };

typedef struct apphost_host apphost_host_t;

/* ABI 1.7: the most saves of one guest that save_scene_state_confirmed may
 * have waiting for their confirmation at once. */
enum { APPHOST_SAVE_CONFIRMATIONS_MAX = 64 };

/* ABI 1.7: called on the guest's main queue once the host has stored a save
 * for good, or found it could not (save_scene_state_confirmed); `scene` is
 * the handle the save named, which may have disconnected since. */
typedef void (*apphost_save_confirmation_t)(void *context, apphost_scene_t scene, apphost_status_t status);

struct apphost_host {
    /* sizeof(apphost_host_t) as the host built it. Later minor versions only
     * append members: check struct_size before using a member your headers
     * call newer than 1.0. */
    uint32_t struct_size;
    /* The ABI version the host implements. */
    apphost_version_t abi_version;
    /* The host's own pointer; guests never read or change it. */
    void *host_data;
    /* The host program's name and version, UTF-8, owned by the host. */
    const char *name;
    const char *version;

    /* [thread-safe] Writes `message` (UTF-8, NUL-terminated) to the host's
     * event stream at `level` (enum apphost_log_level), tagged with the
     * guest's id (from init on). The host copies the message before
     * returning; the caller keeps ownership. */
    apphost_status_t (*log)(const apphost_host_t *host, int32_t level, const char *message);

    /* [thread-safe] The absolute path of this guest's own data directory,
     * which exists and which only this guest uses. The string is owned by the
     * host and valid until deinit returns. NULL only for a NULL host. */
    const char *(*data_directory)(const apphost_host_t *host);

    /* [main-queue] The guest's app state (enum apphost_app_state) as of the
     * callback being delivered; -1 for a NULL or unknown host, and
     * -APPHOST_ERROR_WRONG_THREAD off the main queue (a negative value is
     * never a state). */
    int32_t (*app_state)(const apphost_host_t *host);

    /* [main-queue] Writes the state (enum apphost_scene_state) of `scene` as
     * of the callback being delivered to *out_state. Returns
     * APPHOST_ERROR_INVALID_HANDLE for a scene that is not connected. */
    apphost_status_t (*scene_state)(const apphost_host_t *host, apphost_scene_t scene,
                                    int32_t *out_state);

    /* [thread-safe] Hands the host the state of `scene` to give back in
     * apphost_scene_connection.restoration_data when the scene's session
     * reconnects (CONTRACT S12). The host copies `length` bytes from `bytes`
     * before returning; the caller keeps ownership. `bytes` may be NULL only
     * when `length` is 0, which saves an empty state. Larger than
     * APPHOST_SCENE_STATE_MAX_BYTES: APPHOST_ERROR_TOO_LARGE.
     * APPHOST_OK means the host has the bytes, not that they are on disk:
     * the host answers first and stores them after. When it could not
     * store an earlier save of this scene (CONTRACT X5: its disk is full,
     * say), this returns APPHOST_ERROR_INTERNAL, until a save of the scene
     * is stored again; the bytes are still handed over, and the host tries
     * to store them, but until then what the scene saved may not survive
     * the host. */
    apphost_status_t (*save_scene_state)(const apphost_host_t *host, apphost_scene_t scene,
                                         const void *bytes, size_t length);

    /* [thread-safe] Looks up a host extension by its id, "apphost.<area>/<revision>",
     * such as "apphost.background/1". Returns NULL when the host does not
     * offer it. The returned struct is owned by the host and valid until
     * deinit returns. */
    const void *(*get_extension)(const apphost_host_t *host, const char *extension_id);

    /* [thread-safe] ABI 1.7: save_scene_state, and a word when the save is
     * stored for good, as a database's commit tells its client (CONTRACT
     * X5). It returns what save_scene_state would, and hands the bytes over
     * as it does, with one more refusal: APPHOST_ERROR_LIMIT_REACHED when
     * APPHOST_SAVE_CONFIRMATIONS_MAX saves of the guest wait for their
     * confirmation (nothing is handed over then); NULL `confirmation`:
     * APPHOST_ERROR_INVALID_ARGUMENT. When it returns APPHOST_OK or
     * APPHOST_ERROR_INTERNAL, the host calls `confirmation(context, scene,
     * status)` once, on the guest's main queue, after the event stream
     * reported the save: APPHOST_OK when it is stored (`state-saved`: a host
     * killed from then on restores it, or a later save), and
     * APPHOST_ERROR_INTERNAL when the host could not store it
     * (`state-save-failed`, its disk full, say; the host keeps trying to
     * store what the scene saved last, and a later confirmed save says when
     * that works) or dropped it because the scene's session had closed.
     * Confirmations of one scene come in the order of its saves. A host
     * without a store (it keeps sessions in memory) confirms once it has
     * the bytes. `context` is the guest's, passed back untouched. Once the
     * host is terminating the guest, the confirmations still waiting may
     * never come (none comes after will_terminate returned); a suspended
     * guest hears them when it resumes. `scene` may be stale by then: it
     * identifies the save, and is no longer connected if the scene
     * disconnected meanwhile.
     *
     * Never wait for a confirmation on the main queue (inside a callback):
     * it is delivered there, after the callback returns. */
    apphost_status_t (*save_scene_state_confirmed)(const apphost_host_t *host, apphost_scene_t scene,
                                                   const void *bytes, size_t length,
                                                   apphost_save_confirmation_t confirmation, void *context);
};

#ifdef __cplusplus
}
#endif

#endif /* APPHOST_HOST_H */
