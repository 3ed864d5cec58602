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

/*
 * AHR_IN_AREA(AREA, area, code...): `code` when the table's `area` of an
 * entry is AREA, else nothing, so that an area's file makes its switch
 * cases and declarations from the table's calls of its own area:
 * APPHOST_MESSAGES_CALLS(X, ...) with an X that wraps its case in
 * AHR_IN_AREA(SCENES, area, case AHR_CALL_##NAME: ...).
 */
#define AHR_AREA_MATCH_CALLBACKS_CALLBACKS ~, 1
#define AHR_AREA_MATCH_BACKGROUND_BACKGROUND ~, 1
#define AHR_AREA_MATCH_SCENES_SCENES ~, 1
#define AHR_AREA_MATCH_AUDIO_AUDIO ~, 1
#define AHR_AREA_MATCH_ACTIONS_ACTIONS ~, 1
#define AHR_AREA_MATCH_RUNTIME_RUNTIME ~, 1
#define AHR_AREA_MATCH_SAVES_SAVES ~, 1
#define AHR_AREA_SECOND(first, second, ...) second
#define AHR_AREA_PROBE(...) AHR_AREA_SECOND(__VA_ARGS__, 0, ~)
#define AHR_AREA_CAT(a, b) AHR_AREA_CAT_(a, b)
#define AHR_AREA_CAT_(a, b) a##b
#define AHR_AREA_WHEN_1(...) __VA_ARGS__
#define AHR_AREA_WHEN_0(...)
#define AHR_IN_AREA(want, area, ...) \
    AHR_AREA_CAT(AHR_AREA_WHEN_, AHR_AREA_PROBE(AHR_AREA_MATCH_##want##_##area))(__VA_ARGS__)
#define AHR_AREA_IGNORE(...)

/* Each kind's area, from apphost_messages.h's table (a call's AREA), so
 * that each area's switches list only their own kinds. */
ahr_call_area ahr_call_area_of(ahr_call_kind kind);

/* True for the calls and scene callbacks this runtime knows. */
bool ahr_call_is_known(const ahr_call *call);

#endif
