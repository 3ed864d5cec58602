/* Which part of the runtime handles each kind of host-to-guest call: the
 * AREA of its entry in apphost_messages.h's table is AHR_AREA_<AREA>. */
#ifndef AHR_CALL_AREA_H
#define AHR_CALL_AREA_H

#include <stdbool.h>

#include "apphost_guest_runtime.h"

typedef enum ahr_call_area {
    /* No kind of ahr_call_kind: ahr_handle refuses it. */
    AHR_AREA_UNKNOWN,
    /* The app and scene callbacks, will_connect included (guest_callbacks.c). */
    AHR_AREA_CALLBACKS,
    /* The background extension's calls (background.c). */
    AHR_AREA_BACKGROUND,
    /* The scenes extension's calls (scenes.c). */
    AHR_AREA_SCENES,
    /* The audio extension's calls (audio.c). */
    AHR_AREA_AUDIO,
    /* The actions extension's calls (actions.c). */
    AHR_AREA_ACTIONS,
    /* SAVE_STATUS: ahr_handle answers it itself, from the mirror. */
    AHR_AREA_RUNTIME,
    /* SAVE_CONFIRMATION: the confirmations of saves (saves.c). */
    AHR_AREA_SAVES
} ahr_call_area;

/* Each kind's area, from apphost_messages.h's table (a call's AREA), so
 * that each area's switches list only their own kinds. */
ahr_call_area ahr_call_area_of(ahr_call_kind kind);

/* True for the calls and scene callbacks this runtime knows. */
bool ahr_call_is_known(const ahr_call *call);

#endif
