#include "call_area.h"

ahr_call_area ahr_call_area_of(ahr_call_kind kind)
{
    /* No default: -Wswitch names a new kind here. */
    switch (kind) {
    case AHR_CALL_DID_FINISH_LAUNCHING:
    case AHR_CALL_WILL_TERMINATE:
    case AHR_CALL_MEMORY_WARNING:
    case AHR_CALL_WILL_CONNECT:
    case AHR_CALL_SCENE_CALLBACK:
        return AHR_AREA_CALLBACKS;
    case AHR_CALL_EXPIRE_TASK:
    case AHR_CALL_FIRE_TIMER:
    case AHR_CALL_RUN_WORK:
    case AHR_CALL_BACKGROUND_TIME:
        return AHR_AREA_BACKGROUND;
    case AHR_CALL_SCENE_SIZE:
    case AHR_CALL_PERFORM_ACTION:
    case AHR_CALL_SHOULD_DISMISS_MODAL:
    case AHR_CALL_DID_DISMISS_MODAL:
    case AHR_CALL_DID_DISCARD:
    case AHR_CALL_NOTIFICATION_LIMIT:
    case AHR_CALL_SCENE_REQUEST_REFUSED:
        return AHR_AREA_SCENES;
    case AHR_CALL_SAVE_STATUS:
        return AHR_AREA_RUNTIME;
    case AHR_CALL_SAVE_CONFIRMATION:
        return AHR_AREA_SAVES;
    case AHR_CALL_AUDIO_SETUP:
    case AHR_CALL_AUDIO_ACTIVATION_FINISHED:
    case AHR_CALL_AUDIO_INTERRUPTION_BEGAN:
    case AHR_CALL_AUDIO_INTERRUPTION_ENDED:
    case AHR_CALL_AUDIO_ROUTE_CHANGED:
    case AHR_CALL_SECONDARY_AUDIO_HINT:
    case AHR_CALL_MEDIA_SERVICES_RESET:
    case AHR_CALL_AUDIO_STREAM:
        return AHR_AREA_AUDIO;
    case AHR_CALL_ACTION:
        return AHR_AREA_ACTIONS;
    }
    /* A value the host sent that no kind has. */
    return AHR_AREA_UNKNOWN;
}

bool ahr_call_is_known(const ahr_call *call)
{
    if (call->kind == AHR_CALL_SCENE_CALLBACK) {
        return call->scene_callback >= AHR_SCENE_WILL_ENTER_FOREGROUND &&
               call->scene_callback <= AHR_SCENE_DID_DISCONNECT;
    }
    return ahr_call_area_of(call->kind) != AHR_AREA_UNKNOWN;
}
