#include "call_area.h"

/* Each call's area, as apphost_messages.h's table names it. */
#define AHR_CALL_AREA(number, name, lower_name, area, ...) \
    case AHR_CALL_##name:                                  \
        return AHR_AREA_##area;
#define AHR_CALL_AREA_IGNORE(...)

ahr_call_area ahr_call_area_of(ahr_call_kind kind)
{
    switch (kind) {
        APPHOST_MESSAGES_CALLS(AHR_CALL_AREA, AHR_CALL_AREA_IGNORE, AHR_CALL_AREA_IGNORE, AHR_CALL_AREA_IGNORE)
    }
    /* A value the host sent that no kind has. */
    return AHR_AREA_UNKNOWN;
}

bool ahr_call_is_known(const ahr_call *call)
{
    if (call->kind == AHR_CALL_SCENE_CALLBACK) {
        return call->scene_callback.scene_callback >= AHR_SCENE_WILL_ENTER_FOREGROUND &&
               call->scene_callback.scene_callback <= AHR_SCENE_DID_DISCONNECT;
    }
    return ahr_call_area_of(call->kind) != AHR_AREA_UNKNOWN;
}
