/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The actions extension, "apphost.actions/1" (ABI 1.6): named, typed entry
 * points that an operator calls in a running guest (CONTRACT F1 to F3), as
 * App Intents and D-Bus methods are for their platforms. A notes guest
 * declares add(s), count()i and search(s)s, and the operator runs
 *
 *     apphost ctl call org.example.notes search groceries
 *
 * and reads the string search returned. These are not the user actions of
 * scenes.h (perform_action, `apphost ctl action`), which a scene interprets
 * by name and which carry an untyped payload.
 *
 * A guest declares its actions in a table that its descriptor points to
 * (apphost_guest_descriptor_t.actions, ABI 1.6). Like the descriptor, the
 * table and everything it points to are static data: the host reads them
 * right after loading the library, before init, validates them and refuses
 * the guest with one line when they are wrong (CONTRACT X1): a name that is
 * not one, a name twice, a signature outside the grammar below, a missing
 * description or a NULL function. `apphost inspect` and `apphost ctl ps
 * --json` list them.
 *
 * Each action is an ordinary C function, whose parameters and result are the
 * C types its signature declares. The host calls it (through libffi) on the
 * guest's main queue, as it delivers a callback, and only after
 * did_finish_launching returned: the [main-queue] host functions answer
 * there, and the watchdog applies (CONTRACT B5): return well within its
 * limit. A guest that crashes, aborts or hangs inside an action is handled
 * as in any callback (X2), and the caller gets an error that says so (F3).
 *
 * Signatures. An action's `arguments` is a string of zero to
 * APPHOST_ACTION_ARGUMENTS_MAX type codes, and its `result` one type code,
 * or "" for none (a void function). The codes are those of D-Bus; each
 * argument becomes one C parameter (ay two), in order:
 *
 *   code  C parameter                        C result                JSON value
 *   b     bool                               bool                    true or false
 *   y     uint8_t                            uint8_t                 0 to 255
 *   n     int16_t                            int16_t                 -32768 to 32767
 *   q     uint16_t                           uint16_t                0 to 65535
 *   i     int32_t                            int32_t                 -2^31 to 2^31 - 1
 *   u     uint32_t                           uint32_t                0 to 2^32 - 1
 *   x     int64_t                            int64_t                 -2^63 to 2^63 - 1
 *   t     uint64_t                           uint64_t                0 to 2^64 - 1
 *   d     double                             double                  a finite number
 *   s     const char *                       const char *            a string
 *   ay    const uint8_t *, size_t            apphost_action_bytes_t  base64 text
 *
 * So "sy" with result "b" is `bool f(const char *name, uint8_t level)`, and
 * "ay" with no result is `void f(const uint8_t *bytes, size_t length)`.
 *
 * Values. The host converts what the operator gives (JSON values, or words
 * on the command line, each read as its code says) to these types, and
 * refuses before the guest runs anything out of a type's range, of another
 * type, a string that is not UTF-8 or holds a NUL, or a string or bytes
 * longer than APPHOST_ACTION_VALUE_MAX_BYTES, with an error that names the
 * argument (F2). A guest therefore gets only values of its declared types.
 *
 * Who owns what:
 * - an `s` argument is a NUL-terminated UTF-8 copy that the host made and
 *   frees after the function returns: read it, never free or keep it;
 * - an `ay` argument is a pointer, never NULL (even for length 0), to a copy
 *   the host frees after the function returns, and its length;
 * - an `s` result, and the bytes of an `ay` result, stay the guest's: the
 *   host copies them as soon as the function returns, before the main queue
 *   runs anything else, and never frees them. Return a string literal, or a
 *   buffer the guest keeps (one per action, reused by the next call, does).
 *   NULL as an `s` result, invalid UTF-8, or a result longer than
 *   APPHOST_ACTION_VALUE_MAX_BYTES is a broken call: the caller gets an
 *   error instead of a result. An `ay` result's bytes may be NULL only
 *   with a length of 0.
 *
 * When the host calls an action:
 * - only while the guest runs: from the end of did_finish_launching until
 *   will_terminate. A suspended guest is not woken for one: the call is
 *   refused with an error that says so, and the operator resumes the guest
 *   first (`apphost ctl resume`).
 * - an action with APPHOST_ACTION_FOREGROUND only while the guest is in the
 *   foreground (app state active or inactive); in background it is refused.
 * - one at a time, like every call on the main queue.
 *
 * Rules cited as CONTRACT <id> are in sdk/CONTRACT.md.
 */
#ifndef APPHOST_ACTIONS_H
#define APPHOST_ACTIONS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The table's id and revision, for apphost_guest_actions_t.id. A later,
 * incompatible table would be "apphost.actions/2" (version.h). */
#define APPHOST_ACTIONS_ID "apphost.actions/1"

enum {
    /* The most actions a guest declares. */
    APPHOST_ACTIONS_MAX = 64,
    /* The most arguments an action takes (ay counts as one). */
    APPHOST_ACTION_ARGUMENTS_MAX = 8,
    /* A name: 1 to this many bytes of ASCII letters, digits, '-', '_' and
     * '.', starting with a letter, such as "search" or "notes.add"; names
     * differ as bytes ("Add" and "add" are two actions). */
    APPHOST_ACTION_NAME_MAX_BYTES = 64,
    /* A description: one line of 1 to this many bytes of UTF-8, without
     * control characters. */
    APPHOST_ACTION_DESCRIPTION_MAX_BYTES = 200,
    /* The longest string (in bytes, without its NUL) or byte array an
     * argument or a result carries. */
    APPHOST_ACTION_VALUE_MAX_BYTES = 64 * 1024
};

/* Bits of apphost_action_t.flags. A host refuses a table with a bit it
 * does not know. */
enum apphost_action_flag {
    /* Called only while the guest is in the foreground (app state active or
     * inactive), as an action that shows something to a user needs. */
    APPHOST_ACTION_FOREGROUND = 1 << 0
};

/* An action's function, as the table holds it: cast the real function to
 * it, `(apphost_action_function_t)notes_add`. The host calls it with the
 * C types its signature declares, never as this type. */
typedef void (*apphost_action_function_t)(void);

/* The result of an action whose result is "ay": `bytes` (the guest's, see
 * "Who owns what") and their `length`. */
typedef struct apphost_action_bytes {
    const uint8_t *bytes;
    size_t length;
} apphost_action_bytes_t;

/* One action. Every string is NUL-terminated static data. */
typedef struct apphost_action {
    /* Its name, unique within the guest (see APPHOST_ACTION_NAME_MAX_BYTES). */
    const char *name;
    /* Its arguments' type codes, such as "s" or "" for none. */
    const char *arguments;
    /* Its result's type code, such as "i", or "" for none. */
    const char *result;
    /* One line for operators: what it does. */
    const char *description;
    /* Bitwise OR of enum apphost_action_flag values. */
    uint64_t flags;
    /* The function, never NULL. */
    apphost_action_function_t function;
} apphost_action_t;

/* The guest's actions, as apphost_guest_descriptor_t.actions points to
 * them: static data, read before init. */
typedef struct apphost_guest_actions {
    /* sizeof(apphost_guest_actions_t) as the guest was built; later minor
     * versions only append members, and the host reads no member past it. */
    uint32_t struct_size;
    /* sizeof(apphost_action_t) as the guest was built: the host steps
     * through `actions` by it, and reads no member of an action past it. */
    uint32_t action_size;
    /* APPHOST_ACTIONS_ID. */
    const char *id;
    /* `count` actions, at most APPHOST_ACTIONS_MAX; NULL only with 0. */
    const apphost_action_t *actions;
    uint32_t count;
} apphost_guest_actions_t;

#ifdef __cplusplus
}
#endif

#endif /* APPHOST_ACTIONS_H */
