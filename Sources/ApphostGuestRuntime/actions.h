/*
 * The actions of one guest, "apphost.actions/1"
 * (sdk/include/apphost/actions.h): the libffi call interface of each, made
 * once at load from the table the descriptor declared, and the calls
 * through them (CONTRACT F2).
 *
 * Only the main queue calls actions, one at a time: nothing here is
 * shared with the guest's other threads, and nothing locks.
 */
#ifndef AHR_ACTIONS_H
#define AHR_ACTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include <ffi.h>

#include "apphost_guest_runtime.h"

typedef struct ahr_prepared_action {
    /* False when the declaration could not be prepared: no function, or a
     * signature outside the grammar (the host refuses such a guest). */
    bool prepared;
    ahr_value_type arguments[APPHOST_ACTION_ARGUMENTS_MAX];
    size_t argument_count;
    ahr_value_type result;
    apphost_action_function_t function;
    ffi_cif cif;
    /* One per C parameter: ay takes two. */
    ffi_type *parameters[2 * APPHOST_ACTION_ARGUMENTS_MAX];
    /* An ay result's struct, apphost_action_bytes_t. */
    ffi_type bytes_result;
    ffi_type *bytes_members[3];
} ahr_prepared_action;

typedef struct ahr_actions {
    uint32_t count;
    ahr_prepared_action actions[APPHOST_ACTIONS_MAX];
} ahr_actions;

/* Prepares a call interface for each action `raw` read (ahr_load). */
void ahr_actions_prepare(ahr_actions *actions, const ahr_raw_descriptor *raw);

/* [main-queue] Handles an ACTION call, as ahr_handle documents: checks
 * it, calls the function (the caller has entered the main queue) and
 * reports its result to `reporter`. */
int32_t ahr_actions_call(const ahr_actions *actions, const ahr_call *call, ahr_reporter reporter);

#endif
